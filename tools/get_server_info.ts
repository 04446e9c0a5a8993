/** `get_server_info`: the driven tmux server and how much it holds. */

import { z } from "zod";
import { defineTool, readsMetadata } from "../mcp/registry.ts";
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
    "Returns the driven tmux server's socket path, process id, start time, version and counts of " +
    "sessions, windows, panes and attached clients, and whether it is this MCP server's own tmux server.",
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
    // alive: each session row counts its windows and its windows' panes (as
    // list-windows -a and list-panes -a would), and the clients are listed
    // only while tmux finds a session.
    const [server, sessions, clients] = await ctx.tmux.run([
      ["display-message", "-p", formatOf(SERVER)],
      ["list-sessions", "-F", "#{session_windows} #{W:#{window_panes} }"],
      ["if-shell", "-F", "#{session_id}", commandList([["list-clients", "-F", "#{client_pid}"]])],
    ]);
    const rows = sessions === "" ? [] : sessions.split("\n").map((row) => row.split(" "));
    const sum = (values: string[]) => values.reduce((total, v) => total + Number(v || 0), 0);
    return {
      ...parseRows(SERVER, server)[0],
      sessions: rows.length,
      windows: sum(rows.map((row) => row[0])),
      panes: sum(rows.flatMap((row) => row.slice(1))),
      clients: foreignClients(clients.split("\n").filter((pid) => pid !== "").map(Number)),
      ownedByThisServer: isOwnSocket(ctx.tmux.socket),
    };
  },
});
