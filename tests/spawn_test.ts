/** The one-shot process starter under a hung tmux server. */

import { assert, assertRejects } from "./assert.ts";
import { processTable, TmuxFixture, whileStopped } from "./harness.ts";
import { spawnTmux } from "../tmux/spawn.ts";

Deno.test("spawnTmux: a stopped tmux server times out and the client is reaped", async () => {
  await using fx = await TmuxFixture.start();
  const serverPid = Number(await fx.tmux("display-message", "-p", "#{pid}"));
  await whileStopped(serverPid, async () => {
    // The client hands its stdout to the server, which keeps the pipe open
    // after the client is killed; the timeout must not wait for that pipe.
    await assertRejects(
      () => spawnTmux("tmux", ["-S", fx.socketPath, "list-panes"], { timeoutMs: 500 }),
      "did not answer",
    );
    const controller = new AbortController();
    const pending = spawnTmux("tmux", ["-S", fx.socketPath, "list-panes"], {
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    controller.abort();
    await assertRejects(() => pending, "cancelled");
    const clients = (await processTable())
      .filter((p) => p.args.includes(fx.socketPath) && p.args.includes("list-panes"))
      .map((p) => p.pid);
    assert(clients.length === 0, `clients left: ${clients.join(",")}`);
  });
});
