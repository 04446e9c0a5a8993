/**
 * Resources the server offers. Each provider lists its resources, reads the
 * URIs it owns, and may offer templates; the server asks them in order.
 *
 * @module
 */

import { utf8Length } from "../core/budget.ts";
import { fromBase64Url, toBase64Url } from "../domain/cursor.ts";
import type { ToolContext } from "../core/registry.ts";

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

/** The UTF-8 bytes of a `resources/read` answer holding `contents`, as it goes on the wire. */
export function readBytes(contents: ResourceContents[]): number {
  return utf8Length(JSON.stringify({ contents }));
}

/**
 * `contents` when its read fits `maxBytes` as it goes on the wire (every
 * result fits --max-bytes), else the refusal: `what` is larger than the budget, the least budget
 * that returns it (`needed` maps the read's size to it, for a document that
 * states the budget), then `instead`. A JSON document cut short would read
 * as whole, so it is refused rather than cut.
 */
export function withinBudget(
  contents: ResourceContents[],
  maxBytes: number,
  what: string,
  instead: string,
  needed: (size: number) => number = (size) => size,
): ResourceContents[] {
  const size = readBytes(contents);
  if (size <= maxBytes) return contents;
  throw new ResourceError(
    `${what} is larger than the byte budget (${maxBytes} bytes; it needs at least ${
      needed(size)
    }). ${instead}`,
    INTERNAL_ERROR,
  );
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
 * Orders resource URIs: the server-wide ones (nothing under the host, such
 * as `tmux://sessions`) first, where a client that reads only the first page
 * finds them, then the others as text, except that runs of digits compare as
 * numbers: `tmux://panes/%259` (pane %9) comes before `tmux://panes/%2510`,
 * and a pane's view just before its content. tmux never reuses a pane id, so
 * a new pane sorts after every pane listed before it.
 */
export function compareUris(a: string, b: string): number {
  const nested = (uri: string) => /^[^:]*:\/\/[^/]*\/./.test(uri) ? 1 : 0;
  if (nested(a) !== nested(b)) return nested(a) - nested(b);
  const left = a.match(/\d+|\D+/g) ?? [];
  const right = b.match(/\d+|\D+/g) ?? [];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    let [x, y] = [left[i], right[i]];
    if (x === y) continue;
    if (/^\d/.test(x) && /^\d/.test(y)) {
      const [p, q] = [x.replace(/^0+(?=.)/, ""), y.replace(/^0+(?=.)/, "")];
      if (p.length !== q.length) return p.length - q.length;
      // Equal numbers (`007`, `7`) fall back to their text, so no two URIs tie.
      if (p !== q) [x, y] = [p, q];
    }
    return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/** What a page cursor's text starts with: the format, so that no other cursor reads as one. */
const PAGE_CURSOR_TAG = "resources/list after ";

/** The cursor of the page after `uri`, the last one listed. */
function pageCursor(uri: string): string {
  return toBase64Url(new TextEncoder().encode(PAGE_CURSOR_TAG + uri));
}

/** The URI a page cursor names, or undefined when it is no cursor of resources/list. */
function cursorUri(cursor: string): string | undefined {
  const bytes = fromBase64Url(cursor);
  if (!bytes) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return text.startsWith(PAGE_CURSOR_TAG) ? text.slice(PAGE_CURSOR_TAG.length) : undefined;
}

/**
 * The page of `resources`, in {@link compareUris} order, that follows the
 * resource `cursor` names (absent: the first page), and whose answer fits
 * `maxBytes` as it goes on the wire (every answer fits --max-bytes), with the cursor of the
 * next page when some are left. A page holds at least one resource, so
 * paging always ends. The cursor names the last resource listed rather than
 * a position: resources that appear or go between two pages shift no other
 * one across the boundary (a position would list one twice or skip one),
 * and that resource need not exist any more. A text that is no such cursor
 * is refused with what to do.
 */
export function resourcePage(
  resources: readonly ResourceEntry[],
  cursor: string | undefined,
  maxBytes: number,
): ResourcePage {
  const sorted = [...resources].sort((a, b) => compareUris(a.uri, b.uri));
  let from = 0;
  if (cursor !== undefined) {
    const after = cursorUri(cursor);
    if (after === undefined) {
      throw new ResourceError(
        "that cursor is not one resources/list gave. Pass nextCursor exactly as the last " +
          "resources/list returned it, or call resources/list without a cursor to start again",
        INVALID_PARAMS,
      );
    }
    from = sorted.findIndex((r) => compareUris(r.uri, after) > 0);
    if (from < 0) from = sorted.length;
  }
  const rest = sorted.slice(from);
  const bytes = (value: unknown) => utf8Length(JSON.stringify(value));
  if (bytes({ resources: rest }) <= maxBytes) return { resources: rest };
  // Room for the page's frame and the longest cursor, then each resource and its comma.
  const longest = rest.reduce((a, r) => (utf8Length(r.uri) > utf8Length(a) ? r.uri : a), "");
  let size = bytes({ resources: [], nextCursor: pageCursor(longest) });
  let to = from;
  while (to < sorted.length) {
    const cost = bytes(sorted[to]) + (to > from ? 1 : 0);
    if (to > from && size + cost > maxBytes) break;
    size += cost;
    to++;
  }
  return to < sorted.length
    ? { resources: sorted.slice(from, to), nextCursor: pageCursor(sorted[to - 1].uri) }
    : { resources: rest };
}
