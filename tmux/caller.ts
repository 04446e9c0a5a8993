/**
 * Which pane this server runs in, if any: read from `TMUX` and `TMUX_PANE`
 * and trusted only when `TMUX` names the socket of the driven server.
 *
 * @module
 */

import type { Tmux } from "./client.ts";
import { isNoServer } from "./errors.ts";
import { PANE_ID } from "./targets.ts";
import { paneLineCommand } from "./views.ts";

/** What the environment says about the caller, before checking tmux. */
export interface CallerEnvironment {
  /** `TMUX`: `socket_path,server_pid,session_index`. */
  tmux?: string;
  /** `TMUX_PANE`: `%N`. */
  pane?: string;
}

/** Parses `TMUX`; null when it is malformed. */
export function parseTmuxVariable(value: string): { socketPath: string; pid: number } | null {
  const match = value.match(/^(.+),(\d+),(-?\d+)$/);
  if (!match) return null;
  return { socketPath: match[1], pid: Number(match[2]) };
}

/**
 * Whether `TMUX` names the driven server and `pane` is one of its panes.
 * The server is asked for its own socket path and pid: the path we were
 * given may spell the same socket differently (a symlinked directory, `//`,
 * `/./`, macOS's `/tmp` for `/private/tmp`), and a pane's `TMUX` always
 * carries the server's spelling. Either one matching is enough: a false
 * match only protects a pane more. A pane the server does not have is no
 * caller: the variables were inherited from a pane since closed (an editor
 * started from a shell in tmux, which started this server later), and tmux
 * never gives its id to another pane while it runs.
 */
async function onServer(tmux: Tmux, named: { socketPath: string; pid: number }, pane: string) {
  const [out, found] = await tmux.run([
    ["display-message", "-p", "#{pid},#{socket_path}"],
    paneLineCommand(pane, "#{pane_id}"),
  ]);
  const comma = out.indexOf(",");
  const pid = Number(out.slice(0, comma));
  const sameServer = out.slice(comma + 1) === named.socketPath || (pid > 0 && pid === named.pid);
  return sameServer && found.split("\n")[0] === pane;
}

/** The caller's pane, resolved against the driven server once it runs. */
export class Caller {
  #verified: string | null | undefined;

  /** Reads the caller from `env`. */
  constructor(readonly env: CallerEnvironment) {}

  /** The pane id named by `TMUX_PANE` when it has the shape of a pane id. */
  get claimedPane(): string | null {
    return this.env.pane && PANE_ID.test(this.env.pane) ? this.env.pane : null;
  }

  /**
   * The caller's pane when it is verified to be on the driven server (the
   * server `TMUX` names, and it has the pane), else null. Resolved once the
   * driven server answers, then cached.
   */
  async verifiedPane(tmux: Tmux): Promise<string | null> {
    if (this.#verified !== undefined) return this.#verified;
    const pane = this.claimedPane;
    const parsed = this.env.tmux ? parseTmuxVariable(this.env.tmux) : null;
    if (!pane || !parsed) return (this.#verified = null);
    try {
      this.#verified = await onServer(tmux, parsed, pane) ? pane : null;
    } catch (error) {
      // No server yet: nothing can be the caller now; ask again later.
      if (isNoServer(error)) return null;
      throw error;
    }
    return this.#verified;
  }

  /**
   * The pane refusals must protect: the verified caller, or, when `TMUX` is
   * malformed but `TMUX_PANE` is set, the pane that may be the caller.
   */
  async guardedPane(tmux: Tmux): Promise<string | null> {
    const verified = await this.verifiedPane(tmux);
    if (verified) return verified;
    const malformed = this.env.tmux !== undefined && parseTmuxVariable(this.env.tmux) === null;
    return malformed || (this.env.tmux === undefined && this.claimedPane) ? this.claimedPane : null;
  }
}
