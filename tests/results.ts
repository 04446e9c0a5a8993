/**
 * The structured result of each tool, typed from its output schema:
 * {@link Session.ok} called with a tool's name returns that tool's entry.
 *
 * @module
 */

import type { z } from "zod";
import type { CATALOG } from "../server/catalog.ts";

/** One tool of the catalog, with its own name and schemas. */
type CatalogTool = (typeof CATALOG)[number];

/** Tool name to structured result. */
export type ToolResults = { [T in CatalogTool as T["name"]]: z.infer<T["output"]> };
