/**
 * Every process this server starts, so that none outlives it: `Deno.exit`
 * does not end children, and an orphaned control client or `tmux wait-for`
 * would linger on a person's tmux server.
 *
 * @module
 */

/** What a child is, for counting our own clients among tmux's. */
export type ChildKind = "command" | "control";

const live = new Map<Deno.ChildProcess, ChildKind>();
let hooked = false;

/** Registers `child` until it exits; it is killed if this process exits first. */
export function adopt<C extends Deno.ChildProcess>(child: C, kind: ChildKind): C {
  live.set(child, kind);
  void child.status.then(() => live.delete(child), () => live.delete(child));
  if (!hooked) {
    hooked = true;
    globalThis.addEventListener("unload", () => {
      for (const running of live.keys()) killChild(running);
    });
  }
  return child;
}

/** Kills `child` if it still runs. */
export function killChild(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch {
    // Already exited.
  }
}

/**
 * How many of the tmux clients with these process ids are not this server's
 * own control-mode clients (tmux counts those as attached like any other):
 * the people, and other programs, attached.
 */
export function foreignClients(pids: Iterable<number>): number {
  const own = new Set<number>();
  for (const [child, kind] of live) if (kind === "control") own.add(child.pid);
  let count = 0;
  for (const pid of pids) if (!own.has(pid)) count++;
  return count;
}
