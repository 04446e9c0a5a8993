/**
 * The environment a tmux child process gets: an explicit list, never the
 * whole environment of this process.
 *
 * @module
 */

/**
 * Variables passed on to tmux. A tmux server started by this process hands
 * them to the shells of its panes, so these are what a person's shell needs.
 * `LD_*`/`DYLD_*` are never among them (Deno refuses to spawn with them), and
 * `TMUX`/`TMUX_PANE` are left out so tmux does not think it is nested.
 */
export const CHILD_ENV_NAMES = [
  "PATH",
  "HOME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMUX_TMPDIR",
  "TMPDIR",
  "USER",
  "LOGNAME",
] as const;

/** Reads a variable, treating a missing permission as "not set". */
export function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    // Without --allow-env for this name the variable is invisible by design.
    return undefined;
  }
}

let cached: Record<string, string> | undefined;

/** The environment for every tmux child: the named variables that are set. */
export function childEnvironment(): Record<string, string> {
  if (cached) return cached;
  const env: Record<string, string> = {};
  for (const name of CHILD_ENV_NAMES) {
    const value = readEnv(name);
    if (value !== undefined) env[name] = value;
  }
  if (!env.PATH) env.PATH = "/usr/local/bin:/usr/bin:/bin";
  cached = env;
  return env;
}
