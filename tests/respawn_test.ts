/**
 * respawn_pane on a pane that floods output while a control client of ours
 * receives it (a wait_for_text, a content subscription): tmux before 3.8
 * keeps the pane's old output offsets on respawn, and a client lagging behind
 * them made tmux 3.3a and 3.5a segfault at the first or second round. The
 * server pauses that pane's output to its clients around the respawn.
 *
 * @module
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals } from "./assert.ts";
import { ALL_TOOLSETS, eventually, type Session, withServer } from "./harness.ts";
import type { TmuxFixture } from "./harness.ts";
import { respawnKeepsOutputOffsets } from "../tmux/version.ts";

const ROUNDS = 6;
const BOUND_MS = 30_000;

Deno.test("respawn pauses output clients on every release before tmux 3.8", () => {
  for (const version of ["tmux 3.2a", "tmux 3.3a", "tmux 3.4", "tmux 3.5a", "tmux 3.7c"]) {
    assertEquals(respawnKeepsOutputOffsets(version), true, version);
  }
  for (const version of ["tmux next-3.8", "tmux 3.8", "tmux master"]) {
    assertEquals(respawnKeepsOutputOffsets(version), false, version);
  }
  assertEquals(respawnKeepsOutputOffsets(undefined), true);
});

/** Starts a wait on `pane` that only a respawn ends; resolves `armed` at its first progress. */
function startWait(
  s: Session,
  pane: string,
): { armed: Promise<void>; result: Promise<CallToolResult | Error> } {
  let armed!: () => void;
  const armedAt = new Promise<void>((resolve) => (armed = resolve));
  const result = s.client.callTool(
    {
      name: "wait_for_text",
      arguments: { paneId: pane, patterns: ["^never-printed$"], timeoutSeconds: 20 },
    },
    undefined,
    { timeout: BOUND_MS, onprogress: () => armed() },
  ).then((r: unknown) => r as CallToolResult, (error: Error) => error);
  return { armed: armedAt, result };
}

/** Makes `pane` flood output (`yes`), waits until tmux shows it, and respawns it. */
async function floodAndRespawn(fx: TmuxFixture, s: Session, pane: string): Promise<void> {
  await s.ok("send_keys", { paneId: pane, text: "yes", enter: true });
  await eventually(
    async () => (await fx.tmux("capture-pane", "-p", "-t", pane)).includes("y\ny\ny"),
    "yes floods the pane",
    BOUND_MS,
    10,
  );
  const result = await s.call("respawn_pane", { paneId: pane, killFirst: true });
  assert(!result.isError, `respawn_pane failed: ${JSON.stringify(result.content)}`);
  await fx.tmux("has-session", "-t", "bystander");
}

Deno.test("respawn_pane killFirst on a flooding pane with a wait running leaves tmux up", () =>
  withServer({ args: ALL_TOOLSETS }, async (fx, s, pane) => {
    await fx.tmux("new-session", "-d", "-s", "bystander");
    for (let round = 1; round <= ROUNDS; round++) {
      const wait = startWait(s, pane);
      await wait.armed;
      await floodAndRespawn(fx, s, pane);
      const result = await wait.result;
      if (result instanceof Error) throw result;
      const ended = result.structuredContent as { outcome: string };
      assertEquals(ended.outcome, "pane_exited", `round ${round}`);
    }
  }));

Deno.test("respawn_pane killFirst on a flooding pane with a subscription live leaves tmux up", () =>
  withServer({ args: ALL_TOOLSETS }, async (fx, s, pane) => {
    await fx.tmux("new-session", "-d", "-s", "bystander");
    const uri = `tmux://panes/${encodeURIComponent(pane)}/content`;
    let updates = 0;
    s.client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void updates++);
    await s.client.subscribeResource({ uri });
    for (let round = 1; round <= ROUNDS; round++) await floodAndRespawn(fx, s, pane);
    // Output printed after the respawns still reaches the subscription.
    const before = updates;
    await s.ok("send_keys", { paneId: pane, text: "echo after-respawns", enter: true });
    await eventually(() => Promise.resolve(updates > before), "an update after the respawns");
    await s.client.unsubscribeResource({ uri });
  }));
