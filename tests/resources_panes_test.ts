/**
 * Subscriptions to a pane (docs/behaviour.md#live-resources): updates when a
 * pane prints, changes focus, zoom or mode, is killed, dies or moves to
 * another session; list_changed for the agent's own changes; the clients a
 * subscription costs, when it answers, and a clean exit on stdin EOF.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes, rejection } from "./assert.ts";
import {
  eventually,
  processTable,
  rawServer,
  realTmux,
  startServer,
  TmuxFixture,
  watchedSessions,
} from "./harness.ts";
import {
  BOUND_MS,
  contentUri,
  controlClients,
  firstPane,
  listChanged,
  readText,
  updatedOf,
  withNotifications,
} from "./resources_helpers.ts";

for (const transport of ["control", "process"]) {
  const args = ["--transport", transport];

  Deno.test(`resources (${transport}): a subscribed pane's printing sends updated; unsubscribe stops it`, async () => {
    await withNotifications(args, async (fx, s, n) => {
      const pane = await firstPane(fx);
      const other = await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}");
      const uri = contentUri(pane);
      await s.client.subscribeResource({ uri });
      let from = n.mark();
      await fx.runInPane(pane, "echo first-print");
      await n.next(from, updatedOf(uri), "update after printing");
      assertStringIncludes(await readText(s, uri), "first-print");

      await s.client.unsubscribeResource({ uri });
      from = n.mark();
      await fx.runInPane(pane, "echo after-unsubscribe");
      // Synchronise on later events instead of sleeping: an update of the other
      // pane (same mechanism, started after the print), then a list change.
      const otherUri = contentUri(other);
      await s.client.subscribeResource({ uri: otherUri });
      const otherFrom = n.mark();
      await fx.runInPane(other, "echo other-print");
      await n.next(otherFrom, updatedOf(otherUri), "update of the other pane");
      await s.ok("create_window", { session: "main" });
      await n.next(otherFrom, listChanged, "list_changed after create_window");
      assertEquals(n.since(from, updatedOf(uri)), [], "no update after unsubscribing");
    });
  });

  Deno.test(`resources (${transport}): a subscribed pane's view is updated when focus moves, the window zooms or the pane enters a mode`, async () => {
    await withNotifications(args, async (fx, s, n) => {
      const pane = await firstPane(fx);
      const other = await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}");
      const uri = `tmux://panes/${encodeURIComponent(pane)}`;
      await s.client.subscribeResource({ uri });
      for (const [focus, active] of [[other, false], [pane, true]] as const) {
        const from = n.mark();
        await fx.tmux("select-pane", "-t", focus);
        await n.next(from, updatedOf(uri), `update after selecting ${focus}`);
        assertEquals(JSON.parse(await readText(s, uri)).active, active);
      }
      // Zoom and modes print nothing either (docs/behaviour.md: resized, zoomed, a mode).
      let from = n.mark();
      await fx.tmux("resize-pane", "-Z", "-t", pane);
      await n.next(from, updatedOf(uri), "update after zooming");
      assertEquals(JSON.parse(await readText(s, uri)).zoomed, true);
      from = n.mark();
      await fx.tmux("copy-mode", "-t", pane);
      await n.next(from, updatedOf(uri), "update after entering copy mode");
      assertEquals(JSON.parse(await readText(s, uri)).inMode, true);
    });
  });

  Deno.test(`resources (${transport}): 100 lines printed quickly give a handful of updates`, async () => {
    await withNotifications(args, async (fx, s, n) => {
      const pane = await firstPane(fx);
      const uri = contentUri(pane);
      await s.client.subscribeResource({ uri });
      const from = n.mark();
      const started = performance.now();
      // A pause between lines makes the burst last a few seconds: without
      // spacing, nearly every line would give its own update.
      await fx.runInPane(
        pane,
        "for i in $(seq 1 100); do echo burst-line-$i; sleep 0.02; done",
      );
      // Updates until the content shows the last line: each one is a reason to read.
      let seen = from;
      while (true) {
        seen = await n.next(seen, updatedOf(uri), "update during the burst") + 1;
        if ((await readText(s, uri)).includes("burst-line-100")) break;
      }
      const elapsed = performance.now() - started;
      const count = n.since(from, updatedOf(uri)).length;
      // Updates are at least 500 ms apart, so their number follows the time taken.
      const most = Math.floor(elapsed / 500) + 2;
      assert(count >= 1 && count <= most, `at most ${most} updates in ${elapsed} ms, got ${count}`);
      assert(count < 25, `a handful of updates, not one per line: ${count}`);
    });
  });

  Deno.test(`resources (${transport}): a killed pane sends a final update and its subscription ends`, async () => {
    await withNotifications(args, async (fx, s, n) => {
      const extra = await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}");
      const uri = contentUri(extra);
      await s.client.subscribeResource({ uri });
      const from = n.mark();
      await fx.tmux("kill-pane", "-t", extra);
      await n.next(from, updatedOf(uri), "final update of a killed pane");
      const error = await rejection(() => s.client.readResource({ uri }));
      assertStringIncludes(error, "no such pane");
      // The subscription ended with the pane: its watching client is gone.
      const deadline = performance.now() + BOUND_MS;
      let clients = await controlClients(s, fx.socketPath);
      while (clients.length > (transport === "control" ? 1 : 0)) {
        assert(performance.now() < deadline, `watch clients left: ${clients.join("; ")}`);
        await fx.tmux("list-sessions");
        clients = await controlClients(s, fx.socketPath);
      }
    });
  });

  Deno.test(`resources (${transport}): a pane whose program exits (remain-on-exit) sends a final update`, async () => {
    await withNotifications(args, async (fx, s, n) => {
      const extra = await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}");
      await fx.tmux("set-option", "-p", "-t", extra, "remain-on-exit", "on");
      const uri = contentUri(extra);
      await s.client.subscribeResource({ uri });
      const from = n.mark();
      await fx.tmux("send-keys", "-t", extra, "exit", "Enter");
      await n.next(from, updatedOf(uri), "final update of a dead pane");
      const view = JSON.parse(await readText(s, `tmux://panes/${encodeURIComponent(extra)}`));
      assertEquals(view.dead, true, "the pane stays, dead");
      // The subscription ended: subscribing again is refused with the reason.
      const again = await rejection(() => s.client.subscribeResource({ uri }));
      assertStringIncludes(again, "pane is dead");
    });
  });

  Deno.test(`resources (${transport}): the agent's own changes send list_changed, coalesced`, async () => {
    await withNotifications(args, async (_fx, s, n) => {
      await s.client.listResources();
      const from = n.mark();
      const { pane } = await s.ok("create_window", {
        session: "main",
      });
      await s.ok("split_window", { paneId: pane.paneId });
      await s.ok("rename_window", { windowId: "@0", newName: "renamed" });
      await n.next(from, listChanged, "list_changed after create_window");
      const { resources } = await s.client.listResources();
      assert(
        resources.some((r: { description?: string }) => r.description?.includes("(renamed)")),
        "the listing shows the new name",
      );
      const count = n.since(from, listChanged).length;
      assert(count >= 1 && count <= 3, `three quick changes coalesce, got ${count}`);
    });
  });
}

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): no live work while nobody is subscribed`, async () => {
    await withNotifications(["--transport", transport], async (fx, s) => {
      const pane = await firstPane(fx);
      await s.ok("list_sessions");
      const idle = await controlClients(s, fx.socketPath);
      // Control: at most the transport's own client; process: none at all.
      assert(idle.length <= (transport === "control" ? 1 : 0), `idle clients: ${idle.join("; ")}`);
      const uri = contentUri(pane);
      // Two requests at once for one URI make one subscription, ended by one unsubscribe.
      await Promise.all([s.client.subscribeResource({ uri }), s.client.subscribeResource({ uri })]);
      const watching = await controlClients(s, fx.socketPath);
      // The pane's output watch and the listener for a person's changes.
      assertEquals(
        watching.length,
        idle.length + 2,
        `clients while subscribed: ${watching.join("; ")}`,
      );
      await s.client.unsubscribeResource({ uri });
      assertEquals(
        await controlClients(s, fx.socketPath),
        idle,
        "back to idle after unsubscribing",
      );
    });
  });
}

Deno.test("resources: stdin EOF exits 0 promptly with a live subscription and leaves no client", async () => {
  await using fx = await TmuxFixture.start();
  const pane = await firstPane(fx);
  const server = rawServer(["-S", fx.socketPath], { stderr: "null" });
  await server.initialize();
  await server.send({ id: 2, method: "resources/subscribe", params: { uri: contentUri(pane) } });
  assertEquals((await server.answer(2)).result, {});
  const started = performance.now();
  await server.hangUp();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const status = await Promise.race([
    server.child.status,
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), BOUND_MS))),
  ]);
  clearTimeout(timer);
  assert(status !== null, "the server exited on stdin EOF");
  assertEquals(status.code, 0);
  const elapsed = performance.now() - started;
  assert(elapsed < 10_000, `exit took ${elapsed} ms`);
  const left = (await processTable()).map((p) => p.args)
    .filter((args) => args.includes(fx.socketPath) && / -C /.test(args));
  assertEquals(left, [], "no control client left behind");
});

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): a subscribed pane moved to another session is watched there`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      const pane = await firstPane(fx);
      await fx.tmux("new-session", "-d", "-s", "other");
      // main keeps a pane, so its session (and the watch on it) outlives the move.
      await fx.tmux("split-window", "-d", "-t", pane);
      const uri = contentUri(pane);
      await s.client.subscribeResource({ uri });
      assertEquals(await watchedSessions(fx, s), ["main"]);

      await fx.tmux("join-pane", "-d", "-s", pane, "-t", "=other:");
      await eventually(
        async () => JSON.stringify(await watchedSessions(fx, s)) === '["other"]',
        "the pane's watch moved to other",
      );
      let from = n.mark();
      await fx.runInPane(pane, "echo printed-in-other");
      await n.next(from, updatedOf(uri), "update for output in the new session");
      assertStringIncludes(await readText(s, uri), "printed-in-other");

      // The window goes, with the session it leaves empty: the watch follows it again.
      const window = await fx.tmux("display-message", "-p", "-t", pane, "#{window_id}");
      await fx.tmux("move-window", "-s", window, "-t", "=main:");
      await eventually(
        async () => JSON.stringify(await watchedSessions(fx, s)) === '["main"]',
        "the pane's watch moved back to main",
      );
      from = n.mark();
      await fx.runInPane(pane, "echo printed-in-main");
      await n.next(from, updatedOf(uri), "update for output after move-window");
      await s.client.unsubscribeResource({ uri });
      assertEquals(await watchedSessions(fx, s), [], "no watch left");
    });
  });
}

Deno.test("resources: a subscription answers only once its listening client has attached", async () => {
  // tmux 3.3a crashes when a command notifies a control client it has only
  // half attached, and a client's next step after subscribing may be such a
  // command (select-pane). A wrapper slows every control client's start, so a
  // subscribe that answered before the attach would answer with none there.
  await using fx = await TmuxFixture.start();
  const slow = `${fx.dir}/tmux-slow-control`;
  await Deno.writeTextFile(
    slow,
    `#!/bin/sh\ncase " $* " in *" -C "*) sleep 1 ;; esac\nexec '${await realTmux()}' "$@"\n`,
  );
  await Deno.chmod(slow, 0o755);
  await using s = await startServer(fx.socketPath, {
    args: ["--transport", "process", "--tmux", slow],
    denoFlags: [`--allow-run=${slow}`],
  });
  await s.client.subscribeResource({ uri: "tmux://sessions" });
  const clients = await fx.tmux("list-clients", "-F", "#{client_control_mode}:#{client_session}");
  assertEquals(clients, "1:main", "the listener is attached when subscribe answers");
});
