/**
 * Reading live resources (docs/behaviour.md#live-resources): listing, its
 * pages and templates, reading the capabilities, sessions and pane views and
 * a pane's content within the budgets, errors for what cannot be read,
 * completion of pane ids, and what a toolset without content hides.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes, rejection, wireBytes } from "./assert.ts";
import { atNamedBudget, TmuxFixture } from "./harness.ts";
import { contentUri, firstPane, readText, withNotifications } from "./resources_helpers.ts";

/** Adds `count` windows of one pane each, in one tmux call. */
async function addWindows(fixture: TmuxFixture, count: number): Promise<void> {
  const args: string[] = [];
  for (let i = 0; i < count; i++) args.push(...(i > 0 ? [";"] : []), "new-window", "-d");
  await fixture.tmux(...args);
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
