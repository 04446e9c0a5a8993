/**
 * What the read benchmarks share: the topology they run on (4 sessions × 4
 * windows × 2 panes, one pane with 2,000 lines of history) and reading the
 * server's memory and the machine's load from /proc.
 *
 * @module
 */

import { START_FIXTURE_SERVER, type TmuxFixture } from "../tests/harness.ts";

export const SESSIONS = 4;
export const WINDOWS = 4;
export const HISTORY_LINES = 2000;

/**
 * Reads a /proc file through `cat`: Deno refuses /proc reads to anything
 * short of --allow-all, and the benchmarks should not need that.
 */
export async function readProc(path: string): Promise<string> {
  const out = await new Deno.Command("cat", { args: [path], stdout: "piped" }).output();
  if (out.code !== 0) throw new Error(`cannot read ${path}`);
  return new TextDecoder().decode(out.stdout);
}

/** The 1, 5 and 15 minute load averages, as /proc/loadavg prints them. */
export async function loadAverage(): Promise<string> {
  const text = await readProc("/proc/loadavg");
  return text.split(" ").slice(0, 3).join(", ");
}

/** A `kB` field of /proc/PID/status (VmRSS, VmHWM) in KiB. */
export async function statusKiB(pid: number, field: string): Promise<number> {
  const text = await readProc(`/proc/${pid}/status`);
  const value = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1]);
  if (!Number.isFinite(value)) throw new Error(`no ${field} for process ${pid}`);
  return value;
}

/** Builds the topology in one tmux process; resolves with every pane id, session by session. */
export async function buildTopology(fixture: TmuxFixture): Promise<string[]> {
  const args: string[] = [
    ...START_FIXTURE_SERVER,
    ";",
    // history-limit applies to panes created after it is set.
    "set-option",
    "-g",
    "history-limit",
    "10000",
  ];
  for (let s = 0; s < SESSIONS; s++) {
    const name = `bench${s}`;
    args.push(";", "new-session", "-d", "-s", name, "-x", "160", "-y", "48");
    for (let w = 1; w < WINDOWS; w++) args.push(";", "new-window", "-d", "-t", `=${name}:`);
    for (let w = 0; w < WINDOWS; w++) args.push(";", "split-window", "-d", "-t", `=${name}:${w}`);
  }
  await fixture.tmux(...args);
  return (await fixture.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n");
}

/**
 * Prints lines into `pane` until its history holds HISTORY_LINES lines:
 * `printer(n)` is the shell command that prints n lines (numbered lines by
 * default).
 */
export async function fillHistory(
  fixture: TmuxFixture,
  pane: string,
  printer = (lines: number) => `seq -f 'history line %g' 1 ${lines}`,
): Promise<number> {
  const height = Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{pane_height}"));
  await fixture.runInPane(pane, printer(HISTORY_LINES + height));
  const size = Number(await fixture.tmux("display-message", "-p", "-t", pane, "#{history_size}"));
  if (size < HISTORY_LINES) throw new Error(`history holds ${size} lines, not ${HISTORY_LINES}`);
  return size;
}
