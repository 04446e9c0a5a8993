/**
 * Resources the server offers. Each provider lists its resources, reads the
 * URIs it owns, and may offer templates; the server asks them in order.
 *
 * @module
 */

import { utf8Length } from "./budget.ts";
import type { ToolContext } from "./registry.ts";

/** A listed resource. */
export interface ResourceEntry {
  /** Its URI. */
  uri: string;
  /** Short name. */
  name: string;
  /** What it holds. */
  description?: string;
  /** MIME type of its contents. */
  mimeType: string;
}

/** A URI template for resources that are not listed one by one. */
export interface ResourceTemplateEntry {
  /** RFC 6570 template. */
  uriTemplate: string;
  /** Short name. */
  name: string;
  /** What it holds. */
  description?: string;
  /** MIME type of its contents. */
  mimeType: string;
}

/** The contents of a read resource. */
export interface ResourceContents {
  /** The URI read. */
  uri: string;
  /** MIME type. */
  mimeType: string;
  /** The text. */
  text: string;
}

/** Context resource providers run in: the tool context without a request's specifics. */
export type ResourceContext = Pick<ToolContext, "tmux" | "settings" | "caller" | "selected">;

/** A family of resources. */
export interface ResourceProvider {
  /** Lists its concrete resources. */
  list(ctx: ResourceContext): Promise<ResourceEntry[]>;
  /** Its templates, if any. */
  templates?(): ResourceTemplateEntry[];
  /** Reads `uri`, or returns null when the URI is not this provider's. */
  read(uri: string, ctx: ResourceContext): Promise<ResourceContents[] | null>;
  /**
   * Starts sending `updated()` when `uri` changes; false when the URI is not
   * this provider's. Throws (with an actionable message) when it cannot.
   */
  subscribe?(uri: string, ctx: ResourceContext, updated: () => void): Promise<boolean>;
  /** Stops the updates of `uri`; false when the URI is not this provider's. */
  unsubscribe?(uri: string): Promise<boolean>;
  /**
   * Values completing `argument` of a template of this provider (or of a
   * prompt) that start with `value`, or null when it does not know the argument.
   */
  complete?(argument: string, value: string, ctx: ResourceContext): Promise<string[] | null>;
  /** Called after a topology change: lets providers of topology views send their updates. */
  topologyChanged?(ctx: ResourceContext): Promise<void>;
  /** Ends every subscription and anything it keeps running. */
  close?(): Promise<void>;
}

/** JSON-RPC code of a resource that does not exist (MCP). */
export const RESOURCE_NOT_FOUND = -32002;
/** JSON-RPC code of a request with bad parameters. */
export const INVALID_PARAMS = -32602;
/** JSON-RPC code of a failure on the server's side. */
export const INTERNAL_ERROR = -32603;

/** The error a resource request answers: an actionable message and its JSON-RPC code. */
export class ResourceError extends Error {
  /** Creates the error; the SDK sends `code` and `message` as the JSON-RPC error. */
  constructor(message: string, readonly code: number = RESOURCE_NOT_FOUND) {
    super(message);
    this.name = "ResourceError";
  }
}

/** One page of a `resources/list` answer. */
export interface ResourcePage {
  [key: string]: unknown;
  /** The resources of this page. */
  resources: ResourceEntry[];
  /** Where the next page starts; absent on the last page. */
  nextCursor?: string;
}

/**
 * The page of `resources` that starts at `cursor` (absent: the first) and
 * whose answer fits `maxBytes` as it goes on the wire (CONTRACT §4), with
 * the cursor of the next page when some are left. A page holds at least one
 * resource, so paging always ends. The cursor is the index of the page's
 * first resource: a listing that changed in between is announced by
 * `list_changed`, and a cursor past its end is refused with what to do.
 */
export function resourcePage(
  resources: readonly ResourceEntry[],
  cursor: string | undefined,
  maxBytes: number,
): ResourcePage {
  let from = 0;
  if (cursor !== undefined) {
    const match = /^r([0-9]{1,9})$/.exec(cursor);
    from = match ? Number(match[1]) : -1;
    if (from < 0 || from > resources.length) {
      throw new ResourceError(
        "that cursor is not one this listing gave, or the listing has shrunk since. " +
          "Call resources/list without a cursor to start again",
        INVALID_PARAMS,
      );
    }
  }
  const rest = resources.slice(from);
  const bytes = (value: unknown) => utf8Length(JSON.stringify(value));
  if (bytes({ resources: rest }) <= maxBytes) return { resources: rest };
  // Room for the page's frame and the longest cursor, then each resource and its comma.
  let size = bytes({ resources: [], nextCursor: `r${resources.length}` });
  let to = from;
  while (to < resources.length) {
    const cost = bytes(resources[to]) + (to > from ? 1 : 0);
    if (to > from && size + cost > maxBytes) break;
    size += cost;
    to++;
  }
  return to < resources.length
    ? { resources: resources.slice(from, to), nextCursor: `r${to}` }
    : { resources: rest };
}
