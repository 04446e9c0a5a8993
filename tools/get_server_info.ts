/** `get_server_info`: the driven tmux server and how much it holds. */

import { z } from "zod";
import { defineTool, readsMetadata } from "../core/registry.ts";
import { foreignClients } from "../tmux/children.ts";
import { isOwnSocket } from "../tmux/client.ts";
import { commandList } from "../tmux/guard.ts";
import { formatOf, int, parseRows, text } from "../tmux/format.ts";

const SERVER = {
  socketPath: text("socket_path"),
  pid: int("pid"),
  startTime: int("start_time"),
  version: text("version"),
};

/** The get_server_info tool. */
export const getServerInfo = defineTool({
  name: "get_server_info",
  title: "Get server info",
  description:
    "The tmux server's socket, pid, version, start time, counts, and whether it is this " +
    "server's own.",
  capability: readsMetadata(),
  input: z.strictObject({}),
  output: z.object({
    socketPath: z.string(),
    pid: z.int(),
    startTime: z.int().describe("Seconds since the Unix epoch."),
    version: z.string(),
    sessions: z.int(),
    windows: z.int(),
    panes: z.int(),
    clients: z.int().describe(
      "Attached clients, not counting this server's own control-mode clients.",
    ),
    ownedByThisServer: z.boolean().describe(
      "True when this is the server's own dedicated tmux server.",
    ),
  }),
  async handler(_args, ctx) {
    // list-windows -a, list-panes -a and list-clients fail ("no current
    // target") on a server without sessions, which the own server keeps
    // alive: each session row names its windows and their panes, and the
    // clients are listed only while tmux finds a session. Ids are counted
    // once: a window linked into several sessions, or the windows of a
    // session group, appear in each session's row.
    const [server, sessions, clients] = await ctx.tmux.run([
      ["display-message", "-p", formatOf(SERVER)],
      ["list-sessions", "-F", "#{W:#{window_id} #{P:#{pane_id} }}"],
      ["if-shell", "-F", "#{session_id}", commandList([["list-clients", "-F", "#{client_pid}"]])],
    ]);
    const rows = sessions === "" ? [] : sessions.split("\n");
    const ids = new Set(rows.flatMap((row) => row.split(" ")));
    const count = (prefix: string) => [...ids].filter((id) => id.startsWith(prefix)).length;
    return {
      ...parseRows(SERVER, server)[0],
      sessions: rows.length,
      windows: count("@"),
      panes: count("%"),
      clients: foreignClients(clients.split("\n").filter((pid) => pid !== "").map(Number)),
      ownedByThisServer: isOwnSocket(ctx.tmux.socket),
    };
  },
});
