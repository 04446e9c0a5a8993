/**
 * Live resources (docs/behaviour.md#live-resources): listing, reading, completion, subscriptions
 * to a pane's content, and list_changed for the agent's and a person's
 * changes, against a real tmux server per test.
 *
 * @module
 */

import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes, rejection, wireBytes } from "./assert.ts";
import {
  atNamedBudget,
  childProcesses,
  countingTmux,
  eventually,
  processTable,
  rawServer,
  realTmux,
  type Session,
  START_FIXTURE_SERVER,
  startServer,
  TmuxFixture,
  watchedSessions,
  whileStopped,
  withServer,
} from "./harness.ts";
import { within } from "./hardening.ts";

/** Failure bound of every wait on a notification: generous for a loaded 2-core machine. */
const BOUND_MS = 20_000;

/** One notification as the test saw it. */
interface Seen {
  kind: "updated" | "list_changed";
  uri?: string;
}

/** Records notifications and lets a test wait for the next one that matches. */
class Notifications {
  readonly seen: Seen[] = [];
  #wake: (() => void) | undefined;

  constructor(session: Session) {
    session.client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n: { params: { uri: string } }) => {
        this.#push({ kind: "updated", uri: n.params.uri });
      },
    );
    session.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      this.#push({ kind: "list_changed" });
    });
  }

  #push(seen: Seen): void {
    this.seen.push(seen);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Index to wait from: only notifications after this point count. */
  mark(): number {
    return this.seen.length;
  }

  /** Notifications matching `match` received since `from`. */
  since(from: number, match: (s: Seen) => boolean): Seen[] {
    return this.seen.slice(from).filter(match);
  }

  /** Waits for a notification matching `match` after index `from`; fails after {@link BOUND_MS}. */
  async next(from: number, match: (s: Seen) => boolean, what: string): Promise<number> {
    const deadline = performance.now() + BOUND_MS;
    while (true) {
      const index = this.seen.findIndex((s, i) => i >= from && match(s));
      if (index >= 0) return index;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(`no ${what} within ${BOUND_MS} ms: ${JSON.stringify(this.seen)}`);
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  }
}

const updatedOf = (uri: string) => (s: Seen) => s.kind === "updated" && s.uri === uri;
const listChanged = (s: Seen) => s.kind === "list_changed";

function contentUri(paneId: string): string {
  return `tmux://panes/${encodeURIComponent(paneId)}/content`;
}

async function firstPane(fixture: TmuxFixture): Promise<string> {
  return (await fixture.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n")[0];
}

/** Adds `count` windows of one pane each, in one tmux call. */
async function addWindows(fixture: TmuxFixture, count: number): Promise<void> {
  const args: string[] = [];
  for (let i = 0; i < count; i++) args.push(...(i > 0 ? [";"] : []), "new-window", "-d");
  await fixture.tmux(...args);
}

async function readText(session: Session, uri: string): Promise<string> {
  const read = await session.client.readResource({ uri });
  return (read.contents[0] as { text: string }).text;
}

/** `tmux -C` clients on `socketPath` that are children of the server process. */
async function controlClients(session: Session, socketPath: string): Promise<string[]> {
  return (await childProcesses(session.transport.pid!))
    .map((p) => p.args)
    .filter((args) => args.includes(socketPath) && / -C /.test(args));
}

/** Runs `body` with a server on a fresh fixture and a recorder of its notifications. */
function withNotifications(
  args: string[],
  body: (fx: TmuxFixture, s: Session, n: Notifications) => Promise<void>,
): Promise<void> {
  return withServer({ args }, (fx, s) => body(fx, s, new Notifications(s)));
}

Deno.test("resources: sessions and each pane's view and content are listed, templated and readable", async () => {
  await withNotifications([], async (fx, s) => {
    const pane = await firstPane(fx);
    const { resources } = await s.client.listResources();
    const uris = resources.map((r: { uri: string }) => r.uri);
    assert(uris.includes("tmux://capabilities"), "capabilities still listed");
    assert(uris.includes("tmux://sessions"), "sessions listed");
    assert(uris.includes(`tmux://panes/${encodeURIComponent(pane)}`), `view of ${pane} listed`);
    assert(uris.includes(contentUri(pane)), `content of ${pane} listed`);
    const { resourceTemplates } = await s.client.listResourceTemplates();
    assertEquals(
      resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate).sort(),
      ["tmux://panes/{paneId}", "tmux://panes/{paneId}/content"],
    );

    const sessions = JSON.parse(await readText(s, "tmux://sessions"));
    assertEquals(sessions.map((x: { name: string }) => x.name), ["main"]);

    const view = JSON.parse(await readText(s, `tmux://panes/${encodeURIComponent(pane)}`));
    assertEquals(view.paneId, pane);
    assertEquals(view.dead, false);

    await fx.runInPane(pane, "echo resource-marker-$((6*7))");
    assertStringIncludes(await readText(s, contentUri(pane)), "resource-marker-42");
    // The raw id, as a person would type it, names the same pane.
    assertStringIncludes(await readText(s, `tmux://panes/${pane}/content`), "resource-marker-42");
  });
});

Deno.test("resources: the capabilities, sessions and pane views are compact JSON", async () => {
  await withNotifications([], async (fx, s) => {
    const pane = await firstPane(fx);
    const uris = [
      "tmux://capabilities",
      "tmux://sessions",
      `tmux://panes/${encodeURIComponent(pane)}`,
    ];
    for (const uri of uris) {
      const text = await readText(s, uri);
      // Indentation is about 30% of a view: it would hit --max-bytes sooner.
      assertEquals(text, JSON.stringify(JSON.parse(text)), `${uri} has no indentation`);
    }
  });
});

Deno.test("resources: at most 100 panes are listed one by one, and the listing says so", async () => {
  await withNotifications([], async (fx, s) => {
    await addWindows(fx, 105);
    const { resources } = await s.client.listResources();
    const panes = resources.filter((r: { uri: string }) => r.uri.startsWith("tmux://panes/"));
    assertEquals(panes.length, 200, "a view and a content resource for 100 panes");
    const sessions = resources.find((r: { uri: string }) => r.uri === "tmux://sessions");
    assertStringIncludes(sessions?.description ?? "", "Only 100 of 106 panes are listed");
  });
});

Deno.test("resources: a listing over --max-bytes comes in pages that each fit it", async () => {
  await withNotifications(["--max-bytes", "4000"], async (fx, s) => {
    await addWindows(fx, 30);
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await s.client.listResources(cursor === undefined ? {} : { cursor });
      const bytes = wireBytes(page);
      assert(bytes <= 4000, `page ${pages} is ${bytes} bytes`);
      uris.push(...page.resources.map((r: { uri: string }) => r.uri));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 100);
    assert(pages > 1, "31 panes do not fit one page of 4,000 bytes");
    assertEquals(new Set(uris).size, uris.length, "no resource listed twice");
    assertEquals(uris.length, 2 + 2 * 31, "capabilities, sessions and two per pane");
    // Nonsense, the positional cursor of earlier versions, and another tool's cursor.
    const pane = await firstPane(fx);
    const { cursor: since } = await s.ok("capture_since", { paneId: pane });
    for (const foreign of ["bogus", "r2", since]) {
      const error = await rejection(() => s.client.listResources({ cursor: foreign }));
      assertStringIncludes(error, "-32602");
      assertStringIncludes(error, "not one resources/list gave");
      assertStringIncludes(error, "resources/list without a cursor");
    }
  });
});

Deno.test("resources: panes created or killed between pages neither repeat nor skip the others", async () => {
  await withNotifications(["--max-bytes", "4000"], async (fx, s) => {
    await addWindows(fx, 30);
    const before = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
    const uris: string[] = [];
    const page = async (cursor?: string) => {
      const next = await s.client.listResources(cursor === undefined ? {} : { cursor });
      uris.push(...next.resources.map((r: { uri: string }) => r.uri));
      return next.nextCursor;
    };
    let cursor = await page();
    assert(cursor !== undefined, "31 panes do not fit one page of 4,000 bytes");
    // A pane listed on the first page goes: a position would now skip one.
    const listedPane = before.find((p) => uris.includes(contentUri(p)) && p !== before[0])!;
    await fx.tmux("kill-pane", "-t", listedPane);
    cursor = await page(cursor);
    assert(cursor !== undefined, "a third page");
    // A pane appears in the first window, which tmux lists before every
    // other window's panes: a position would now repeat one.
    const added = await fx.tmux("split-window", "-d", "-t", before[0], "-P", "-F", "#{pane_id}");
    for (let pages = 2; cursor !== undefined && pages < 100; pages++) cursor = await page(cursor);
    assertEquals(new Set(uris).size, uris.length, `no resource listed twice: ${uris}`);
    for (const pane of before.filter((p) => p !== listedPane)) {
      assert(uris.includes(contentUri(pane)), `${pane}, there all along, is listed`);
    }
    // A new pane has a higher id than any listed: it comes after the page boundary.
    assert(uris.includes(contentUri(added)), `${added}, created between pages, is listed`);
  });
});

Deno.test("resources: the content resource keeps within the line budget and says what it dropped", async () => {
  await withNotifications(["--max-lines", "10"], async (fx, s) => {
    const pane = await firstPane(fx);
    await fx.runInPane(pane, "clear; for i in $(seq 1 25); do echo row$i; done");
    const text = await readText(s, contentUri(pane));
    const lines = text.split("\n");
    assertEquals(lines.length, 11, "ten lines and the note");
    assertStringIncludes(lines[0], "older lines");
    assertStringIncludes(text, "row25");
    assert(!text.includes("row1\n"), "the oldest rows were dropped");
  });
});

Deno.test("resources: the content resource fits --max-bytes with its JSON escaping counted", async () => {
  await withNotifications(["--max-bytes", "4000"], async (fx, s) => {
    const pane = await firstPane(fx);
    // About 2,900 quotes: within 4,000 bytes as text, twice that escaped in JSON.
    await fx.runInPane(pane, `clear; for i in $(seq 29); do printf '%.0s"' $(seq 99); echo; done`);
    const read = await s.client.readResource({ uri: contentUri(pane) });
    const bytes = wireBytes(read);
    assert(bytes <= 4000, `the read is ${bytes} bytes`);
    const text = (read.contents[0] as { text: string }).text;
    assertStringIncludes(text.split("\n")[0], "older lines");
    assertStringIncludes(text, '"'.repeat(99));
  });
});

Deno.test("resources: a sessions view over --max-bytes is refused with what to do", async () => {
  await withNotifications(["--max-bytes", "4000"], async (fx, s) => {
    const args: string[] = [];
    for (let i = 0; i < 40; i++) args.push(";", "new-session", "-d", "-s", `extra${i}`);
    await fx.tmux(...args.slice(1));
    const error = await rejection(() => s.client.readResource({ uri: "tmux://sessions" }));
    assertStringIncludes(error, "byte budget");
    assertStringIncludes(error, "get_session_info");
    assertStringIncludes(error, "--max-bytes");
    // The budget it names is enough for the whole view.
    await atNamedBudget(fx.socketPath, error, async (wider) => {
      const sessions = JSON.parse(await readText(wider, "tmux://sessions"));
      assertEquals(sessions.length, 41);
    });
  });
});

Deno.test("resources: a pane view over --max-bytes is refused with what to do", async () => {
  await withNotifications(["--max-bytes", "4000"], async (fx, s) => {
    const pane = await firstPane(fx);
    // A directory path of about 3,900 bytes (PATH_MAX is 4,096), so the view is over 4,000.
    const deep = `${fx.dir}/${
      Array.from({ length: 19 }, (_, i) => `${i}`.padEnd(200, "d")).join("/")
    }`;
    await fx.runInPane(pane, `mkdir -p '${deep}' && cd '${deep}'`);
    const uri = `tmux://panes/${encodeURIComponent(pane)}`;
    const error = await rejection(() => s.client.readResource({ uri }));
    assertStringIncludes(error, "byte budget");
    await atNamedBudget(fx.socketPath, error, async (wider) => {
      assertEquals(JSON.parse(await readText(wider, uri)).currentPath, deep);
    });
  });
});

Deno.test("resources: a capabilities document over --max-bytes is refused with what to do", async () => {
  await withNotifications(["--max-bytes", "4000"], async (fx, s) => {
    const error = await rejection(() => s.client.readResource({ uri: "tmux://capabilities" }));
    assertStringIncludes(error, "byte budget");
    assertStringIncludes(error, "tools/list");
    await atNamedBudget(fx.socketPath, error, async (wider, needed) => {
      const read = await wider.client.readResource({ uri: "tmux://capabilities" });
      assert(wireBytes(read) <= needed, "the read fits the budget the error named");
      assert(JSON.parse(await readText(wider, "tmux://capabilities")).tools.length > 0);
    });
  });
});

Deno.test("resources: a killed or unknown pane answers a clear error", async () => {
  await withNotifications([], async (fx, s) => {
    const extra = await fx.tmux("split-window", "-d", "-P", "-F", "#{pane_id}");
    await fx.tmux("kill-pane", "-t", extra);
    for (const uri of [contentUri(extra), `tmux://panes/${encodeURIComponent(extra)}`]) {
      const error = await rejection(() => s.client.readResource({ uri }));
      assertStringIncludes(error, "no such pane");
      assertStringIncludes(error, "resources/list");
    }
    const unknown = await rejection(() =>
      s.client.readResource({ uri: "tmux://panes/%25999999/content" })
    );
    assertStringIncludes(unknown, "no such pane");
    const subscribe = await rejection(() => s.client.subscribeResource({ uri: contentUri(extra) }));
    assertStringIncludes(subscribe, "no such pane");
    const nonsense = await rejection(() => s.client.readResource({ uri: "tmux://nothing" }));
    assertStringIncludes(nonsense, "unknown resource");
  });
});

Deno.test("resources: unsubscribing from the capabilities document, which cannot be subscribed to, is no error", async () => {
  await withNotifications([], async (_fx, s) => {
    const fixed = await rejection(() => s.client.subscribeResource({ uri: "tmux://capabilities" }));
    assertStringIncludes(fixed, "cannot be subscribed to");
    // It is listed: "unknown resource, use one from resources/list" would send the client in a circle.
    assertEquals(await s.client.unsubscribeResource({ uri: "tmux://capabilities" }), {});
    const unknown = await rejection(() => s.client.unsubscribeResource({ uri: "tmux://nothing" }));
    assertStringIncludes(unknown, "unknown resource");
  });
});

Deno.test("resources: completion of paneId offers the pane ids starting with the prefix", async () => {
  await withNotifications([], async (fx, s) => {
    for (let i = 0; i < 11; i++) await fx.tmux("split-window", "-d", "-t", "main", "-l", "1");
    const all = (await fx.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n").sort();
    const complete = async (value: string, ref = "tmux://panes/{paneId}/content") =>
      (await s.client.complete({
        ref: { type: "ref/resource", uri: ref },
        argument: { name: "paneId", value },
      })).completion.values;
    assertEquals((await complete("%")).sort(), all);
    assertEquals((await complete("")).sort(), all);
    const ones = all.filter((id) => id.startsWith("%1"));
    assert(ones.length >= 2, "%1 and %10 exist");
    assertEquals((await complete("%1")).sort(), ones);
    assertEquals((await complete("1", "tmux://panes/{paneId}")).sort(), ones);
    assertEquals(await complete("%99"), []);
    const prompt = await s.client.complete({
      ref: { type: "ref/prompt", name: "diagnose_pane" },
      argument: { name: "paneId", value: "%1" },
    });
    assertEquals(prompt.completion.values.sort(), ones);
    // Only declared arguments of offered prompts and listed templates:
    // build_workspace has no paneId argument, so no pane ids are offered.
    const undeclared = await s.client.complete({
      ref: { type: "ref/prompt", name: "build_workspace" },
      argument: { name: "paneId", value: "%1" },
    });
    assertEquals(undeclared.completion.values, []);
    for (
      const ref of [
        { type: "ref/prompt", name: "bogus" },
        { type: "ref/resource", uri: "tmux://bogus/{paneId}" },
      ]
    ) {
      const refused = await s.client.complete({ ref, argument: { name: "paneId", value: "%" } })
        .then(() => "", (error: Error) => error.message);
      assertStringIncludes(refused, "completion asked for an unknown");
    }
  });
});

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

Deno.test("resources: with no tool that reads what panes show, panes' text is not offered", async () => {
  // manage alone reads no terminal content: a model that may read resources
  // must not get around the person's choice through them.
  await withNotifications(["--toolsets", "manage"], async (fx, s) => {
    const pane = await firstPane(fx);
    await fx.runInPane(pane, "echo secret-$((6 * 7))");
    const { resources } = await s.client.listResources();
    const uris = resources.map((r: { uri: string }) => r.uri);
    assert(uris.includes(`tmux://panes/${encodeURIComponent(pane)}`), uris.join(" "));
    assert(!uris.some((uri: string) => uri.endsWith("/content")), uris.join(" "));
    const { resourceTemplates } = await s.client.listResourceTemplates();
    assertEquals(resourceTemplates.map((t: { uriTemplate: string }) => t.uriTemplate), [
      "tmux://panes/{paneId}",
    ]);
    const read = await rejection(() => s.client.readResource({ uri: contentUri(pane) }));
    assertStringIncludes(read, "not offered by this server");
    assert(!read.includes("secret-42"), read);
    const subscribe = await rejection(() => s.client.subscribeResource({ uri: contentUri(pane) }));
    assertStringIncludes(subscribe, "not offered by this server");
    // The view (metadata) stays readable.
    assertEquals(
      JSON.parse(await readText(s, `tmux://panes/${encodeURIComponent(pane)}`)).paneId,
      pane,
    );
    const instructions = s.client.getInstructions() ?? "";
    assert(!instructions.includes("/content"), instructions);
  });
});

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
