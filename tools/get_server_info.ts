/** `get_server_info`: the driven tmux server and how much it holds. */

import { z } from "zod";
import { defineTool, readsMetadata } from "../mcp/registry.ts";
import { ownClientPids } from "../tmux/children.ts";
import { isOwnSocket } from "../tmux/client.ts";
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
    const [server, sessions, windows, panes, clients] = await ctx.tmux.run([
      ["display-message", "-p", formatOf(SERVER)],
      ["list-sessions", "-F", "."],
      ["list-windows", "-a", "-F", "."],
      ["list-panes", "-a", "-F", "."],
      ["list-clients", "-F", "#{client_pid}"],
    ]);
    const count = (output: string) => (output === "" ? 0 : output.split("\n").length);
    const own = ownClientPids();
    return {
      ...parseRows(SERVER, server)[0],
      sessions: count(sessions),
      windows: count(windows),
      panes: count(panes),
      // This server's own control-mode clients are tmux clients too; a person's are what counts.
      clients: clients.split("\n").filter((pid) => pid !== "" && !own.has(Number(pid)))
        .length,
      ownedByThisServer: isOwnSocket(ctx.tmux.socket),
    };
  },
});
