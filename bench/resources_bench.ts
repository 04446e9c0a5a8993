/**
 * How fast live resources notice things, through the real server over stdio
 * (`deno task start`'s command line), for each command transport:
 *
 * - update latency: from a line printed in a subscribed pane (bash's
 *   `$EPOCHREALTIME` as it prints) to `notifications/resources/updated`
 *   reaching the client. Trials are spaced beyond the 500 ms update spacing,
 *   so the figure is the detection path, not the coalescing.
 * - list_changed latency: from a person's `tmux new-window` returning to
 *   `notifications/resources/list_changed` (200 ms of it is the coalescing
 *   delay), while a subscription is live and while none is.
 *
 * Run: deno run -A bench/resources_bench.ts
 *
 * @module
 */

import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type Session, startServer, TmuxFixture } from "../tests/harness.ts";
import { quantile } from "./stats.ts";

const TRIALS = 20;
const BOUND_MS = 10_000;

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(1);
  return `median ${f(quantile(sorted, 0.5))} ms, p90 ${f(quantile(sorted, 0.9))} ms, max ${
    f(sorted[sorted.length - 1])
  } ms (n=${sorted.length})`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Who waits for each notification kind, handed its arrival time. */
type Waiters = Map<string, (at: number) => void>;

/** Resolves with the wall-clock time (ms) of the next notification `kind`. */
function nextNotification(waiters: Waiters, kind: string) {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${kind} within ${BOUND_MS} ms`)), BOUND_MS);
    waiters.set(kind, (at) => {
      clearTimeout(timer);
      resolve(at);
    });
  });
}

const now = () => performance.timeOrigin + performance.now();

/** Hands each resource notification's arrival time to whoever waits for its kind. */
function listen(session: Session): Waiters {
  const waiters: Waiters = new Map();
  const deliver = (kind: string) => {
    const at = now();
    const waiter = waiters.get(kind);
    waiters.delete(kind);
    waiter?.(at);
  };
  session.client.setNotificationHandler(
    ResourceUpdatedNotificationSchema,
    () => deliver("updated"),
  );
  session.client.setNotificationHandler(
    ResourceListChangedNotificationSchema,
    () => deliver("list_changed"),
  );
  return waiters;
}

/** Latencies (ms) from `count` `new-window`s, run as a person would, to their list_changed. */
async function listChangedLatencies(
  fixture: TmuxFixture,
  session: Session,
  waiters: Waiters,
  count: number,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const seen = nextNotification(waiters, "list_changed");
    const began = now();
    await fixture.tmux("new-window", "-d");
    latencies.push((await seen) - began);
    await session.client.listResources();
  }
  return latencies;
}

/** Latencies (ms) from the pane printing a `T <time>` line to the subscribed `uri`'s update. */
async function updateLatencies(
  fixture: TmuxFixture,
  session: Session,
  waiters: Waiters,
  uri: string,
): Promise<number[]> {
  const updates: number[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    await sleep(600);
    const seen = nextNotification(waiters, "updated");
    await fixture.tmux("wait-for", "-S", "go");
    const at = await seen;
    const screen = await session.client.readResource({ uri });
    const text = (screen.contents[0] as { text: string }).text;
    const stamps = [...text.matchAll(/^T (\d+\.\d+)$/gm)];
    const printed = Number(stamps[stamps.length - 1][1]) * 1000;
    updates.push(at - printed);
  }
  return updates;
}

/** Prints one transport's three figures. */
function report(transport: string, updates: number[], idleList: number[], liveList: number[]) {
  console.log(`${transport}: update after printing: ${summary(updates)}`);
  console.log(
    `${transport}: list_changed after a person's new-window, nobody subscribed: ${
      idleList.length > 0 ? summary(idleList) : "not heard (no client runs)"
    }`,
  );
  console.log(
    `${transport}: list_changed after a person's new-window, while subscribed: ${
      summary(liveList)
    }`,
  );
}

async function run(transport: "control" | "process") {
  const fixture = await TmuxFixture.start({ width: 100, height: 30 });
  const session = await startServer(fixture.socketPath, { args: ["--transport", transport] });
  const waiters = listen(session);
  try {
    const pane = await fixture.shellPane();
    await fixture.typeLine(
      pane,
      `while tmux -S '${fixture.socketPath}' wait-for go; do printf 'T %s\\n' "$EPOCHREALTIME"; done`,
    );

    await session.client.listResources();
    // With the process transport nobody listens while nothing is subscribed.
    const idle = transport === "control" ? 5 : 0;
    const idleList = await listChangedLatencies(fixture, session, waiters, idle);

    const uri = `tmux://panes/${encodeURIComponent(pane)}/content`;
    await session.client.subscribeResource({ uri });
    const updates = await updateLatencies(fixture, session, waiters, uri);
    const liveList = await listChangedLatencies(fixture, session, waiters, 5);
    await session.client.unsubscribeResource({ uri });

    report(transport, updates, idleList, liveList);
  } finally {
    await session.close();
    await fixture.close();
  }
}

for (const transport of ["control", "process"] as const) {
  try {
    await run(transport);
  } catch (error) {
    console.log(`${transport}: ${error instanceof Error ? error.message : error}`);
  }
}
