/**
 * Live views of the driven tmux server (docs/behaviour.md#live-resources): `tmux://sessions`,
 * `tmux://panes/{paneId}` and `tmux://panes/{paneId}/content`, listed,
 * readable, completable and subscribable. Nothing runs while nobody is
 * subscribed. Why: docs/decisions/006-live-resources.md.
 *
 * @module
 */

import { isOwnClientName } from "../tmux/children.ts";
import { isNoServer } from "../tmux/errors.ts";
import { TOPOLOGY_SUBSCRIPTION } from "../tmux/topology_listen.ts";
import { PANE_ID } from "../tmux/targets.ts";
import {
  isNothingToList,
  listPanes,
  listPanesCommand,
  listSessionsCommand,
  listWindowsCommand,
  parsePanes,
  parseSessions,
  parseWindows,
  type SessionView,
} from "../tmux/views.ts";
import { budgetLines, longestFitting } from "../core/budget.ts";
import { logError } from "./server.ts";
import { captureLines } from "../core/panes.ts";
import {
  INVALID_PARAMS,
  readBytes,
  type ResourceContents,
  type ResourceContext,
  type ResourceEntry,
  ResourceError,
  type ResourceProvider,
  type ResourceTemplateEntry,
  withinBudget,
} from "./resources.ts";
import { counted } from "../core/words.ts";
import {
  paneMissing,
  type PaneRef,
  type PaneState,
  PaneSubscription,
  readPane,
  UPDATE_SPACING_MS,
} from "./pane_subscription.ts";

export { type PaneRef, UPDATE_SPACING_MS };

/** The URI of the sessions view. */
export const SESSIONS_URI = "tmux://sessions";
/** Template of a pane's view. */
export const PANE_TEMPLATE = "tmux://panes/{paneId}";
/** Template of a pane's visible text. */
export const CONTENT_TEMPLATE = "tmux://panes/{paneId}/content";

/** At most this many panes are listed one by one; the templates reach the rest. */
export const MAX_LISTED_PANES = 100;

/** The URI of a pane's view or content, with `%` escaped as URIs require. */
export function paneUri(paneId: string, kind: PaneRef["kind"]): string {
  const id = encodeURIComponent(paneId);
  return kind === "view" ? `tmux://panes/${id}` : `tmux://panes/${id}/content`;
}

/** Reads a pane URI (escaped or raw id), or null when `uri` is not one. */
export function parsePaneUri(uri: string): PaneRef | null {
  const match = /^tmux:\/\/panes\/([^/]+)(\/content)?$/.exec(uri);
  if (!match) return null;
  let id = match[1];
  try {
    const decoded = decodeURIComponent(id);
    if (PANE_ID.test(decoded)) id = decoded;
  } catch {
    // Not a valid escape sequence (`%3/`): the raw id as typed.
  }
  if (!PANE_ID.test(id)) return null;
  return { paneId: id, kind: match[2] ? "content" : "view" };
}

/** The driven server's sessions, windows and panes in one round trip; empty without a server. */
async function readTopology(ctx: ResourceContext) {
  try {
    const [sessions, windows, panes] = await ctx.tmux.run([
      listSessionsCommand(),
      listWindowsCommand(),
      listPanesCommand({ kind: "all" }),
    ]);
    const caller = await ctx.caller.verifiedPane(ctx.tmux);
    return {
      sessions: parseSessions(sessions),
      windows: parseWindows(windows),
      panes: parsePanes(panes, caller),
    };
  } catch (error) {
    if (isNothingToList(error)) return { sessions: [], windows: [], panes: [] };
    throw error;
  }
}

async function readSessions(ctx: ResourceContext): Promise<SessionView[]> {
  try {
    return parseSessions(await ctx.tmux.one(listSessionsCommand()));
  } catch (error) {
    if (isNoServer(error)) return [];
    throw error;
  }
}

/**
 * The visible text of a pane within the budgets, with a first line saying
 * what was cut. The byte budget holds for the read as it goes on the wire
 * (every read fits --max-bytes): JSON escaping can double the text (quotes, backslashes), so
 * the text's own budget is the largest that keeps the whole read within it.
 */
function screenText(ctx: ResourceContext, uri: string, screen: string): string {
  const lines = captureLines(screen);
  const textWithin = (bytes: number) => {
    const content = budgetLines(lines, ctx.settings.maxLines, bytes);
    const cut = content.truncated
      ? [
        `[${content.droppedLines} older lines and ${content.droppedBytes} bytes dropped to fit the budget]`,
      ]
      : [];
    return [...cut, ...content.lines].join("\n");
  };
  const max = ctx.settings.maxBytes;
  const fits = (bytes: number) =>
    readBytes([{ uri, mimeType: "text/plain", text: textWithin(bytes) }]) <= max;
  // The note alone (budget 0) always fits.
  return textWithin(fits(max) ? max : longestFitting(max, fits));
}

/** Something that runs only while anyone is subscribed. */
export interface WhileSubscribed {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The provider of the live views, their subscriptions and pane id completion. */
export class LiveResources implements ResourceProvider {
  readonly #panes = new Map<string, PaneSubscription>();
  readonly #starting = new Map<string, Promise<void>>();
  /** Subscribers of the sessions view, with the view they were last told about. */
  #sessions: { updated: () => void; last: string | undefined } | undefined;

  /**
   * `whileSubscribed` runs from the first subscription to the end of the
   * last (a listener for a person's changes where no other client hears them).
   * `offersContent` says whether panes' text is offered: not when the tool
   * selection reads none (a client may let the model read resources, and
   * the person who left out every reading tool meant the model not to).
   */
  constructor(
    readonly whileSubscribed?: WhileSubscribed,
    readonly offersContent = true,
  ) {}

  /** Refuses a content URI when panes' text is not offered. */
  #refuseContent(ref: PaneRef): void {
    if (ref.kind !== "content" || this.offersContent) return;
    throw new ResourceError(
      "a pane's text is not offered by this server: none of its selected tools reads what panes " +
        "show, so neither do its resources. Read the pane's view (tmux://panes/{paneId}) instead, " +
        "or ask the user to start the server with the inspect toolset",
      INVALID_PARAMS,
    );
  }

  /** Starts or stops the companion so that it runs exactly while anyone is subscribed. */
  async #followSubscriptions(): Promise<void> {
    if (this.subscriptions > 0) await this.whileSubscribed?.start();
    else await this.whileSubscribed?.stop();
  }

  /** Number of live subscriptions, the sessions view counting as one. */
  get subscriptions(): number {
    return this.#panes.size + (this.#sessions ? 1 : 0);
  }

  /** Lists the sessions view and each pane's two resources (up to {@link MAX_LISTED_PANES} panes). */
  async list(ctx: ResourceContext): Promise<ResourceEntry[]> {
    const { sessions, windows, panes } = await readTopology(ctx);
    const sessionName = new Map(sessions.map((s) => [s.sessionId, s.name]));
    const window = new Map(windows.map((w) => [w.windowId, w]));
    const entries: ResourceEntry[] = [{
      uri: SESSIONS_URI,
      name: "sessions",
      description: `The ${counted(sessions.length, "tmux session")} (JSON list of session views).${
        panes.length > MAX_LISTED_PANES
          ? ` Only ${MAX_LISTED_PANES} of ${panes.length} panes are listed; reach the others through the templates.`
          : ""
      }`,
      mimeType: "application/json",
    }];
    // The lowest ids: the same panes whatever tmux's order, as pages expect (resourcePage).
    const listed = panes.toSorted((a, b) => Number(a.paneId.slice(1)) - Number(b.paneId.slice(1)))
      .slice(0, MAX_LISTED_PANES);
    for (const pane of listed) {
      const w = window.get(pane.windowId);
      const where = `${sessionName.get(pane.sessionId) ?? pane.sessionId}:${
        w ? `${w.index} (${w.name})` : pane.windowId
      }.${pane.index}`;
      // The names here are labels for people: list_changed follows the URIs
      // only (server/server.ts listingKey), so a window renamed after the
      // program in it changes the description without a notification.
      entries.push({
        uri: paneUri(pane.paneId, "view"),
        name: `pane ${pane.paneId}`,
        description: `Pane ${pane.paneId} in ${where}: its view (JSON).`,
        mimeType: "application/json",
      });
      if (!this.offersContent) continue;
      entries.push({
        uri: paneUri(pane.paneId, "content"),
        name: `pane ${pane.paneId} screen`,
        description:
          `What pane ${pane.paneId} in ${where} shows (text); subscribe to hear when it prints.`,
        mimeType: "text/plain",
      });
    }
    return entries;
  }

  /** The pane templates. */
  templates(): ResourceTemplateEntry[] {
    const templates: ResourceTemplateEntry[] = [
      {
        uriTemplate: PANE_TEMPLATE,
        name: "pane",
        description: "A pane's view (JSON): size, command, path, dead, in a mode, history.",
        mimeType: "application/json",
      },
      {
        uriTemplate: CONTENT_TEMPLATE,
        name: "pane screen",
        description:
          "The text a pane shows, within the server's budgets; subscribe to be told when it prints.",
        mimeType: "text/plain",
      },
    ];
    return this.offersContent ? templates : templates.slice(0, 1);
  }

  /** Reads one of the live views. */
  async read(uri: string, ctx: ResourceContext): Promise<ResourceContents[] | null> {
    if (uri === SESSIONS_URI) {
      const contents = [{
        uri,
        mimeType: "application/json",
        // Compact: indentation would add about 30% that a client and the budget pay for.
        text: JSON.stringify(await readSessions(ctx)),
      }];
      return withinBudget(
        contents,
        ctx.settings.maxBytes,
        "the sessions view",
        "Read one session with get_session_info {session} (sessions are named in the pane " +
          "descriptions of resources/list), or raise --max-bytes",
      );
    }
    const ref = parsePaneUri(uri);
    if (!ref) return null;
    this.#refuseContent(ref);
    let state: PaneState;
    try {
      state = await readPane(ctx.tmux, ref.paneId, await ctx.caller.verifiedPane(ctx.tmux));
    } catch (error) {
      throw paneMissing(error);
    }
    if (ref.kind === "content") {
      return [{ uri, mimeType: "text/plain", text: screenText(ctx, uri, state.screen) }];
    }
    // Its directory can be as long as PATH_MAX (4,096 bytes), over the smallest budget.
    return withinBudget(
      [{ uri, mimeType: "application/json", text: JSON.stringify(state.pane) }],
      ctx.settings.maxBytes,
      "the pane's view",
      "Its directory or title is that long: read the other fields with get_tmux_variables " +
        "{names: [pane_current_command, pane_pid, ...], paneId}, or raise --max-bytes",
    );
  }

  /** Subscribes to a pane's view or content, or to the sessions view. */
  async subscribe(uri: string, ctx: ResourceContext, updated: () => void): Promise<boolean> {
    if (uri === SESSIONS_URI) {
      if (!this.#sessions) {
        this.#sessions = { updated, last: JSON.stringify(await readSessions(ctx)) };
      }
      await this.#followSubscriptions();
      return true;
    }
    const ref = parsePaneUri(uri);
    if (!ref) return false;
    this.#refuseContent(ref);
    if (this.#panes.has(uri)) return true;
    // A second request for the same URI while the first is starting joins it.
    const starting = this.#starting.get(uri);
    if (starting) {
      await starting;
      return true;
    }
    const sub: PaneSubscription = new PaneSubscription(ref, ctx, updated, () => {
      if (this.#panes.get(uri) !== sub) return;
      this.#panes.delete(uri);
      this.#followSubscriptions().catch((error: unknown) => logError("subscription end", error));
    });
    const start = sub.start();
    this.#starting.set(uri, start);
    try {
      await start;
    } finally {
      this.#starting.delete(uri);
    }
    this.#panes.set(uri, sub);
    await this.#followSubscriptions();
    return true;
  }

  /** Ends a subscription; unsubscribing from what is not subscribed is not an error. */
  async unsubscribe(uri: string): Promise<boolean> {
    if (uri === SESSIONS_URI) {
      this.#sessions = undefined;
    } else {
      if (!parsePaneUri(uri)) return false;
      // A subscription still starting is ended once it has started; if it
      // failed, its error went to the subscribe request and there is nothing to end.
      await this.#starting.get(uri)?.catch(() => {});
      const sub = this.#panes.get(uri);
      this.#panes.delete(uri);
      await sub?.close();
    }
    await this.#followSubscriptions();
    return true;
  }

  /**
   * True when someone is subscribed to the sessions view and the
   * control-mode notification `line` may have changed it without changing
   * the topology ({@link isSessionsViewNotification}): only then is a check
   * worth its round trip.
   */
  hearsViewChange(line: string): boolean {
    return this.#sessions !== undefined && isSessionsViewNotification(line);
  }

  /** Sends the sessions view's update when a topology change altered it. */
  async topologyChanged(ctx: ResourceContext): Promise<void> {
    const sessions = this.#sessions;
    if (!sessions) return;
    const now = JSON.stringify(await readSessions(ctx));
    if (now === sessions.last) return;
    sessions.last = now;
    sessions.updated();
  }

  /** Completes `paneId` with the ids of existing panes starting with `value`. */
  async complete(argument: string, value: string, ctx: ResourceContext): Promise<string[] | null> {
    if (argument !== "paneId") return null;
    const prefix = value === "" || value.startsWith("%") ? value : `%${value}`;
    const panes = await listPanes(ctx.tmux, { kind: "all" }, null);
    return panes.map((p) => p.paneId).filter((id) => id.startsWith(prefix))
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  }

  /** Ends every subscription and waits for their watches to close. */
  async close(): Promise<void> {
    const subs = [...this.#panes.values()];
    this.#panes.clear();
    this.#sessions = undefined;
    await Promise.all([...subs.map((sub) => sub.close()), this.whileSubscribed?.stop()]);
  }
}

/**
 * Control-mode notifications after which the resource list or the sessions
 * view may have changed. Window renames are not among them: neither shows a
 * window's name, and automatic-rename renames a window at every command run.
 */
const TOPOLOGY_NOTIFICATIONS = [
  "%sessions-changed",
  "%session-renamed ",
  "%window-add ",
  "%unlinked-window-add ",
  "%window-close ",
  "%unlinked-window-close ",
  // A pane split off or killed in the attached session shows up as a layout change.
  "%layout-change ",
  // The listener's format subscription to every session, window and pane.
  `%subscription-changed ${TOPOLOGY_SUBSCRIPTION} `,
  // The shared client left (its session was killed): the check that follows
  // makes a round trip, which attaches the transport again if a session is left.
  "%exit",
];

/** True for a control-mode notification line that may mean sessions, windows or panes changed. */
export function isTopologyNotification(line: string): boolean {
  return TOPOLOGY_NOTIFICATIONS.some((prefix) => line === prefix.trim() || line.startsWith(prefix));
}

/**
 * True for a control-mode notification line after which the sessions view
 * may differ while the resource list cannot: a session's active window or a
 * window's active pane changed (tmux 3.3a tells every control client, of
 * every session), or a client attached to a session, switched or detached
 * and it is not one of this server's own (the view's `attached` leaves those
 * out, and the watch clients of wait_for_text come and go with every call).
 */
function isSessionsViewNotification(line: string): boolean {
  if (line.startsWith("%session-window-changed ") || line.startsWith("%window-pane-changed ")) {
    return true;
  }
  const client = /^%client-(?:session-changed|detached) (\S+)/.exec(line);
  return client !== null && !isOwnClientName(client[1]);
}
