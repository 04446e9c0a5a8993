/**
 * The server's name and version, from deno.json so there is one source.
 *
 * @module
 */

import config from "../deno.json" with { type: "json" };

/** The product name. */
export const SERVER_NAME = "tmux-mcp";
/** The product version. */
export const SERVER_VERSION: string = config.version;
