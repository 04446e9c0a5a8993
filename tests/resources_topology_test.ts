/**
 * Live topology (docs/behaviour.md#live-resources): list_changed for a
 * person's changes in any session, and updates of tmux://sessions when
 * sessions, active windows and panes or attached people change, against a
 * listener that must survive tmux's own failures.
 *
 * @module
 */

import { assert, assertEquals } from "./assert.ts";
import {
  childProcesses,
  countingTmux,
  eventually,
  type Session,
  START_FIXTURE_SERVER,
  startServer,
  TmuxFixture,
  whileStopped,
} from "./harness.ts";
import { within } from "./hardening.ts";
import {
  BOUND_MS,
  contentUri,
  controlClients,
  firstPane,
  listChanged,
  Notifications,
  readText,
  updatedOf,
  withNotifications,
} from "./resources_helpers.ts";

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): renames send no list_changed (automatic-rename follows every command); a new pane does`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      const pane = await firstPane(fx);
      await s.client.subscribeResource({ uri: "tmux://sessions" });
      await s.client.listResources();
      const from = n.mark();
      await fx.typeLine(pane, "cat");
      // tmux renames a window only after its pane printed, and the echo of
      // "cat" can come before cat runs (seen on a loaded machine: the window
      // stayed "bash"); a line cat repeats is output from cat itself.
      await fx.untilForeground(pane, "cat");
      await fx.typeLine(pane, "renamed-now");
      await eventually(
        async () =>
          (await fx.tmux("display-message", "-p", "-t", pane, "#{window_name}")) === "cat",
        "automatic-rename named the window after cat",
      );
      // Fence: the update of the sessions view comes from a check that read
      // the resource list after both renames, and a list change found there
      // is sent before the update.
      await fx.tmux("rename-session", "-t", "=main", "fence");
      await n.next(from, updatedOf("tmux://sessions"), "the sessions view updated for the rename");
      assertEquals(n.since(from, listChanged), [], "no list_changed for renames");
      const { resources } = await s.client.listResources();
      assert(
        resources.some((r: { description?: string }) => r.description?.includes("fence:0 (cat)")),
        "the listing shows the new names",
      );
      const split = n.mark();
      await fx.tmux("split-window", "-d", "-t", pane);
      await n.next(split, listChanged, "list_changed after a new pane");
    });
  });
}

Deno.test("resources (control): a person's new window, new session and kill send list_changed", async () => {
  await withNotifications([], async (fx, s, n) => {
    await s.client.listResources();
    let from = n.mark();
    const window = await fx.tmux("new-window", "-d", "-P", "-F", "#{window_id}");
    await n.next(from, listChanged, "list_changed after a person's new-window");
    assert(
      (await s.client.listResources()).resources.length > 0,
      "the list can be read again",
    );
    from = n.mark();
    // A second session the transport is not attached to: windows there are reported too.
    await fx.tmux("new-session", "-d", "-s", "other");
    await n.next(from, listChanged, "list_changed after a person's new-session");
    from = n.mark();
    await fx.tmux("new-window", "-d", "-t", "other");
    await n.next(from, listChanged, "list_changed after a new window in another session");
    from = n.mark();
    await fx.tmux("kill-window", "-t", window);
    await n.next(from, listChanged, "list_changed after a person's kill-window");
  });
});

Deno.test("resources (process): while anyone is subscribed, a person's changes send list_changed", async () => {
  await withNotifications(["--transport", "process"], async (fx, s, n) => {
    await s.client.listResources();
    await s.client.subscribeResource({ uri: "tmux://sessions" });
    let from = n.mark();
    await fx.tmux("new-window", "-d");
    await n.next(from, listChanged, "list_changed after a person's new-window");
    from = n.mark();
    await fx.tmux("new-session", "-d", "-s", "second");
    await n.next(from, listChanged, "list_changed after a person's new-session");
    await n.next(from, updatedOf("tmux://sessions"), "the sessions view updated");
    // The session the listener is attached to goes away: it moves to the one left.
    from = n.mark();
    await fx.tmux("kill-session", "-t", "main");
    await n.next(from, listChanged, "list_changed after a person's kill-session");
    from = n.mark();
    await fx.tmux("split-window", "-d", "-t", "=second:");
    await n.next(from, listChanged, "list_changed after the listener moved sessions");
    await s.client.unsubscribeResource({ uri: "tmux://sessions" });
    assertEquals(await controlClients(s, fx.socketPath), [], "no client once unsubscribed");
  });
});

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): while subscribed, a pane split or killed in another session sends list_changed`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      await fx.tmux("new-session", "-d", "-s", "other");
      const pane = await firstPane(fx);
      await s.client.listResources();
      await s.client.subscribeResource({ uri: contentUri(pane) });
      let from = n.mark();
      const split = await fx.tmux("split-window", "-d", "-t", "=other:", "-P", "-F", "#{pane_id}");
      await n.next(from, listChanged, "list_changed after a split in another session");
      const { resources } = await s.client.listResources();
      assert(
        resources.some((r: { uri: string }) => r.uri === contentUri(split)),
        "the new pane is listed",
      );
      from = n.mark();
      await fx.tmux("kill-pane", "-t", split);
      await n.next(from, listChanged, "list_changed after a kill-pane in another session");
    });
  });
}

/**
 * Resolves after `count` runs of tmux's once-a-second subscription check,
 * heard on a control client of the test's own attached to `session`: each
 * run reports (once) the subscription added after the run before it.
 */
async function subscriptionChecks(fx: TmuxFixture, session: string, count: number): Promise<void> {
  const child = new Deno.Command("tmux", {
    args: [
      "-S",
      fx.socketPath,
      "-C",
      "attach-session",
      "-r",
      "-f",
      "ignore-size,no-output",
      "-t",
      `=${session}`,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const subscribe = (n: number) =>
    writer.write(new TextEncoder().encode(`refresh-client -B check${n}::x\n`));
  try {
    await within(
      BOUND_MS,
      `${count} subscription checks`,
      (async () => {
        let buffered = "";
        // Subscribed once attached: before that, refresh-client has no client to act on.
        let attached = false;
        for (let heard = 0; heard < count;) {
          const { value, done } = await reader.read();
          if (done) {
            throw new Error("the checking control client ended: did the tmux server crash?");
          }
          buffered += value;
          for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (!attached && line.startsWith("%session-changed ")) {
              attached = true;
              await subscribe(1);
            } else if (line.startsWith(`%subscription-changed check${heard + 1} `)) {
              heard++;
              if (heard < count) await subscribe(heard + 1);
            }
          }
        }
      })(),
    );
  } finally {
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    await child.status;
  }
}

/** The pid of the server's listen-only client (read-only, no-output), if running. */
async function listenerPid(session: Session, socketPath: string): Promise<number | undefined> {
  return (await childProcesses(session.transport.pid!))
    .find((p) => p.args.includes(socketPath) && p.args.includes("read-only,no-output"))?.pid;
}

Deno.test("resources (control): the topology subscription outlives its pane, and a killed session under a stalled listener does not crash tmux", async () => {
  await withNotifications(["--transport", "control"], async (fx, s, n) => {
    await fx.tmux("new-session", "-d", "-s", "other");
    await fx.tmux("new-session", "-d", "-s", "third");
    await fx.tmux("split-window", "-d", "-t", "=main:");
    await s.client.listResources();
    await s.client.subscribeResource({ uri: "tmux://sessions" });
    // The listener binds its subscription to main's active pane; kill that pane.
    let from = n.mark();
    const active = await fx.tmux("display-message", "-p", "-t", "=main:", "#{pane_id}");
    await fx.tmux("kill-pane", "-t", active);
    await n.next(from, listChanged, "list_changed after the subscribed pane was killed");
    // Pane changes in another session reach us only through the subscription.
    from = n.mark();
    await fx.tmux("split-window", "-d", "-t", "=other:");
    await n.next(from, listChanged, "list_changed after a split in another session");

    // tmux 3.3a dereferences a leaving client's NULL session in its
    // once-a-second check of session-bound subscriptions. Hold the listener
    // (SIGSTOP) so it cannot leave, kill its session, let that check run.
    const pid = await listenerPid(s, fx.socketPath);
    assert(pid !== undefined, "a listen-only client runs while subscribed");
    const server = await fx.tmux("display-message", "-p", "#{pid}");
    from = n.mark();
    await whileStopped(pid, async () => {
      await fx.tmux("kill-session", "-t", "=main");
      // The check runs on a one-second timer of each control client: three
      // checks of a client of our own span two seconds, so the listener's
      // check has run at least once after the kill.
      await subscriptionChecks(fx, "other", 3);
      assertEquals(await fx.tmux("display-message", "-p", "#{pid}"), server, "tmux survived");
    });
    // The listener reattached to "other"; "third" is heard only through its new subscription.
    await n.next(from, listChanged, "list_changed for the killed session");
    from = n.mark();
    await fx.tmux("split-window", "-d", "-t", "=third:");
    await n.next(from, listChanged, "list_changed from a session the new listener is not in");
  });
});

/**
 * A `tmux -C` client of the test's own (a person's, for the server) attached
 * to `session`, with `flags` for attach-session (`-f ignore-size`: a terminal
 * that resizes no window, so no layout change announces it).
 */
async function personAttached(
  fx: TmuxFixture,
  session: string,
  flags: string[] = [],
): Promise<Deno.ChildProcess> {
  const person = new Deno.Command("tmux", {
    args: ["-S", fx.socketPath, "-C", "attach-session", ...flags, "-t", session],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await eventually(
    async () =>
      (await fx.tmux("list-clients", "-F", "#{client_pid}")).split("\n")
        .includes(String(person.pid)),
    "the person's client attached",
  );
  return person;
}

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): attached counts people, not the server's own clients, and subscribing alone sends no update`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      await s.client.listResources();
      const from = n.mark();
      await subscribeSessions(fx, s);
      // tmux counts our clients: the listener, and the transport's own in control mode.
      assertEquals(
        await fx.tmux("list-sessions", "-F", "#{session_attached}"),
        transport === "control" ? "2" : "1",
      );
      const attached = async () => ({
        resource: JSON.parse(await readText(s, "tmux://sessions"))
          .map((x: { attached: number }) => x.attached),
        tool: (await s.ok("list_sessions")).sessions
          .map((x) => x.attached),
      });
      assertEquals(await attached(), { resource: [0], tool: [0] });
      // Fence: two splits, each a list change. The second one's check starts
      // after the first one's has ended, and both read the sessions after the
      // listener attached: an update its attach caused would come before.
      let fence = n.mark();
      await fx.tmux("split-window", "-d", "-t", "=main:");
      await n.next(fence, listChanged, "list_changed after a split");
      fence = n.mark();
      await fx.tmux("split-window", "-d", "-t", "=main:");
      await n.next(fence, listChanged, "list_changed after a second split");
      assertEquals(n.since(from, updatedOf("tmux://sessions")), [], "no update from subscribing");

      const person = await personAttached(fx, "main");
      try {
        assertEquals(await attached(), { resource: [1], tool: [1] }, "a person is counted");
      } finally {
        await person.stdin.close();
        await person.status;
      }
    });
  });
}

/** The server's listen-only clients (read-only, no-output) on `socketPath`. */
async function listenerClients(session: Session, socketPath: string): Promise<number[]> {
  return (await childProcesses(session.transport.pid!))
    .filter((p) => p.args.includes(socketPath) && p.args.includes("read-only,no-output"))
    .map((p) => p.pid);
}

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): tmux://sessions hears new sessions after the last one was killed and after tmux restarted`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      const uri = "tmux://sessions";
      // Kept alive without sessions, as the server's own tmux server is.
      await fx.tmux("set-option", "-s", "exit-empty", "off");
      await s.client.subscribeResource({ uri });
      const names = async () =>
        JSON.parse(await readText(s, uri)).map((x: { name: string }) => x.name);

      let from = n.mark();
      await fx.tmux("kill-session", "-t", "=main");
      await n.next(from, updatedOf(uri), "update after the last session was killed");
      assertEquals(await names(), []);
      from = n.mark();
      await fx.tmux("new-session", "-d", "-s", "again");
      await n.next(from, updatedOf(uri), "update for a session created after all were killed");
      assertEquals(await names(), ["again"]);

      from = n.mark();
      await fx.tmux("kill-server");
      await n.next(from, updatedOf(uri), "update after the tmux server exited");
      from = n.mark();
      await fx.tmux(...START_FIXTURE_SERVER, ";", "new-session", "-d", "-s", "reborn");
      await n.next(from, updatedOf(uri), "update for a session of the restarted server");
      assertEquals(await names(), ["reborn"]);

      // One listener, and none once nobody is subscribed: no attempt left a client behind.
      await eventually(
        async () => (await listenerClients(s, fx.socketPath)).length === 1,
        "exactly one listener",
      );
      await s.client.unsubscribeResource({ uri });
      assertEquals(await listenerClients(s, fx.socketPath), [], "no listener once unsubscribed");
    });
  });
}

/** Subscribes to tmux://sessions and waits until the listener for a person's changes has attached. */
async function subscribeSessions(fx: TmuxFixture, s: Session): Promise<void> {
  await s.client.subscribeResource({ uri: "tmux://sessions" });
  await eventually(async () => {
    const pid = await listenerPid(s, fx.socketPath);
    return pid !== undefined &&
      (await fx.tmux("list-clients", "-F", "#{client_pid}")).split("\n").includes(String(pid));
  }, "the listener attached");
}

/** The sessions view as tmux://sessions reads now, by session name. */
async function sessionsView(
  s: Session,
): Promise<Map<string, { activeWindowId: string; activePaneId: string; attached: number }>> {
  const views = JSON.parse(await readText(s, "tmux://sessions"));
  return new Map(views.map((v: { name: string }) => [v.name, v]));
}

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): a session's active window or pane changing, in any session, sends a sessions update`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      const uri = "tmux://sessions";
      await fx.tmux("new-session", "-d", "-s", "other");
      // Each session: a second window, and a second pane in the first window.
      const ids: Record<string, { window0: string; window1: string; pane01: string }> = {};
      for (const name of ["main", "other"]) {
        const window1 = await fx.tmux(
          "new-window",
          "-d",
          "-t",
          `=${name}:`,
          "-P",
          "-F",
          "#{window_id}",
        );
        const pane01 = await fx.tmux(
          "split-window",
          "-d",
          "-t",
          `=${name}:0`,
          "-P",
          "-F",
          "#{pane_id}",
        );
        const window0 = await fx.tmux("display-message", "-p", "-t", `=${name}:0`, "#{window_id}");
        ids[name] = { window0, window1, pane01 };
      }
      await subscribeSessions(fx, s);
      // "other" is the session neither the listener nor the transport's client is attached to.
      for (const name of ["main", "other"]) {
        let from = n.mark();
        await fx.tmux("select-window", "-t", ids[name].window1);
        await n.next(from, updatedOf(uri), `update after select-window in ${name}`);
        assertEquals((await sessionsView(s)).get(name)?.activeWindowId, ids[name].window1);
        from = n.mark();
        await fx.tmux("select-window", "-t", ids[name].window0);
        await n.next(from, updatedOf(uri), `update after selecting ${name}'s first window again`);
        from = n.mark();
        await fx.tmux("select-pane", "-t", ids[name].pane01);
        await n.next(from, updatedOf(uri), `update after select-pane in ${name}`);
        const view = (await sessionsView(s)).get(name);
        assertEquals([view?.activeWindowId, view?.activePaneId], [
          ids[name].window0,
          ids[name].pane01,
        ]);
      }
    });
  });
}

for (const transport of ["control", "process"]) {
  Deno.test(`resources (${transport}): a person attaching to or detaching from a session sends a sessions update`, async () => {
    await withNotifications(["--transport", transport], async (fx, s, n) => {
      const uri = "tmux://sessions";
      // The control transport's client hears this new session: its check
      // is over before subscribing, or it could read the person attached.
      await s.client.listResources();
      let from = n.mark();
      await fx.tmux("new-session", "-d", "-s", "other");
      if (transport === "control") {
        await n.next(from, listChanged, "list_changed after the new session");
      }
      await subscribeSessions(fx, s);
      // Twice: the listener's first topology report makes one check at a
      // time of its own, which may read one of these changes by chance.
      for (let round = 0; round < 2; round++) {
        from = n.mark();
        const person = await personAttached(fx, "other", ["-f", "ignore-size"]);
        try {
          await n.next(from, updatedOf(uri), `update after a person attached (${round})`);
          assertEquals((await sessionsView(s)).get("other")?.attached, 1);
        } finally {
          from = n.mark();
          await person.stdin.close();
          await person.status;
        }
        await n.next(from, updatedOf(uri), `update after the person detached (${round})`);
        assertEquals((await sessionsView(s)).get("other")?.attached, 0);
      }
    });
  });
}

Deno.test("resources (process): the server's own watch clients coming and going cost no check of the sessions view", async () => {
  await using fx = await TmuxFixture.start();
  const counter = await countingTmux(fx.dir);
  await using s = await startServer(fx.socketPath, {
    args: ["--transport", "process", "--tmux", counter.binary],
    denoFlags: [`--allow-run=${counter.binary}`],
  });
  const n = new Notifications(s);
  const uri = "tmux://sessions";
  const pane = await firstPane(fx);
  await subscribeSessions(fx, s);
  // The listener's format subscription reports once at first, which is a
  // topology check: a listing (list-sessions with list-windows), then the
  // sessions view alone. Counting starts after it.
  const sessionsReads = async () =>
    (await counter.started()).filter((line) => / list-sessions /.test(` ${line} `));
  await eventually(async () => {
    const reads = await sessionsReads();
    const listing = reads.findIndex((line) => / list-windows /.test(line));
    return listing >= 0 && reads.slice(listing + 1).some((line) => !/ list-windows /.test(line));
  }, "the check after the listener's first topology report");
  const from = n.mark();
  await counter.reset();
  // Each wait attaches a watch client and lasts its full second, so
  // without the filter a check would run for each client's coming and going.
  for (let i = 0; i < 2; i++) {
    const wait = await s.ok("wait_for_text", {
      paneId: pane,
      patterns: ["never-printed-here"],
      timeoutSeconds: 1,
    });
    assertEquals(wait.outcome, "timeout");
  }
  await eventually(
    async () => (await fx.tmux("list-clients", "-F", "#{client_pid}")).split("\n").length === 1,
    "only the listener is attached",
  );
  // Fence: a person attaching must be heard, and checked, after the watch clients left.
  const person = await personAttached(fx, "main", ["-f", "ignore-size"]);
  try {
    await n.next(from, updatedOf(uri), "update after a person attached");
    // Read before the person leaves, whose own check would count too.
    const checks = await sessionsReads();
    assertEquals(checks.length, 1, `sessions reads: ${checks.join(" | ")}`);
    assertEquals(n.since(from, updatedOf(uri)).length, 1, "one update, the person's");
  } finally {
    await person.stdin.close();
    await person.status;
  }
});
