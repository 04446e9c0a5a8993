/**
 * Teardown over stdio against a real tmux: what each kill removes, the
 * refusals that protect the pane this server runs in, and the own tmux
 * server outliving its last session.
 *
 * @module
 */

import type { z } from "zod";
import type { killedOutput } from "../domain/teardown.ts";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import {
  ALL_TOOLSETS,
  OwnSocketDir,
  serverTest,
  type ServerTestBody,
  type ServerTestOptions,
  type Session,
  startServer,
  tmuxAt,
  TmuxFixture,
  type TRANSPORTS,
} from "./harness.ts";

/** A server test with every toolset on. */
function teardownTest(
  name: string,
  body: ServerTestBody,
  options: ServerTestOptions & { transports?: typeof TRANSPORTS[number][] } = {},
) {
  serverTest(name, body, { ...options, args: ALL_TOOLSETS });
}

type Killed = z.infer<typeof killedOutput>;
/** Failure bound of anything a test waits for; never a synchronisation device. */
const BOUND_MS = 20_000;

/** Every `session window pane` row tmux lists, sorted. */
async function topology(fx: TmuxFixture): Promise<string[]> {
  try {
    return (await fx.tmux("list-panes", "-a", "-F", "#{session_id} #{window_id} #{pane_id}"))
      .split("\n").sort();
  } catch {
    return [];
  }
}

async function ids(fx: TmuxFixture, format: string, target: string): Promise<string> {
  return await fx.tmux("display-message", "-p", "-t", target, format);
}

teardownTest("kill_window leaves the session and its other windows intact", async (fx, s) => {
  const main = await ids(fx, "#{session_id}", "main");
  const w0 = await ids(fx, "#{window_id}", "main");
  const p0 = await ids(fx, "#{pane_id}", "main");
  const w1 = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  const p1 = await ids(fx, "#{pane_id}", w1);
  const p2 = await fx.tmux("split-window", "-d", "-t", w1, "-P", "-F", "#{pane_id}");
  const w2 = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
  const p3 = await ids(fx, "#{pane_id}", w2);
  const listChanged = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no list_changed notification")), BOUND_MS);
    s.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      clearTimeout(timer);
      resolve();
    });
  });
  const r = await s.ok<Killed>("kill_window", { windowId: w1 });
  assertEquals(r.killed, { sessionIds: [], windowIds: [w1], paneIds: [p1, p2] });
  assertEquals(await topology(fx), [`${main} ${w0} ${p0}`, `${main} ${w2} ${p3}`].sort());
  await listChanged;
  const again = await s.fails("kill_window", { windowId: w1 });
  assertStringIncludes(again, "no such window");
  assertStringIncludes(await s.fails("kill_window", { windowId: "1" }), "window id");
});

teardownTest(
  "kill_pane removes one pane; the last pane takes its window and session",
  async (fx, s) => {
    const main = await ids(fx, "#{session_id}", "main");
    const w0 = await ids(fx, "#{window_id}", "main");
    const p0 = await ids(fx, "#{pane_id}", "main");
    const p1 = await fx.tmux("split-window", "-d", "-t", p0, "-P", "-F", "#{pane_id}");
    const one = await s.ok<Killed>("kill_pane", { paneId: p1 });
    assertEquals(one.killed, { sessionIds: [], windowIds: [], paneIds: [p1] });
    assertEquals(await topology(fx), [`${main} ${w0} ${p0}`]);
    const other = await fx.tmux(
      "new-session",
      "-d",
      "-s",
      "other",
      "-P",
      "-F",
      "#{session_id} #{window_id} #{pane_id}",
    );
    const [os, ow, op] = other.split(" ");
    const last = await s.ok<Killed>("kill_pane", { paneId: op });
    assertEquals(last.killed, { sessionIds: [os], windowIds: [ow], paneIds: [op] });
    assertEquals(await topology(fx), [`${main} ${w0} ${p0}`]);
    assertStringIncludes(await s.fails("kill_pane", { paneId: op }), "no such pane");
    assertStringIncludes(await s.fails("kill_pane", { paneId: "%abc" }), "pane id");
  },
);

teardownTest("kill_session ends one session; windows linked elsewhere survive", async (fx, s) => {
  const main = await ids(fx, "#{session_id}", "main");
  const w0 = await ids(fx, "#{window_id}", "main");
  const p0 = await ids(fx, "#{pane_id}", "main");
  const made = await fx.tmux(
    "new-session",
    "-d",
    "-s",
    "doomed #1",
    "-P",
    "-F",
    "#{session_id} #{window_id} #{pane_id}",
  );
  const [ds, dw, dp] = made.split(" ");
  const dw2 = await fx.tmux("new-window", "-d", "-t", `${ds}:`, "-P", "-F", "#{window_id}");
  const dp2 = await ids(fx, "#{pane_id}", dw2);
  // w0 is linked into the doomed session too: it must survive in main.
  await fx.tmux("link-window", "-d", "-s", w0, "-t", `${ds}:9`);
  const r = await s.ok<Killed>("kill_session", { session: "doomed #1" });
  assertEquals(r.killed, { sessionIds: [ds], windowIds: [dw, dw2], paneIds: [dp, dp2] });
  assertEquals(await topology(fx), [`${main} ${w0} ${p0}`]);
  // The first session (where a control client attaches) can go too; the server answers on.
  const next = await fx.tmux("new-session", "-d", "-s", "next", "-P", "-F", "#{session_id}");
  const first = await s.ok<Killed>("kill_session", { session: main });
  assertEquals(first.killed.sessionIds, [main]);
  const { sessions } = await s.ok("list_sessions");
  assertEquals(sessions.map((x) => x.sessionId), [next]);
  assertStringIncludes(await s.fails("kill_session", { session: "doomed #1" }), "no such session");
  assertStringIncludes(await s.fails("kill_session", { session: "$999" }), "no such session");
});

teardownTest("clear_pane_scrollback empties the history and keeps the pane", async (fx, s) => {
  const pane = await ids(fx, "#{pane_id}", "main");
  await fx.runInPane(pane, "seq 1 300");
  assert(Number(await ids(fx, "#{history_size}", pane)) > 200, "history to clear");
  const r = await s.ok("clear_pane_scrollback", {
    paneId: pane,
  });
  assertEquals([r.pane.paneId, r.pane.historySize], [pane, 0]);
  assertEquals(await ids(fx, "#{history_size}", pane), "0");
  assertStringIncludes(await s.fails("clear_pane_scrollback", { paneId: "%999" }), "no such pane");
});

/** The caller's pane is `main`'s first pane, on the fixture's own socket. */
const callerEnv = (fx: TmuxFixture, pane: string) => ({
  TMUX: `${fx.socketPath},1,0`,
  TMUX_PANE: pane,
});

teardownTest("teardown refuses every target holding the caller's pane", async (fx, s) => {
  const caller = await ids(fx, "#{pane_id}", "main");
  const window = await ids(fx, "#{window_id}", "main");
  const sibling = await fx.tmux("split-window", "-d", "-t", caller, "-P", "-F", "#{pane_id}");
  const spare = await fx.tmux("new-window", "-d", "-t", "main:5", "-P", "-F", "#{window_id}");
  const before = await topology(fx);
  const refusals: [string, Record<string, unknown>][] = [
    ["kill_pane", { paneId: caller }],
    ["kill_window", { windowId: window }],
    ["kill_session", { session: "main" }],
    ["clear_pane_scrollback", { paneId: caller }],
    ["respawn_pane", { paneId: caller, killFirst: true }],
  ];
  for (const [tool, args] of refusals) {
    const text = await s.fails(tool, args);
    assertStringIncludes(text, caller, `${tool} names the pane`);
    assertStringIncludes(text, "this server runs in", tool);
  }
  // move_window would kill the caller's window at the destination index.
  await fx.tmux("move-window", "-s", window, "-t", "main:3");
  const moved = await s.fails("move_window", {
    windowId: spare,
    destinationIndex: 3,
    replaceExisting: true,
  });
  assertStringIncludes(moved, caller);
  await fx.tmux("move-window", "-s", window, "-t", "main:0");
  assertEquals(await topology(fx), before, "nothing was destroyed");
  // Other targets stay allowed, and the result shows the caller.
  const { pane } = await s.ok("get_pane_info", { paneId: caller });
  assertEquals(pane.isCaller, true);
  assertEquals((await s.ok<Killed>("kill_pane", { paneId: sibling })).killed.paneIds, [sibling]);
  assertEquals((await s.ok<Killed>("kill_window", { windowId: spare })).killed.windowIds, [spare]);
}, { env: callerEnv });

teardownTest(
  "kill_session of a grouped session holding the caller says the pane lives on but clients lose it",
  async (fx, s) => {
    const caller = await ids(fx, "#{pane_id}", "main");
    await fx.tmux("new-session", "-d", "-s", "twin", "-t", "main");
    const before = await topology(fx);
    for (const session of ["twin", "main"]) {
      const sessionId = await ids(fx, "#{session_id}", session);
      const text = await s.fails("kill_session", { session });
      assertStringIncludes(text, `session ${sessionId} contains pane ${caller}`);
      assertStringIncludes(text, "would live on");
      assertStringIncludes(text, "detach a client attached to it");
      assert(!text.includes("would end the agent's own terminal"), text);
    }
    assertEquals(await topology(fx), before, "both sessions stayed");
  },
  { env: callerEnv },
);

teardownTest(
  "move_window refuses moving the caller's session's last window away, which would end it",
  async (fx, s) => {
    const caller = await ids(fx, "#{pane_id}", "main");
    const window = await ids(fx, "#{window_id}", "main");
    const main = await ids(fx, "#{session_id}", "main");
    await fx.tmux("new-session", "-d", "-s", "other");
    const before = await topology(fx);
    const refused = await s.fails("move_window", { windowId: window, destinationSession: "other" });
    assertStringIncludes(refused, `last window of session ${main}`);
    assertStringIncludes(refused, caller);
    assertStringIncludes(refused, "create_window");
    assertEquals(await topology(fx), before, "the session and its window stayed");
    // The session survives the move once it has another window: allowed.
    await fx.tmux("new-window", "-d", "-t", "main:");
    const moved = await s.ok("move_window", {
      windowId: window,
      destinationSession: "other",
    });
    assertEquals(moved.sessionId, await ids(fx, "#{session_id}", "other"));
    assertEquals(await ids(fx, "#{session_id}", caller), moved.sessionId);
  },
  { env: callerEnv },
);

/**
 * Calls `tool` while a one-shot tmux hook runs `action` right after the
 * first `list` command with `-a` (the tool's read of every pane or window),
 * as a concurrent call could between that read and the tool's change.
 */
async function afterReadingAll(
  fx: TmuxFixture,
  s: Session,
  list: "list-panes" | "list-windows",
  action: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const hook = `after-${list}`;
  await fx.tmux(
    "set-hook",
    "-g",
    hook,
    `if-shell -F "#{m:*-a*,#{hook_arguments}}" "${action} ; set-hook -gu ${hook}"`,
  );
  try {
    return await s.fails(tool, args);
  } finally {
    await fx.tmux("set-hook", "-gu", hook);
  }
}

teardownTest(
  "a caller's pane moved into the target after the tool's read is still refused",
  async (fx, s) => {
    const caller = await ids(fx, "#{pane_id}", "main");
    const doomed = await fx.tmux("new-window", "-d", "-t", "main:", "-P", "-F", "#{window_id}");
    const doomedPane = await ids(fx, "#{pane_id}", doomed);
    const swap = `swap-pane -d -s ${caller} -t ${doomedPane}`;
    const killWindow = await afterReadingAll(fx, s, "list-panes", swap, "kill_window", {
      windowId: doomed,
    });
    assertStringIncludes(killWindow, `contains pane ${caller}`);
    assertEquals(await ids(fx, "#{window_id}", caller), doomed, "the hook swapped the caller in");
    await fx.tmux("new-session", "-d", "-s", "victim");
    const moveIn = `move-window -s ${doomed} -t victim:`;
    const killSession = await afterReadingAll(fx, s, "list-panes", moveIn, "kill_session", {
      session: "victim",
    });
    assertStringIncludes(killSession, `contains pane ${caller}`);
    // move_window -k: the caller's pane moves into the window at the destination index.
    const spare = await fx.tmux("new-window", "-d", "-t", "main:7", "-P", "-F", "#{window_id}");
    const occupant = await fx.tmux("new-window", "-d", "-t", "main:8", "-P", "-F", "#{pane_id}");
    const replace = await afterReadingAll(
      fx,
      s,
      "list-windows",
      `swap-pane -d -s ${caller} -t ${occupant}`,
      "move_window",
      { windowId: spare, destinationIndex: 8, replaceExisting: true },
    );
    assertStringIncludes(replace, `contains pane ${caller}`);
    assert((await topology(fx)).some((row) => row.endsWith(caller)), "the caller's pane lives");
  },
  { env: callerEnv },
);

teardownTest("no refusal when TMUX names another tmux server", async (fx, s) => {
  const pane = await ids(fx, "#{pane_id}", "main");
  const window = await ids(fx, "#{window_id}", "main");
  await fx.tmux("new-session", "-d", "-s", "keep");
  const r = await s.ok<Killed>("kill_window", { windowId: window });
  assertEquals(r.killed.paneIds, [pane]);
}, {
  env: (fx, pane) => ({ TMUX: `${fx.dir}/another.sock,1,0`, TMUX_PANE: pane }),
});

teardownTest("a malformed TMUX with TMUX_PANE still protects that pane", async (fx, s) => {
  const pane = await ids(fx, "#{pane_id}", "main");
  assertStringIncludes(await s.fails("kill_pane", { paneId: pane }), pane);
  assertStringIncludes(await s.fails("kill_session", { session: "main" }), pane);
}, {
  env: (_fx, pane) => ({ TMUX: "not-a-tmux-value", TMUX_PANE: pane }),
  transports: ["control"],
});

Deno.test("the own libtmux-mcp server outlives its last session, also after a restart", async () => {
  // TMUX_TMPDIR puts the own socket (-L libtmux-mcp) in a private directory,
  // so the user's real default socket is never touched.
  await using own = await OwnSocketDir.create();
  const dir = own.dir;
  await using s = await startServer(null, { env: { TMUX_TMPDIR: dir } });
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) found.push(entry.name);
  const sub = found.find((name) => name.startsWith("tmux-"));
  assert(sub, `a tmux socket directory in ${dir}: ${found}`);
  const socket = `${dir}/${sub}/libtmux-mcp`;
  for (const round of [1, 2]) {
    const { session } = await s.ok("create_session", {
      name: `agent${round}`,
    });
    // create_session itself keeps a (re)started own server alive.
    assertEquals(await tmuxAt(socket, "show-options", "-sv", "exit-empty"), "off");
    const r = await s.ok<Killed>("kill_session", { session: session.sessionId });
    assertEquals(r.killed.sessionIds, [session.sessionId]);
    assertEquals(await tmuxAt(socket, "list-sessions"), "", `round ${round}: server up, empty`);
    assertEquals(await tmuxAt(socket, "show-options", "-sv", "exit-empty"), "off");
    // A restarted own server must be kept alive too: end it behind the server's back.
    await tmuxAt(socket, "kill-server");
  }
});

Deno.test("the own socket named explicitly (-L, LIBTMUX_SOCKET, or its full path with -S) is still the own server", async () => {
  // The server runs with a private HOME holding a user configuration the own
  // server must not read; deno must still find its cache outside that HOME.
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  const denoDir = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir as string;
  const uid = new TextDecoder().decode(
    (await new Deno.Command("id", { args: ["-u"], stdout: "piped" }).output()).stdout,
  ).trim();
  // The full path is where tmux puts -L libtmux-mcp: ${TMUX_TMPDIR}/tmux-UID/libtmux-mcp,
  // spelled as tmux does, and with `//` and `/./` in it.
  const ways: ((dir: string) => { args?: string[]; env?: Record<string, string> })[] = [
    () => ({ args: ["-L", "libtmux-mcp"] }),
    () => ({ env: { LIBTMUX_SOCKET: "libtmux-mcp" } }),
    (dir) => ({ args: ["-S", `${dir}/tmux-${uid}/libtmux-mcp`] }),
    (dir) => ({ env: { LIBTMUX_SOCKET_PATH: `${dir}//tmux-${uid}/./libtmux-mcp` } }),
  ];
  for (const wayIn of ways) {
    // TMUX_TMPDIR keeps the machine's real libtmux-mcp socket out of reach.
    await using own = await OwnSocketDir.create();
    const dir = own.dir;
    const way = wayIn(dir);
    const label = JSON.stringify(way);
    await Deno.writeTextFile(`${dir}/.tmux.conf`, "set -g @user_conf loaded\n");
    await using s = await startServer(null, {
      args: way.args,
      env: { TMUX_TMPDIR: dir, HOME: dir, DENO_DIR: denoDir, ...way.env },
    });
    const { tools: listed } = await s.client.listTools();
    const tools = listed.map((tool: { name: string }) => tool.name);
    assert(tools.includes("kill_session"), `${label}: teardown is on`);
    await s.ok("create_session", { name: "agent" });
    const server = await s.ok("get_server_info");
    assertEquals(server.ownedByThisServer, true, label);
    assert(server.socketPath.startsWith(dir), `${label}: ${server.socketPath} is private`);
    assertEquals(
      await tmuxAt(server.socketPath, "show-options", "-gqv", "@user_conf"),
      "",
      `${label}: no user configuration`,
    );
    assertEquals(await tmuxAt(server.socketPath, "show-options", "-sv", "exit-empty"), "off");
  }
});

Deno.test("-S through a symbolic link is the own server while that server runs (a known limit: not before)", async () => {
  await using own = await OwnSocketDir.create();
  const dir = own.dir;
  const env = { TMUX_TMPDIR: dir };
  const ownTmux = (...args: string[]) =>
    new Deno.Command("tmux", { args: ["-L", "libtmux-mcp", "-f", "/dev/null", ...args], env })
      .output();
  // Creates tmux's socket directory in dir, as any -L use does.
  await ownTmux("list-sessions");
  const [sub] = [...Deno.readDirSync(dir)].map((entry) => entry.name);
  await Deno.symlink(`${dir}/${sub}`, `${dir}/link`);
  const viaLink = ["-S", `${dir}/link/libtmux-mcp`];
  const teardownOn = async (session: Session) =>
    (await session.client.listTools()).tools.some((tool: { name: string }) =>
      tool.name === "kill_session"
    );

  // Not running: only the filesystem could tell the link leads there.
  await using before = await startServer(null, { args: viaLink, env });
  assertEquals(await teardownOn(before), false, "another server's defaults");
  await before.close();

  assertEquals((await ownTmux("new-session", "-d", "-s", "own")).code, 0);
  await using s = await startServer(null, { args: viaLink, env });
  assertEquals(await teardownOn(s), true, "the own server's defaults");
  const server = await s.ok("get_server_info");
  assertEquals(server.ownedByThisServer, true);
});

teardownTest("a session name with ':' or '.' never reaches another session", async (fx, s) => {
  await fx.tmux("new-session", "-d", "-s", "beta");
  for (const session of ["main.", "beta:0", "main.0"]) {
    assertStringIncludes(await s.fails("kill_session", { session }), "no such session");
    assertStringIncludes(await s.fails("list_windows", { session }), "no such session");
  }
  assertEquals((await fx.tmux("list-sessions", "-F", "#{session_name}")).split("\n").sort(), [
    "beta",
    "main",
  ]);
});
