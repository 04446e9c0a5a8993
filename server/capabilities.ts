/**
 * The `tmux://capabilities` document: what this server is,
 * which tmux it drives and why, and what every offered tool may do.
 *
 * @module
 */

import { isOwnSocket, type SocketChoice } from "../tmux/client.ts";
import { type AnyTool, CAPABILITY_META_KEY } from "../core/registry.ts";
import { type ResourceProvider, withinBudget } from "./resources.ts";
import type { Settings } from "../core/settings.ts";
import { shellQuote } from "../domain/shell_frame.ts";
import { SERVER_NAME, SERVER_VERSION } from "./version.ts";

/** Facts learned at start-up that the document reports. */
export interface RuntimeFacts {
  /** The tmux executable used, when known. */
  tmuxBinary: string | null;
  /** `tmux -V` output, when known. */
  tmuxVersion: string | null;
  /** Whether this process started the driven tmux server; null when not checked. */
  startedServer: boolean | null;
}

/** The tmux flag that selects `socket` (`-L`, `-S`) and its value, quoted to paste as it is. */
export function socketWords(socket: SocketChoice): [flag: string, value: string] {
  return socket.kind === "name" ? ["-L", shellQuote(socket.name)] : ["-S", shellQuote(socket.path)];
}

/** The shell command a person runs to watch `socket`'s sessions, quoted to paste as it is. */
export function attachCommand(socket: SocketChoice): string {
  const [flag, value] = socketWords(socket);
  return `tmux ${flag} ${value} attach`;
}

/** The URI of the capabilities resource. */
export const CAPABILITIES_URI = "tmux://capabilities";

/** Builds the capabilities document. */
export function capabilitiesDocument(
  settings: Settings,
  tools: readonly AnyTool[],
  facts: RuntimeFacts,
): Record<string, unknown> {
  const socket = settings.socket;
  return {
    server: { name: SERVER_NAME, version: SERVER_VERSION },
    tmux: {
      socket: socket.kind === "name" ? { name: socket.name } : { path: socket.path },
      chosenBy: socket.source === "default"
        ? "default: the server's own tmux server"
        : socket.source === "flag"
        ? `flag ${socket.kind === "name" ? "--socket" : "--socket-path"}`
        : `environment ${socket.kind === "name" ? "LIBTMUX_SOCKET" : "LIBTMUX_SOCKET_PATH"}`,
      ownServer: isOwnSocket(socket),
      startedByThisProcess: facts.startedServer,
      binary: facts.tmuxBinary,
      version: facts.tmuxVersion,
      transport: settings.transport,
      attachCommand: attachCommand(socket),
    },
    toolsets: settings.toolsets,
    toolsetsChosenBy: settings.toolsetsSource,
    limits: {
      maxLines: settings.maxLines,
      maxBytes: settings.maxBytes,
      waitMaxSeconds: settings.waitMaxSeconds,
    },
    tools: tools.map((tool) => ({
      name: tool.name,
      title: tool.title,
      toolset: tool.capability.toolset,
      [CAPABILITY_META_KEY]: tool.capability,
    })),
  };
}

/** The provider serving the capabilities document. */
export function capabilitiesProvider(document: () => Record<string, unknown>): ResourceProvider {
  return {
    list: () =>
      Promise.resolve([{
        uri: CAPABILITIES_URI,
        name: "capabilities",
        description:
          "This server's version, driven tmux socket, toolsets and each tool's capability record.",
        mimeType: "application/json",
      }]),
    // In a then(): the refusal rejects the promise rather than throwing.
    read: (uri, ctx) =>
      Promise.resolve().then(() => {
        if (uri !== CAPABILITIES_URI) return null;
        // Compact: indentation is about a third of the document (--print-capabilities keeps it for people).
        const contents = [{ uri, mimeType: "application/json", text: JSON.stringify(document()) }];
        const max = ctx.settings.maxBytes;
        return withinBudget(
          contents,
          max,
          "the capabilities document",
          `Each tool's capability record is also in tools/list (_meta["${CAPABILITY_META_KEY}"]); ` +
            "raise --max-bytes to read the whole document",
          // The document states the budget: at a larger one it is longer by the extra digits.
          (size) => {
            let needed = size;
            while (size + String(needed).length - String(max).length > needed) needed++;
            return needed;
          },
        );
      }),
    // Never subscribed (subscribe refuses it), so there is nothing to end; it is no unknown resource.
    unsubscribe: (uri) => Promise.resolve(uri === CAPABILITIES_URI),
  };
}
