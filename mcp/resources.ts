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
}
