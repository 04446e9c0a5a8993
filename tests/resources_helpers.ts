/**
 * Shared by the resources tests: a recorder of resource notifications that a
 * test waits on, and the reads and process lookups the test files all use.
 *
 * @module
 */

import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { childProcesses, type Session, TmuxFixture, withServer } from "./harness.ts";

/** Failure bound of every wait on a notification: generous for a loaded 2-core machine. */
export const BOUND_MS = 20_000;

/** One notification as the test saw it. */
export interface Seen {
  kind: "updated" | "list_changed";
  uri?: string;
}

/** Records notifications and lets a test wait for the next one that matches. */
export class Notifications {
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

export const updatedOf = (uri: string) => (s: Seen) => s.kind === "updated" && s.uri === uri;
export const listChanged = (s: Seen) => s.kind === "list_changed";

export function contentUri(paneId: string): string {
  return `tmux://panes/${encodeURIComponent(paneId)}/content`;
}

export async function firstPane(fixture: TmuxFixture): Promise<string> {
  return (await fixture.tmux("list-panes", "-a", "-F", "#{pane_id}")).split("\n")[0];
}

export async function readText(session: Session, uri: string): Promise<string> {
  const read = await session.client.readResource({ uri });
  return (read.contents[0] as { text: string }).text;
}

/** `tmux -C` clients on `socketPath` that are children of the server process. */
export async function controlClients(session: Session, socketPath: string): Promise<string[]> {
  return (await childProcesses(session.transport.pid!))
    .map((p) => p.args)
    .filter((args) => args.includes(socketPath) && / -C /.test(args));
}

/** Runs `body` with a server on a fresh fixture and a recorder of its notifications. */
export function withNotifications(
  args: string[],
  body: (fx: TmuxFixture, s: Session, n: Notifications) => Promise<void>,
): Promise<void> {
  return withServer({ args }, (fx, s) => body(fx, s, new Notifications(s)));
}
