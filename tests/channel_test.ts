/**
 * wait_for_channel and signal_channel against real tmux, through the MCP
 * server. Each test owns a tmux server on a private socket.
 *
 * @module
 */

import type { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { childProcesses, type Session, withServer } from "./harness.ts";
import { MAX_WAITS } from "../tmux/wait_for.ts";
import type { waitForChannelTool } from "../tools/wait_for_channel.ts";

type ChannelResult = z.infer<typeof waitForChannelTool.output>;

/** Failure bound of the polls below; never a synchronisation device. */
const BOUND_MS = 20_000;

/** Child processes of the server whose arguments include `word` (ps reads /proc for us). */
async function childrenWith(serverPid: number, word: string): Promise<number[]> {
  return (await childProcesses(serverPid))
    .filter((p) => p.args.split(/\s+/).includes(word))
    .map((p) => p.pid);
}

/** Resolves once the server runs a `tmux wait-for` child (the wait is in place). */
async function waiterRunning(session: Session): Promise<void> {
  const began = performance.now();
  while (performance.now() - began < BOUND_MS) {
    if ((await childrenWith(session.transport.pid!, "wait-for")).length > 0) return;
    // Each round trip of this harmless call gives the server time to start the waiter.
    await session.ok("list_sessions");
  }
  throw new Error("the server never started a tmux wait-for");
}

Deno.test("wait_for_channel: a signal ends the wait; signal_channel reports the channel", async () => {
  await withServer({}, async (fixture, session) => {
    const waiting = session.ok<ChannelResult>("wait_for_channel", {
      channel: "build.done:1",
      timeoutSeconds: 20,
    });
    await waiterRunning(session);
    assertEquals(await session.ok("signal_channel", { channel: "build.done:1" }), {
      channel: "build.done:1",
    });
    const r = await waiting;
    assertEquals(r.signalled, true);
    assertEquals(r.timedOut, false);
    assertEquals(r.channel, "build.done:1");
    assertEquals(r.effectiveTimeoutSeconds, 20);
    // A signal from a script in a pane works the same way, and tmux keeps a
    // signal sent before anyone waits.
    await fixture.tmux("wait-for", "-S", "early");
    const early = await session.ok<ChannelResult>("wait_for_channel", {
      channel: "early",
      timeoutSeconds: 20,
    });
    assertEquals(early.signalled, true);
    assertEquals((await childrenWith(session.transport.pid!, "wait-for")).length, 0);
  });
});

Deno.test("wait_for_channel: times out with the effective (clamped) timeout", async () => {
  await withServer({ args: ["--wait-max-seconds", "1"] }, async (_fixture, session) => {
    const r = await session.ok<ChannelResult>("wait_for_channel", {
      channel: "never",
      // Above any schema bound a tool might have had (a day): clamped, never refused.
      timeoutSeconds: 86_401,
    });
    assertEquals(r.signalled, false);
    assertEquals(r.timedOut, true);
    assertEquals(r.effectiveTimeoutSeconds, 1);
    assert(r.elapsedSeconds >= 1, `waited: ${r.elapsedSeconds}`);
    assertEquals((await childrenWith(session.transport.pid!, "wait-for")).length, 0);
  });
});

Deno.test("wait_for_channel: a tmux server killed during the wait is an error", async () => {
  await withServer({}, async (fixture, session) => {
    const waiting = session.call("wait_for_channel", { channel: "doomed", timeoutSeconds: 20 });
    await waiterRunning(session);
    await fixture.tmux("kill-server");
    const result = await waiting;
    assertEquals(result.isError, true);
    assertEquals(result.structuredContent, undefined);
    const text = (result.content[0] as { text: string }).text;
    assertStringIncludes(text, "wait_for_channel failed:");
    assert(!/signalled/.test(text), text);
  });
});

Deno.test("wait_for_channel: cancelling kills and reaps the tmux wait-for", async () => {
  await withServer({}, async (_fixture, session) => {
    const abort = new AbortController();
    const waiting = session.client.callTool(
      { name: "wait_for_channel", arguments: { channel: "cancel-me", timeoutSeconds: 20 } },
      undefined,
      { signal: abort.signal },
    );
    await waiterRunning(session);
    abort.abort();
    let rejected = false;
    await waiting.catch(() => (rejected = true));
    assert(rejected, "the call is cancelled");
    const began = performance.now();
    while (
      (await childrenWith(session.transport.pid!, "wait-for")).length > 0 &&
      performance.now() - began < BOUND_MS
    ) {
      await session.ok("list_sessions");
    }
    assertEquals(await childrenWith(session.transport.pid!, "wait-for"), [], "no wait-for left");
  });
});

Deno.test("wait_for_channel: waits beyond the cap are refused, and served again once one ends", async () => {
  await withServer({}, async (fixture, session) => {
    const pid = session.transport.pid!;
    // Each wait is a tmux process: without a cap, 300 calls made 301 of them.
    const waiting = Array.from(
      { length: MAX_WAITS },
      () => session.ok<ChannelResult>("wait_for_channel", { channel: "many", timeoutSeconds: 30 }),
    );
    // Should the test fail early, closing the server rejects these: not as uncaught errors.
    for (const wait of waiting) wait.catch(() => {});
    const began = performance.now();
    while ((await childrenWith(pid, "wait-for")).length < MAX_WAITS) {
      assert(performance.now() - began < BOUND_MS, "the waits never all started");
      await session.ok("list_sessions");
    }
    const refused = await session.fails("wait_for_channel", { channel: "more", timeoutSeconds: 1 });
    assertStringIncludes(refused, `${MAX_WAITS} waits`);
    assertStringIncludes(refused, "Call again once one has ended");
    assertEquals((await childrenWith(pid, "wait-for")).length, MAX_WAITS, "no process for it");
    // One signal wakes every waiter of the channel.
    await fixture.tmux("wait-for", "-S", "many");
    const ended = await Promise.all(waiting);
    assert(ended.every((r) => r.signalled), JSON.stringify(ended));
    await fixture.tmux("wait-for", "-S", "more");
    const again = await session.ok<ChannelResult>("wait_for_channel", {
      channel: "more",
      timeoutSeconds: 20,
    });
    assertEquals(again.signalled, true);
  });
});

Deno.test("channels: invalid names are refused without echoing them", async () => {
  await withServer({}, async (_fixture, session) => {
    for (const channel of ["", "has space", "semi;colon", "x".repeat(129), "#{pane_id}"]) {
      const text = await session.fails("signal_channel", { channel });
      assertStringIncludes(text, "signal_channel failed:");
      if (channel.length > 1) assert(!text.includes(channel), `echoed: ${text}`);
      await session.fails("wait_for_channel", { channel, timeoutSeconds: 1 });
    }
  });
});
