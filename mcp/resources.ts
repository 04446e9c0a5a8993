/**
 * Resources the server offers. Each provider lists its resources, reads the
 * URIs it owns, and may offer templates; the server asks them in order.
 *
 * @module
 */

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
