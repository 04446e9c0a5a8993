/**
 * The four toolsets (docs/tools.md) and how a selection of tools is made
 * from toolsets, extra tools and exclusions.
 *
 * @module
 */

/** A named group of tools a user switches on or off together. */
export type Toolset = "inspect" | "manage" | "execute" | "teardown";

/** Every toolset, in the contract's order. */
export const TOOLSETS: readonly Toolset[] = ["inspect", "manage", "execute", "teardown"];

/** The `LIBTMUX_SAFETY` levels of the Python server and the toolsets each means. */
export const SAFETY_LEVELS: Readonly<Record<string, readonly Toolset[]>> = {
  readonly: ["inspect"],
  mutating: ["inspect", "manage", "execute"],
  destructive: TOOLSETS,
};

/** Default toolsets: everything on the own server, no teardown on a user's server. */
export function defaultToolsets(ownServer: boolean): Toolset[] {
  return ownServer ? [...TOOLSETS] : ["inspect", "manage", "execute"];
}

/** A tool as the selection sees it. */
export interface Selectable {
  /** The tool's name. */
  name: string;
  /** Its classification, which names its toolset. */
  capability: { toolset: Toolset };
}

/** The tools selected: those of `toolsets`, plus `add`, minus `exclude` (which always wins). */
export function selectTools<T extends Selectable>(
  catalog: readonly T[],
  toolsets: readonly Toolset[],
  add: readonly string[],
  exclude: readonly string[],
): T[] {
  return catalog.filter((tool) =>
    (toolsets.includes(tool.capability.toolset) || add.includes(tool.name)) &&
    !exclude.includes(tool.name)
  );
}

/** Names the toolsets that are on, as a clause: "toolsets on: a, b", or "no toolset is on". */
export function toolsetsOn(toolsets: readonly Toolset[]): string {
  // An empty list would read "toolsets on: ." (--toolsets "" with --tools).
  return toolsets.length > 0 ? `toolsets on: ${toolsets.join(", ")}` : "no toolset is on";
}
