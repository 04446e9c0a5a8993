/**
 * Every decision that depends on the tmux version, in one place. The
 * version is the `tmux -V` line the server found at start; each rule names
 * the behaviour it follows, and docs/tmux-quirks.md has the measurements.
 *
 * @module
 */

/** The oldest tmux the server starts with. */
export const MIN_TMUX = { major: 3, minor: 2 } as const;

/** The tmux versions the test suite runs on (CI: the OS's tmux and 3.5a; GitHub: 3.4). */
export const TESTED_VERSIONS = ["3.3a", "3.4", "3.5a"] as const;

/** A parsed `tmux -V` line: `next-3.6` reads as 3.6; `master` and `openbsd-*` as null. */
export function parseTmuxVersion(text: string): { major: number; minor: number } | null {
  const match = text.match(/(\d+)\.(\d+)/);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : null;
}

/** True when `version` is at least `major.minor`; a build without a number counts as newest. */
function atLeast(version: string, major: number, minor: number): boolean {
  const parsed = parseTmuxVersion(version);
  if (!parsed) return true;
  return parsed.major > major || (parsed.major === major && parsed.minor >= minor);
}

/** True when `version` (a `tmux -V` line) is at least {@link MIN_TMUX}. */
export function isSupportedVersion(version: string): boolean {
  if (!parseTmuxVersion(version)) return /master|next|openbsd/i.test(version);
  return atLeast(version, MIN_TMUX.major, MIN_TMUX.minor);
}

/** True when the suite runs on exactly this release (a `tmux -V` line such as `tmux 3.5a`). */
export function isTestedVersion(version: string): boolean {
  const release = version.match(/^tmux (\d+\.\d+[a-z]?)\s*$/)?.[1];
  return (TESTED_VERSIONS as readonly string[]).includes(release ?? "");
}

/**
 * How send-keys fails chords a terminal has no bytes for: tmux 3.3 types
 * the Shift chords of Enter, Space, Escape and BSpace as their names and
 * drops the Ctrl ones; 3.4+ sends most without the modifier (M-BTab as a
 * bare BTab) and types C-BSpace and C-Escape as names. An unknown version
 * counts as newest.
 */
export function chordsAsIn33(version: string): boolean {
  return version !== "" && !atLeast(version, 3, 4);
}

/**
 * The `capture-pane` flags for rows with their trailing spaces kept, up to
 * the last cell written (what -J joins): `-N` on 3.3; from 3.4 `-N` pads
 * every row to the pane's width and `-T` stops at the last used cell.
 */
export function keepTrailingSpacesFlags(version: string | undefined): string[] {
  return version && !atLeast(version, 3, 4) ? ["-N"] : ["-N", "-T"];
}

/**
 * Up to 3.7c (fixed for 3.8, tmux issue 5498) respawn-pane gives the pane a
 * new, empty output buffer but keeps the old offsets into it: a control
 * client still holding unsent output of the pane makes tmux parse past the
 * buffer (SIGSEGV; 3.3a and 3.5a measured). An unknown version counts as
 * affected: the workaround costs two round trips per watch client.
 */
export function respawnKeepsOutputOffsets(version: string | undefined): boolean {
  return version === undefined || !atLeast(version, 3, 8);
}
