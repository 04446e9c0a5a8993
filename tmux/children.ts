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

/**
 * How long a control client's process id still counts as ours after it
 * exited: tmux's `%client-detached` for it reaches the other clients on
 * their own pipes, and can be read after its exit was.
 */
const ENDED_MEMORY_MS = 10_000;
/** Process ids of our control clients that ended, with when (oldest first). */
const ended = new Map<number, number>();

function forget(child: Deno.ChildProcess): void {
  const kind = live.get(child);
  live.delete(child);
  if (kind !== "control") return;
  const now = performance.now();
  ended.delete(child.pid);
  ended.set(child.pid, now);
  for (const [pid, at] of ended) {
    if (now - at <= ENDED_MEMORY_MS) break;
    ended.delete(pid);
  }
}

/** Registers `child` until it exits; it is killed if this process exits first. */
export function adopt<C extends Deno.ChildProcess>(child: C, kind: ChildKind): C {
  live.set(child, kind);
  void child.status.then(() => forget(child), () => forget(child));
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
  let count = 0;
  for (const pid of pids) if (!isOwnClientPid(pid)) count++;
  return count;
}

/** True when `pid` is one of this server's control clients, running or ended within {@link ENDED_MEMORY_MS}. */
function isOwnClientPid(pid: number): boolean {
  if (ended.has(pid) && performance.now() - ended.get(pid)! <= ENDED_MEMORY_MS) return true;
  for (const [child, kind] of live) if (kind === "control" && child.pid === pid) return true;
  return false;
}

/**
 * True when tmux's client name `name` is one of this server's control
 * clients, running or ended within the last {@link ENDED_MEMORY_MS}: tmux
 * names a client without a terminal `client-<pid>` (server-client.c), as
 * every client this server starts (on pipes) is.
 */
export function isOwnClientName(name: string): boolean {
  const match = /^client-(\d+)$/.exec(name);
  return match !== null && isOwnClientPid(Number(match[1]));
}
