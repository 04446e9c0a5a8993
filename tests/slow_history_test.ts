/**
 * Reads of whole histories when tmux takes longer than the calls' own time
 * bounds: every call answers, and search_panes reports the panes it could
 * not read rather than failing.
 *
 * @module
 */

import { assert, assertEquals } from "./assert.ts";
import { realTmux, startServer } from "./harness.ts";
import { readTopology, startTopology } from "./hardening.ts";

/**
 * A tmux for a server that takes 11 s over every read of a whole history,
 * past search_panes' 10: tmux builds a capture of a long history whole before
 * answering (about 5 s per million lines), and this wrapper makes each such
 * read that slow without filling one, then runs the real tmux.
 */
async function slowHistoryTmux(dir: string): Promise<string> {
  const real = await realTmux();
  const slow = `${dir}/tmux-slow-history`;
  await Deno.writeTextFile(
    slow,
    `#!/bin/sh\ncase " $* " in *" capture-pane "*" -S - "*) sleep 11 ;; esac\nexec '${real}' "$@"\n`,
  );
  await Deno.chmod(slow, 0o755);
  return slow;
}

Deno.test("faults: reads of a whole history answer when tmux takes longer than the default bound [process]", async () => {
  await using fx = await startTopology();
  const pane = (await readTopology(fx)).panes[0];
  await fx.runInPane(pane, "echo history-mark");
  const slow = await slowHistoryTmux(fx.dir);
  await using s = await startServer(fx.socketPath, {
    args: ["--transport", "process", "--tmux", slow],
    denoFlags: [`--allow-run=${slow}`],
  });
  const other = (await readTopology(fx)).panes[1];
  await fx.runInPane(other, "true");
  const [capture, search, run] = await Promise.all([
    s.call("capture_pane", { paneId: pane, includeHistory: true }),
    s.call("search_panes", { pattern: "history-mark", includeHistory: true }),
    // More output than the last lines it reads first: it reads the whole history.
    s.call("run_shell_command", { paneId: other, command: "seq 1 1500" }),
  ]);
  assert(!run.isError, `run_shell_command: ${JSON.stringify(run.content)}`);
  const ran = run.structuredContent as { outcome: string; output: { lines: string[] } };
  assertEquals([ran.outcome, ran.output.lines.at(-1)], ["completed", "1500"]);
  assert(!capture.isError, `capture_pane: ${JSON.stringify(capture.content)}`);
  const { content } = capture.structuredContent as { content: { lines: string[] } };
  assert(content.lines.includes("history-mark"), content.lines.join("\n"));
  assert(!search.isError, `search_panes: ${JSON.stringify(search.content)}`);
  // The read outlasted search_panes' own time budget: the pane is matched or
  // reported skipped, never a failure.
  const result = search.structuredContent as {
    panes: { paneId: string }[];
    skippedPanes: { paneId: string; reason: string }[];
    truncated: boolean;
  };
  assert(
    result.panes.some((p) => p.paneId === pane) ||
      (result.truncated &&
        result.skippedPanes.some((p) => p.paneId === pane && p.reason === "read_timeout")),
    JSON.stringify(result),
  );
});

Deno.test("faults: a search reading the panes with their listing skips them when tmux outlasts its time [process]", async () => {
  await using fx = await startTopology();
  const pane = (await readTopology(fx)).panes[0];
  const slow = await slowHistoryTmux(fx.dir);
  await using s = await startServer(fx.socketPath, {
    args: ["--transport", "process", "--tmux", slow],
    denoFlags: [`--allow-run=${slow}`],
  });
  // The screens only: quick, and the listing is kept for the next search.
  await s.ok("search_panes", { pattern: "nothing-here" });
  const began = performance.now();
  const result = await s.ok<{ skippedPanes: { paneId: string; reason: string }[] }>(
    "search_panes",
    { pattern: "nothing-here", includeHistory: true },
  );
  const skipped = result.skippedPanes.find((p) => p.paneId === pane);
  assertEquals(skipped?.reason, "read_timeout", JSON.stringify(result));
  const took = performance.now() - began;
  assert(took < 15_000, `the search took ${took.toFixed(0)} ms`);
});
