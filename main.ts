/**
 * tmux-mcp: an MCP server (stdio) that lets an AI agent work inside tmux.
 *
 * Start-up: read the settings, find tmux, make sure the driven server is
 * there (the own one is started on demand), then serve until stdin ends.
 *
 * @module
 */

import { CATALOG, nestable, READ_BATCH, readsTerminalContent } from "./server/catalog.ts";
import {
  capabilitiesDocument,
  capabilitiesProvider,
  type RuntimeFacts,
} from "./server/capabilities.ts";
import { buildInstructions } from "./server/instructions.ts";
import { isTopologyNotification, LiveResources } from "./server/live_resources.ts";
import { Prompts } from "./server/prompts.ts";
import { DenoStdioTransport } from "./server/stdio.ts";
import { TmuxMcpServer } from "./server/server.ts";
import {
  type Action,
  type Parsed,
  parseSettings,
  type Settings,
  SettingsError,
  USAGE,
  withOwnSocketPath,
} from "./core/settings.ts";
import type { AnyTool } from "./core/registry.ts";
import { selectTools, TOOLSETS } from "./core/toolsets.ts";
import { SERVER_NAME, SERVER_VERSION } from "./server/version.ts";
import { Caller } from "./tmux/caller.ts";
import { createTransport, isOwnSocket, OWN_SOCKET_NAME, Tmux } from "./tmux/client.ts";
import { ControlTransport } from "./tmux/control_transport.ts";
import { readEnv } from "./tmux/environment.ts";
import { TmuxError } from "./tmux/errors.ts";
import { type FoundTmux, locateTmux } from "./tmux/locate.ts";
import { isNamedSocketPath } from "./tmux/socket_probe.ts";
import { TopologyListener } from "./tmux/topology_listen.ts";
import { endWatches } from "./tmux/wait_for.ts";

/** Signals that end the server the way stdin's end does. */
const STOP_SIGNALS: Deno.Signal[] = ["SIGTERM", "SIGINT", "SIGHUP"];

/** Prints one clear line to stderr and exits 1: the start-up failure path. */
function fail(message: string): never {
  console.error(`tmux-mcp: ${message}`);
  Deno.exit(1);
}

/** The parsed command line and environment; a settings error ends the process. */
function readSettings(argv: string[]): Parsed {
  try {
    return parseSettings(argv, readEnv, CATALOG.map((tool) => tool.name));
  } catch (error) {
    if (error instanceof SettingsError) fail(error.message);
    throw error;
  }
}

/**
 * Finds tmux when it is needed before the tools are chosen, and `settings`
 * with the own socket's defaults when a -S path names it. A -S path may be
 * the own socket's full path, which decides the default toolsets: only tmux
 * can tell (the path holds the uid, which this process may not read). A tmux
 * not found is returned, to be reported after the settings' own notes.
 */
async function findTmuxEarly(
  action: Action,
  settings: Settings,
): Promise<{ located: FoundTmux | TmuxError | null; settings: Settings }> {
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
    return { located, settings: withOwnSocketPath(settings) };
  }
  return { located, settings };
}

/** The tools the settings select, specialized; a selection that cannot work ends the process. */
function chooseTools(settings: Settings): AnyTool[] {
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
  return tools;
}

/** What a serving process drives: tmux, and this server's own pane if it runs in one. */
interface Driven {
  tmux: Tmux;
  caller: Caller;
  callerPane: string | null;
}

/**
 * Connects to the driven tmux server (starting the own one if it is the
 * target) and records what was found in `facts`; a tmux error ends the process.
 */
async function driveTmux(
  settings: Settings,
  located: FoundTmux | TmuxError | null,
  facts: RuntimeFacts,
): Promise<Driven> {
  const caller = new Caller({ tmux: readEnv("TMUX"), pane: readEnv("TMUX_PANE") });
  try {
    const found = located ?? await locateTmux(settings.tmuxBinary, settings.tmuxSetting);
    if (found instanceof TmuxError) throw found;
    facts.tmuxBinary = found.binary;
    facts.tmuxVersion = found.version;
    const tmux = new Tmux(
      found.binary,
      settings.socket,
      createTransport(found.binary, settings.socket, settings.transport),
      found.version,
    );
    if (isOwnSocket(settings.socket)) facts.startedServer = await tmux.ensureOwnServer();
    return { tmux, caller, callerPane: await caller.verifiedPane(tmux) };
  } catch (error) {
    if (error instanceof TmuxError) fail(`${error.message.replace(/\.$/, "")}. ${error.hint}`);
    throw error;
  }
}

/** The MCP server over `driven`, told of the topology changes tmux reports. */
function buildServer(
  settings: Settings,
  tools: AnyTool[],
  facts: RuntimeFacts,
  driven: Driven,
): TmuxMcpServer {
  const { tmux, caller, callerPane } = driven;
  const selected = tools.map((tool) => tool.name);
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
  const live = new LiveResources(
    new TopologyListener(tmux, topologyHint),
    readsTerminalContent(selected),
  );
  const mcp: TmuxMcpServer = new TmuxMcpServer({
    tmux,
    settings,
    caller,
    tools,
    resources: [capabilitiesProvider(() => capabilitiesDocument(settings, tools, facts)), live],
    instructions: buildInstructions(settings, selected, callerPane),
    prompts: new Prompts(selected, settings),
  });
  const control = tmux.transport instanceof ControlTransport ? tmux.transport : undefined;
  if (control) {
    control.onNotification(topologyHint);
    // Attach now, while the client reads the initialize answer, to hear
    // changes from the start and to be attached for its first calls (a read
    // waits for an attach in flight). The spawns wait on tmux, not on this
    // thread: the answer is not delayed (docs/benchmarks.md, "First call").
    void control.connect();
  }
  return mcp;
}

/**
 * Serves over stdio until the client goes away (stdin's end) or a stop
 * signal comes, then cleans up and exits.
 */
async function serve(mcp: TmuxMcpServer, tmux: Tmux): Promise<void> {
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    // Never let a stuck transport keep the process past the one-second promise.
    const deadline = new Promise((resolve) => setTimeout(resolve, 500));
    await Promise.race([
      Promise.allSettled([
        mcp.dispose().then(() => endWatches(tmux)).then(() => tmux.close()),
        mcp.server.close(),
      ]),
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
}

async function main(argv: string[]): Promise<void> {
  const { action, notes, settings: given } = readSettings(argv);
  if (action === "help") return console.log(USAGE);
  if (action === "version") return console.log(`${SERVER_NAME} ${SERVER_VERSION}`);
  const { located, settings } = await findTmuxEarly(action, given);
  const tools = chooseTools(settings);
  const selected = tools.map((tool) => tool.name);
  const facts: RuntimeFacts = { tmuxBinary: null, tmuxVersion: null, startedServer: null };
  if (action === "print-capabilities") {
    return console.log(JSON.stringify(capabilitiesDocument(settings, tools, facts), null, 2));
  }
  if (action === "doctor") {
    // Loaded only here: the checks and client configurations are no part of serving.
    const { runDoctor } = await import("./server/doctor.ts");
    Deno.exit(await runDoctor(settings, argv, selected, console.log, notes) ? 0 : 1);
  }
  for (const note of notes) console.error(`tmux-mcp: ${note}`);
  const driven = await driveTmux(settings, located, facts);
  await serve(buildServer(settings, tools, facts, driven), driven.tmux);
  console.error(
    `${SERVER_NAME} ${SERVER_VERSION}: driving ${driven.tmux.label} with ${facts.tmuxVersion} ` +
      `(${settings.transport} transport); tools: ${selected.join(",")}`,
  );
}

if (import.meta.main) {
  await main(Deno.args);
}
