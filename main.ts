/**
 * tmux-mcp: an MCP server (stdio) that lets an AI agent work inside tmux.
 *
 * Start-up: read the settings, find tmux, make sure the driven server is
 * there (the own one is started on demand), then serve until stdin ends.
 *
 * @module
 */

import { CATALOG, readsTerminalContent } from "./mcp/catalog.ts";
import { nestable, READ_BATCH } from "./tools/call_read_tools_batch.ts";
import { runDoctor } from "./mcp/doctor.ts";
import {
  capabilitiesDocument,
  capabilitiesProvider,
  type RuntimeFacts,
} from "./mcp/capabilities.ts";
import { buildInstructions } from "./mcp/instructions.ts";
import { isTopologyNotification, LiveResources } from "./mcp/live_resources.ts";
import { Prompts } from "./mcp/prompts.ts";
import { DenoStdioTransport } from "./mcp/stdio.ts";
import { TmuxMcpServer } from "./mcp/server.ts";
import { parseSettings, SettingsError, USAGE, withOwnSocketPath } from "./mcp/settings.ts";
import { selectTools, TOOLSETS } from "./mcp/toolsets.ts";
import { SERVER_NAME, SERVER_VERSION } from "./mcp/version.ts";
import { Caller } from "./tmux/caller.ts";
import { createTransport, isOwnSocket, OWN_SOCKET_NAME, Tmux } from "./tmux/client.ts";
import { ControlTransport } from "./tmux/control_transport.ts";
import { readEnv } from "./tmux/environment.ts";
import { TmuxError } from "./tmux/errors.ts";
import { locateTmux } from "./tmux/locate.ts";
import { isNamedSocketPath } from "./tmux/socket_probe.ts";
import { TopologyListener } from "./tmux/topology_listen.ts";

/** Signals that end the server the way stdin's end does. */
const STOP_SIGNALS: Deno.Signal[] = ["SIGTERM", "SIGINT", "SIGHUP"];

/** Prints one clear line to stderr and exits 1: the start-up failure path. */
function fail(message: string): never {
  console.error(`tmux-mcp: ${message}`);
  Deno.exit(1);
}

async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseSettings(argv, readEnv, CATALOG.map((tool) => tool.name));
  } catch (error) {
    if (error instanceof SettingsError) fail(error.message);
    throw error;
  }
  const { action, notes } = parsed;
  let settings = parsed.settings;
  if (action === "help") {
    console.log(USAGE);
    return;
  }
  if (action === "version") {
    console.log(`${SERVER_NAME} ${SERVER_VERSION}`);
    return;
  }
  // A -S path may be the own socket's full path, which decides the default
  // toolsets: only tmux can tell (the path holds the uid, which this process
  // may not read), so tmux is found before the tools are chosen.
  const located = action === "serve" || settings.socket.kind === "path"
    ? await locateTmux(settings.tmuxBinary, settings.tmuxSetting).catch((error) => {
      if (error instanceof TmuxError) return error;
      throw error;
    })
    : null;
  if (
    settings.socket.kind === "path" && located !== null && !(located instanceof TmuxError) &&
    await isNamedSocketPath(located.binary, OWN_SOCKET_NAME, settings.socket.path)
  ) {
    settings = withOwnSocketPath(settings);
  }
  const tools = selectTools(CATALOG, settings.toolsets, settings.tools, settings.excludeTools)
    .map((tool, _, all) => tool.specialize?.(all) ?? tool);
  if (tools.length === 0) {
    fail(
      `the settings select no tools; name toolsets (--toolsets, from ${TOOLSETS.join(", ")}) ` +
        "or tools (--tools), and exclude fewer.",
    );
  }
  // The read batch runs the other selected inspect tools: alone it can only fail.
  if (tools.some((tool) => tool.name === READ_BATCH) && nestable(tools).length === 0) {
    fail(
      `${READ_BATCH} runs other selected inspect tools (not wait_for_text), and the settings ` +
        "select none; select some (--toolsets inspect, or --tools list_panes,capture_pane,...), " +
        `exclude fewer, or exclude ${READ_BATCH} too.`,
    );
  }
  const selected = tools.map((tool) => tool.name);
  const facts: RuntimeFacts = { tmuxBinary: null, tmuxVersion: null, startedServer: null };
  if (action === "print-capabilities") {
    console.log(JSON.stringify(capabilitiesDocument(settings, tools, facts), null, 2));
    return;
  }
  if (action === "doctor") {
    const ready = await runDoctor(settings, argv, selected, console.log, notes);
    Deno.exit(ready ? 0 : 1);
  }
  for (const note of notes) console.error(`tmux-mcp: ${note}`);

  let tmux: Tmux;
  let callerPane: string | null = null;
  const caller = new Caller({ tmux: readEnv("TMUX"), pane: readEnv("TMUX_PANE") });
  try {
    // A tmux not found is reported here, after the settings' own notes.
    const found = located ?? await locateTmux(settings.tmuxBinary, settings.tmuxSetting);
    if (found instanceof TmuxError) throw found;
    facts.tmuxBinary = found.binary;
    facts.tmuxVersion = found.version;
    tmux = new Tmux(
      found.binary,
      settings.socket,
      createTransport(found.binary, settings.socket, settings.transport),
      found.version,
    );
    if (isOwnSocket(settings.socket)) facts.startedServer = await tmux.ensureOwnServer();
    callerPane = await caller.verifiedPane(tmux);
  } catch (error) {
    if (error instanceof TmuxError) fail(`${error.message.replace(/\.$/, "")}. ${error.hint}`);
    throw error;
  }

  const topologyHint = (line: string) => {
    if (isTopologyNotification(line)) mcp.topologyChanged();
    else if (live.hearsViewChange(line)) mcp.viewsChanged();
  };
  // A person's changes (new windows, renames, kills) reach us as control-mode
  // notifications: always on the control transport's own client (sessions,
  // windows, and panes of its session), and, while anyone is subscribed, on a
  // listen-only client that also hears pane changes in every session. A
  // change of focus, or a person's client coming or going, changes only the
  // sessions view: it costs a check only while someone is subscribed to it.
  const control = tmux.transport instanceof ControlTransport ? tmux.transport : undefined;
  const live = new LiveResources(
    new TopologyListener(tmux, topologyHint),
    readsTerminalContent(selected),
  );
  const mcp: TmuxMcpServer = new TmuxMcpServer({
    tmux,
    settings,
    caller,
    tools,
    resources: [
      capabilitiesProvider(() => capabilitiesDocument(settings, tools, facts)),
      live,
    ],
    instructions: buildInstructions(settings, selected, callerPane),
    prompts: new Prompts(selected, settings),
  });
  if (control) {
    control.onNotification(topologyHint);
    // Attach once the client has initialized rather than at the first tool
    // call, to hear changes from the start; not before, so spawning the
    // client does not delay the initialize answer. A call that comes first
    // attaches it itself.
    mcp.server.oninitialized = () => void control.connect();
  }

  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    // Never let a stuck transport keep the process past the one-second promise.
    const deadline = new Promise((resolve) => setTimeout(resolve, 500));
    await Promise.race([
      Promise.allSettled([mcp.dispose().then(() => tmux.close()), mcp.server.close()]),
      deadline,
    ]);
    Deno.exit(0);
  };
  // stdin's end (the client went away) closes the transport.
  mcp.server.onclose = shutdown;
  // A client that stops its server with a signal gets the same clean-up:
  // Deno's default for these is to die at once, leaving every `tmux wait-for`
  // of a pending wait or run orphaned and registered in tmux as a waiter.
  for (const signal of STOP_SIGNALS) Deno.addSignalListener(signal, () => void shutdown());
  mcp.server.onerror = (error) => console.error(`tmux-mcp: ${error.message}`);
  await mcp.server.connect(new DenoStdioTransport());
  console.error(
    `${SERVER_NAME} ${SERVER_VERSION}: driving ${tmux.label} with ${facts.tmuxVersion} (${settings.transport} transport); tools: ${
      selected.join(",")
    }`,
  );
}

if (import.meta.main) {
  await main(Deno.args);
}
