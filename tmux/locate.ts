/**
 * Finding a usable tmux executable: the one the user named, else `tmux` on
 * PATH, else the usual absolute locations (GUI clients start servers with a
 * minimal PATH, where Homebrew's tmux is not found).
 *
 * @module
 */

import { TmuxError } from "./errors.ts";
import { missingTmux, spawnTmux } from "./spawn.ts";
import { isSupportedVersion, MIN_TMUX } from "./version.ts";

/** Absolute places tmux is installed by the common package managers, in search order. */
export const TMUX_LOCATIONS = [
  "/usr/bin/tmux",
  "/usr/local/bin/tmux",
  "/opt/homebrew/bin/tmux",
  "/home/linuxbrew/.linuxbrew/bin/tmux",
  "/run/current-system/sw/bin/tmux",
  "/snap/bin/tmux",
] as const;

/** A tmux executable that answered `-V`. */
export interface FoundTmux {
  /** What to spawn. */
  binary: string;
  /** The `tmux -V` line, e.g. `tmux 3.3a`. */
  version: string;
}

/**
 * Finds tmux: `named` only when given, else PATH then {@link TMUX_LOCATIONS}.
 * Throws a TmuxError saying how to install tmux or which setting to use;
 * `setting` is the one that names tmux (`--tmux`, or `LIBTMUX_TMUX_BIN` when
 * that variable named `named`).
 */
export async function locateTmux(named: string | null, setting = "--tmux"): Promise<FoundTmux> {
  const candidates = named ? [named] : ["tmux", ...TMUX_LOCATIONS];
  for (const binary of candidates) {
    let result;
    try {
      result = await spawnTmux(binary, ["-V"], { timeoutMs: 5000 });
    } catch (error) {
      // Not there or not allowed: try the next place.
      if (error instanceof TmuxError && error.kind === "missing") continue;
      throw error;
    }
    const version = new TextDecoder().decode(result.stdout).trim();
    if (result.code !== 0 || !version) continue;
    // Every tmux answers -V with "tmux <version>"; a wrapper or another
    // program that says something else is no tmux, whatever it is older than.
    if (!/^tmux\b/.test(version)) {
      throw new TmuxError(
        "missing",
        `${binary.includes("/") ? binary : `${binary} on PATH`} is not tmux: asked for its ` +
          `version (-V), it answered "${version.split("\n")[0].slice(0, 80)}"`,
        `Name the real tmux with ${nameWith(setting)}, or install tmux 3.2 or newer ` +
          "(apt-get install tmux, brew install tmux).",
      );
    }
    if (!isSupportedVersion(version)) {
      throw new TmuxError(
        "missing",
        `${version} at ${binary} is older than tmux ${MIN_TMUX.major}.${MIN_TMUX.minor}`,
        `Install a newer tmux, or name one with ${nameWith(setting)}.`,
      );
    }
    return { binary, version };
  }
  if (named) {
    // The permission decides which fix to name: the allow-list, or the path.
    const allowed = (await Deno.permissions.query({ name: "run", command: named })).state;
    throw missingTmux(named, allowed !== "granted", setting);
  }
  throw new TmuxError(
    "missing",
    `tmux was not found on PATH or in ${TMUX_LOCATIONS.join(", ")}`,
    "Install tmux 3.2 or newer (apt-get install tmux, brew install tmux), or name it with --tmux /path/to/tmux (the path must also be allowed by --allow-run).",
  );
}

/** How to name tmux with `setting`: `--tmux /path/to/tmux` or `LIBTMUX_TMUX_BIN=/path/to/tmux`. */
function nameWith(setting: string): string {
  return `${setting}${setting.startsWith("-") ? " " : "="}/path/to/tmux`;
}
