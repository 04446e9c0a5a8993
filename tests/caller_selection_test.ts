/**
 * Who calls and what is offered, over stdio against a real tmux: caller
 * detection from TMUX and TMUX_PANE, ids the caller guard could miss,
 * toolset selection and its refusals, and the capabilities resource.
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { serverTest, startServer, TmuxFixture, TRANSPORTS } from "./harness.ts";

serverTest(
  "caller: TMUX/TMUX_PANE on the driven socket mark the pane and make it the default",
  async (fx, s) => {
    const paneId = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    await fx.tmux("new-window", "-t", "main:");
    const { panes } = await s.ok("list_panes");
    assertEquals(panes.filter((p) => p.isCaller).map((p) => p.paneId), [paneId]);
    const snap = await s.ok("snapshot_pane", {});
    assertEquals(snap.pane.paneId, paneId);
  },
  { env: (fx) => ({ TMUX: `${fx.socketPath},1,0`, TMUX_PANE: "%0" }) },
);

for (const transport of TRANSPORTS) {
  Deno.test(
    `caller: the driven socket spelled another way (symlinked directory, //, /./) is still the caller's server [${transport}]`,
    async () => {
      await using fx = await TmuxFixture.start();
      const [pid, socketPath] = (await fx.tmux("display-message", "-p", "#{pid} #{socket_path}"))
        .split(" ");
      const caller = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
      await fx.tmux("split-window", "-t", "main");
      await Deno.symlink(fx.dir, `${fx.dir}/via-link`);
      for (
        const spelled of [
          `${fx.dir}/via-link/tmux.sock`,
          fx.socketPath.replace(/\/tmux\.sock$/, "//tmux.sock"),
          fx.socketPath.replace(/\/tmux\.sock$/, "/./tmux.sock"),
        ]
      ) {
        await using s = await startServer(spelled, {
          args: ["--transport", transport, "--toolsets", "inspect,execute,teardown"],
          env: { TMUX: `${socketPath},${pid},0`, TMUX_PANE: caller },
        });
        const { panes } = await s.ok("list_panes");
        assertEquals(panes.filter((p) => p.isCaller).map((p) => p.paneId), [caller], spelled);
        assertStringIncludes(await s.fails("kill_pane", { paneId: caller }), "this server");
      }
      assertStringIncludes(await fx.tmux("list-panes", "-a", "-F", "#{pane_id}"), caller);
    },
  );
}

serverTest(
  "ids with leading zeros are refused: tmux reads %01 as %1, a spelling the caller guard would miss",
  async (fx, s) => {
    const caller = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    const padded = caller.replace("%", "%0");
    for (const tool of ["kill_pane", "send_keys", "capture_pane", "get_pane_info"]) {
      const args = tool === "send_keys" ? { paneId: padded, text: "x" } : { paneId: padded };
      assertStringIncludes(await s.fails(tool, args), "no leading zeros", tool);
    }
    assertStringIncludes(await s.fails("list_panes", { windowId: "@00" }), "no leading zeros");
    assertStringIncludes(await s.fails("list_windows", { session: "$00" }), "no such session");
    assertStringIncludes(await fx.tmux("list-panes", "-a", "-F", "#{pane_id}"), caller);
  },
  {
    args: ["--toolsets", "inspect,execute,teardown"],
    env: (fx) => ({ TMUX: `${fx.socketPath},1,0`, TMUX_PANE: "%0" }),
  },
);

serverTest(
  "caller: a TMUX_PANE the driven server does not have (inherited from a closed pane) is no caller",
  async (fx, s) => {
    // An editor started from a shell in tmux keeps TMUX and TMUX_PANE after
    // that pane closed, and hands them to the servers it starts later.
    const first = await fx.tmux("display-message", "-p", "-t", "main", "#{pane_id}");
    assert(first !== "%99", "the fixture has no pane %99");
    const { panes } = await s.ok("list_panes");
    assert(panes.every((p) => !p.isCaller), "no pane is marked");
    // Reading tools default to the active pane of the first session, not to a missing pane.
    assertEquals((await s.ok("snapshot_pane", {})).pane.paneId, first);
    assertEquals((await s.ok("capture_pane", {})).paneId, first);
    assert(
      !(s.client.getInstructions() ?? "").includes("%99"),
      "the instructions name no own pane",
    );
  },
  { env: (fx) => ({ TMUX: `${fx.socketPath},1,0`, TMUX_PANE: "%99" }) },
);

serverTest(
  "caller: TMUX pointing at another socket marks nothing",
  async (_fx, s) => {
    const { panes } = await s.ok("list_panes");
    assert(panes.every((p) => !p.isCaller));
  },
  { env: () => ({ TMUX: "/tmp/some-other-socket,1,0", TMUX_PANE: "%0" }) },
);

serverTest(
  "selection: --toolsets inspect lists only inspect tools; excluded tools cannot be called",
  async (_fx, s) => {
    const { tools } = await s.client.listTools();
    const names = tools.map((t: { name: string }) => t.name);
    assert(names.includes("list_panes"));
    assert(!names.includes("capture_pane"), "excluded");
    for (const tool of tools) {
      const meta = (tool._meta as Record<string, { toolset: string; outputClasses: string[] }>)[
        "com.git-pull.libtmux-mcp/capability"
      ];
      assertEquals(meta.toolset, "inspect");
      // Inspect tools only observe: read-only, never destructive, safe to repeat;
      // the open world is the text panes show.
      assertEquals(tool.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: meta.outputClasses.includes("terminal-content"),
      }, tool.name);
      assertEquals(
        (tool.inputSchema as { additionalProperties?: boolean }).additionalProperties,
        false,
      );
    }
    const refusal = await s.fails("capture_pane", {});
    assertStringIncludes(refusal, "does not offer");
    assertStringIncludes(refusal, "toolsets on: inspect.");
  },
  { args: ["--toolsets", "inspect", "--exclude-tools", "capture_pane"] },
);

Deno.test("tools/list advertises the default of every argument that has one", async () => {
  // A client (and the model) only sees a default through the input schema's
  // `default` (docs/tools.md lists them).
  const defaults: Record<string, Record<string, unknown>> = {
    show_option: { scope: "Pane" },
    show_hooks: { scope: "Session" },
    capture_pane: { includeHistory: false, joinWrappedLines: false },
    search_panes: {
      literal: false,
      includeHistory: false,
      ignoreCase: true,
      maxMatchesPerPane: 20,
    },
    wait_for_text: { literal: false, ignoreCase: true },
    call_read_tools_batch: { onError: "stop" },
    move_window: { replaceExisting: false },
    swap_pane: { keepZoom: false },
    split_window: { direction: "Below" },
    respawn_pane: { killFirst: false },
    run_shell_command: { suppressHistory: true },
    send_keys: { enter: false },
    send_keys_batch: { onError: "stop" },
    paste_text: { bracketed: true, enter: false },
  };
  await using fx = await TmuxFixture.start();
  await using s = await startServer(fx.socketPath, {
    args: ["--toolsets", "inspect,manage,execute,teardown", "--transport", "process"],
  });
  const { tools } = await s.client.listTools();
  const wrong: string[] = [];
  for (const [name, expected] of Object.entries(defaults)) {
    const tool = tools.find((t: { name: string }) => t.name === name);
    assert(tool, `${name} is listed`);
    const properties = tool.inputSchema.properties as Record<string, { default?: unknown }>;
    for (const [argument, value] of Object.entries(expected)) {
      const advertised = properties[argument]?.default;
      if (advertised !== value) {
        wrong.push(`${name}.${argument}: ${JSON.stringify(advertised)}, not ${value}`);
      }
    }
  }
  assertEquals(wrong, []);
});

serverTest(
  "selection: with no toolset on, a refused tool says so rather than listing none",
  async (_fx, s) => {
    const refusal = await s.fails("kill_pane", { paneId: "%0" });
    assertStringIncludes(refusal, "does not offer");
    assertStringIncludes(refusal, "no toolset is on");
    assert(!refusal.includes("toolsets on:"), refusal);
  },
  { args: ["--toolsets", "", "--tools", "list_panes"], transports: ["process"] },
);

Deno.test("an error hint naming a tool the settings left out says it is not offered", async () => {
  await using fx = await TmuxFixture.empty();
  await using readonly = await startServer(fx.socketPath, { env: { LIBTMUX_SAFETY: "readonly" } });
  await using all = await startServer(fx.socketPath, { args: ["--toolsets", "inspect,execute"] });
  // No tmux server: the hint says to create a session, which only execute can.
  const refused = await readonly.fails("get_pane_info", { paneId: "%0" });
  assertStringIncludes(refused, "(create_session)");
  assertStringIncludes(
    refused,
    "Not offered by this server: create_session (toolsets on: inspect).",
  );
  const offered = await all.fails("get_pane_info", { paneId: "%0" });
  assertStringIncludes(offered, "(create_session)");
  assert(!offered.includes("Not offered"), offered);
});

serverTest(
  "selection: a teardown-only server's 'no such pane' hint says the list tools are not offered",
  async (_fx, s) => {
    const refusal = await s.fails("kill_pane", { paneId: "%999" });
    assertStringIncludes(
      refusal,
      "Not offered by this server: list_sessions, list_windows, list_panes (toolsets on: teardown).",
    );
  },
  { args: ["--toolsets", "teardown"], transports: ["process"] },
);

Deno.test("the capabilities resource describes the socket, toolsets and tools", async () => {
  await using fx = await TmuxFixture.start();
  await using s = await startServer(fx.socketPath, { args: ["--toolsets", "inspect"] });
  const read = await s.client.readResource({ uri: "tmux://capabilities" });
  const doc = JSON.parse((read.contents[0] as { text: string }).text);
  assertEquals(doc.tmux.socket, { path: fx.socketPath });
  assertEquals(doc.toolsets, ["inspect"]);
  assert(
    doc.tools.length > 0 && doc.tools.every((t: { toolset: string }) => t.toolset === "inspect"),
  );
  const instructions = s.client.getInstructions() ?? "";
  assert(new TextEncoder().encode(instructions).length <= 2048);
});
