/**
 * The MCP server: lists the selected tools with their schemas, annotations
 * and capability records, runs calls through the shared pipeline
 * (validate, handle, shape, budget), and serves resources.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CallToolRequest,
  CompleteRequest,
  GetPromptRequest,
  ReadResourceRequest,
  SubscribeRequest,
  UnsubscribeRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { Caller } from "../tmux/caller.ts";
import type { Tmux } from "../tmux/client.ts";
import { TmuxError } from "../tmux/errors.ts";
import { parseArguments } from "./arguments.ts";
import { utf8Length } from "../core/budget.ts";
import { noteUnoffered, ToolError } from "../core/errors.ts";
import { CATALOG } from "./catalog.ts";
import { inputJsonSchema, outputJsonSchema } from "./json_schema.ts";
import {
  annotationsOf,
  type AnyTool,
  type CallOutcome,
  CAPABILITY_META_KEY,
  classSentence,
  type ToolContext,
} from "../core/registry.ts";
import type { Prompts } from "./prompts.ts";
import { type Extra, ProtocolServer } from "./protocol_server.ts";
import {
  INVALID_PARAMS,
  type ResourceContext,
  ResourceError,
  resourcePage,
  type ResourceProvider,
} from "./resources.ts";
import { errorResult, resultBytes, successResult, type ToolResult } from "../core/results.ts";
import { renderText } from "../core/render_text.ts";
import type { Settings } from "../core/settings.ts";
import { toolsetsOn } from "../core/toolsets.ts";
import { SERVER_NAME, SERVER_VERSION } from "./version.ts";

/** What the server is built from. */
export interface ServerOptions {
  /** The driven tmux server. */
  tmux: Tmux;
  /** Settings of this process. */
  settings: Settings;
  /** This server's own pane, if any. */
  caller: Caller;
  /** The selected tools. */
  tools: AnyTool[];
  /** Resource providers, asked in order. */
  resources: ResourceProvider[];
  /** Server instructions. */
  instructions: string;
  /** The prompts offered, if any. */
  prompts?: Prompts;
}

/** Bursts of topology changes within this window give one `list_changed`. */
const LIST_CHANGED_COALESCE_MS = 200;
/** Completion answers carry at most this many values (MCP's limit). */
const MAX_COMPLETIONS = 100;

/**
 * What `list_changed` compares: the set of resource URIs. Descriptions carry
 * labels (a window's name follows the program in its pane under tmux's
 * automatic-rename), and a client told the list changed at every command a
 * person runs would re-list for nothing; a resource appearing, going away or
 * changing its URI is what changes the list.
 */
export function listingKey(resources: readonly { uri: string }[]): string {
  return JSON.stringify(resources.map((r) => r.uri).sort());
}

/** The `tools/list` entry of `tool`. */
export function toolListing(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: `${classSentence(tool.capability)} ${tool.description}`,
    inputSchema: inputJsonSchema(tool.input) as { type: "object" },
    outputSchema: outputJsonSchema(tool.output) as { type: "object" },
    annotations: annotationsOf(tool.capability),
    _meta: { [CAPABILITY_META_KEY]: tool.capability },
  };
}

/** The running MCP server and the hooks other modules use. */
export class TmuxMcpServer {
  /** The protocol endpoint. */
  readonly server: ProtocolServer;
  readonly #options: ServerOptions;
  readonly #byName: Map<string, AnyTool>;
  /** Names of the tools the settings left out, which error hints must not send a model to. */
  readonly #unoffered: string[];
  #listChangedTimer: ReturnType<typeof setTimeout> | undefined;
  /** The set of resources the client last received or was told changed; undefined: unknown. */
  #lastListing: string | undefined;
  #checking = false;
  #recheck = false;
  /** A topology change asked for the list to be compared in the next check. */
  #listingDue = false;
  #disposed = false;
  /** Tool calls being handled: dispose() lets them finish their clean-up. */
  readonly #inFlight = new Set<Promise<ToolResult>>();

  /** Builds the server; call `server.connect(transport)` to serve. */
  constructor(options: ServerOptions) {
    this.#options = options;
    this.#byName = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.#unoffered = CATALOG.map((tool) => tool.name).filter((name) => !this.#byName.has(name));
    this.server = new ProtocolServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      {
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: true, listChanged: true },
          ...(options.prompts ? { prompts: { listChanged: false } } : {}),
          completions: {},
        },
        instructions: options.instructions,
      },
    );
    this.#handleTools(options);
    this.#handleResources(options);
    this.#handleCompletion(options);
    this.#handlePrompts(options);
  }

  /** tools/list and tools/call. */
  #handleTools(options: ServerOptions): void {
    // Built on first use: converting 45 schemas to JSON Schema is the largest
    // piece of start-up work, and the initialize answer need not wait for it.
    let listings: ReturnType<typeof toolListing>[] | undefined;
    this.server.handle("tools/list", () => ({
      tools: listings ??= options.tools.map(toolListing),
    }));
    this.server.handle(
      "tools/call",
      (request: CallToolRequest, extra: Extra) =>
        this.#call(request.params.name, request.params.arguments, extra),
    );
  }

  /** Listing, reading and subscribing to resources. */
  #handleResources(options: ServerOptions): void {
    this.server.handle("resources/list", async (request) => {
      const resources = await this.#listResources();
      this.#lastListing = listingKey(resources);
      return resourcePage(resources, request.params?.cursor, options.settings.maxBytes);
    });
    this.server.handle("resources/templates/list", () => ({
      resourceTemplates: options.resources.flatMap((p) => p.templates?.() ?? []),
    }));
    this.server.handle(
      "resources/read",
      async (request: ReadResourceRequest) => {
        for (const provider of options.resources) {
          const contents = await provider.read(request.params.uri, this.resourceContext);
          if (contents) return { contents };
        }
        throw unknownResource();
      },
    );
    this.server.handle("resources/subscribe", async (request: SubscribeRequest) => {
      const updated = () => {
        this.server.sendResourceUpdated({ uri: request.params.uri }).catch((error: unknown) =>
          logError("resources/updated", error)
        );
      };
      for (const provider of options.resources) {
        if (await provider.subscribe?.(request.params.uri, this.resourceContext, updated)) {
          return {};
        }
      }
      throw new ResourceError(
        "that resource cannot be subscribed to. Subscribe to tmux://sessions or to a pane's " +
          "resources (tmux://panes/{paneId}, tmux://panes/{paneId}/content) from resources/list",
        INVALID_PARAMS,
      );
    });
    this.server.handle("resources/unsubscribe", async (request: UnsubscribeRequest) => {
      for (const provider of options.resources) {
        if (await provider.unsubscribe?.(request.params.uri)) return {};
      }
      throw unknownResource();
    });
  }

  /** completion/complete, for the arguments of the prompts and templates offered. */
  #handleCompletion(options: ServerOptions): void {
    this.server.handle("completion/complete", async (request: CompleteRequest) => {
      const { ref, argument: { name, value } } = request.params;
      // Only an argument this server declares, of a prompt it offers or a
      // template it lists, is completed.
      const declared = ref.type === "ref/prompt"
        ? options.prompts?.list().find((p) => p.name === ref.name)?.arguments.map((a) => a.name)
        : options.resources.flatMap((p) => p.templates?.() ?? [])
          .find((t) => t.uriTemplate === ref.uri)?.uriTemplate.match(/[^{}]+(?=\})/g);
      if (!declared) {
        throw new ResourceError(
          `completion asked for an unknown ${
            ref.type === "ref/prompt" ? "prompt" : "resource template"
          }. ` +
            "Use a name from prompts/list or a template from resources/templates/list",
          INVALID_PARAMS,
        );
      }
      if (!declared.includes(name)) return { completion: { values: [], total: 0, hasMore: false } };
      for (const provider of options.resources) {
        const values = await provider.complete?.(name, value, this.resourceContext);
        if (values) {
          return {
            completion: {
              values: values.slice(0, MAX_COMPLETIONS),
              total: values.length,
              hasMore: values.length > MAX_COMPLETIONS,
            },
          };
        }
      }
      return { completion: { values: [], total: 0, hasMore: false } };
    });
  }

  /** prompts/list and prompts/get, when prompts are offered. */
  #handlePrompts(options: ServerOptions): void {
    const prompts = options.prompts;
    if (prompts) {
      this.server.handle("prompts/list", () => ({ prompts: prompts.list() }));
      this.server.handle(
        "prompts/get",
        (request: GetPromptRequest) => prompts.get(request.params.name, request.params.arguments),
      );
    }
  }

  async #listResources() {
    const lists = await Promise.all(
      this.#options.resources.map((p) => p.list(this.resourceContext)),
    );
    return lists.flat();
  }

  /** The context resource providers read with. */
  get resourceContext(): ResourceContext {
    const { tmux, settings, caller, tools } = this.#options;
    return { tmux, settings, caller, selected: tools.map((t) => t.name) };
  }

  /**
   * Sessions, windows or panes may have changed (a tool changed them, or
   * tmux said so): after a short coalescing delay, re-list and tell the
   * client when the list differs from the one it last knew.
   */
  topologyChanged(): void {
    this.#listingDue = true;
    this.#scheduleCheck();
  }

  /**
   * Only what a view shows may have changed (a session's active window or
   * pane, a person's client attached or gone): after the same coalescing
   * delay, and in the same check when one is due anyway, the providers compare
   * their views; the resource list, which shows none of it, is not read.
   */
  viewsChanged(): void {
    this.#scheduleCheck();
  }

  #scheduleCheck(): void {
    if (this.#disposed) return;
    if (this.#checking) {
      this.#recheck = true;
      return;
    }
    if (this.#listChangedTimer !== undefined) return;
    this.#listChangedTimer = setTimeout(() => {
      this.#listChangedTimer = undefined;
      void this.#check();
    }, LIST_CHANGED_COALESCE_MS);
  }

  async #check(): Promise<void> {
    this.#checking = true;
    try {
      if (this.#listingDue) {
        this.#listingDue = false;
        await this.#checkListing();
      }
      if (this.#disposed) return;
      await Promise.all(
        this.#options.resources.map((p) =>
          p.topologyChanged?.(this.resourceContext).catch((error: unknown) => {
            if (!(error instanceof TmuxError)) {
              logError("resources/updated after a topology change", error);
            }
          })
        ),
      );
    } finally {
      this.#checking = false;
      if (this.#recheck) {
        this.#recheck = false;
        this.#scheduleCheck();
      }
    }
  }

  /** Re-lists the resources and sends list_changed when the set of URIs differs. */
  async #checkListing(): Promise<void> {
    let listing: string | undefined;
    try {
      listing = listingKey(await this.#listResources());
    } catch (error) {
      // The list cannot be read now (tmux gone or its session just killed):
      // say it changed rather than stay silent. Only a bug is worth a log line.
      if (!(error instanceof TmuxError)) {
        logError("resources/list after a topology change", error);
      }
    }
    if (this.#disposed) return;
    if (listing === undefined || listing !== this.#lastListing) {
      this.#lastListing = listing;
      await this.server.sendResourceListChanged().catch((error: unknown) =>
        logError("list_changed", error)
      );
    }
  }

  /**
   * Stops timers, ends every subscription and waits for the tool calls in
   * flight to end; the caller closes the transport afterwards. The protocol
   * aborts those calls when the connection closes, and an aborted call still
   * talks to tmux to leave nothing behind (a wait releases its `wait-for`
   * waiter by signalling its channel: a killed waiter stays registered in
   * tmux and swallows the next signal), which must reach tmux before the
   * transport closes and the process exits.
   */
  async dispose(): Promise<void> {
    this.#disposed = true;
    clearTimeout(this.#listChangedTimer);
    this.#listChangedTimer = undefined;
    await Promise.allSettled([
      ...this.#options.resources.map((p) => p.close?.()),
      ...this.#inFlight,
    ]);
  }

  async #call(name: string, rawArgs: unknown, extra: Extra): Promise<ToolResult> {
    const tool = this.#byName.get(name);
    if (!tool) {
      return errorResult(
        name,
        new ToolError(
          "this server does not offer that tool",
          `Call tools/list for the tools offered; ${toolsetsOn(this.#options.settings.toolsets)}.`,
        ),
      );
    }
    const running = this.#run(tool, rawArgs, this.#context(tool, extra));
    this.#inFlight.add(running);
    try {
      return await running;
    } finally {
      this.#inFlight.delete(running);
    }
  }

  /** Runs one tool call through the pipeline; never throws. */
  async #run(tool: AnyTool, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
    try {
      const args = parseArguments(tool.input, rawArgs);
      const value = await tool.handler(args, ctx) as Record<string, unknown>;
      const render = (result: Record<string, unknown>) =>
        tool.render ? tool.render(result, args) : renderText(result);
      if (tool.sizesItsOwnResult) {
        return { content: [{ type: "text", text: render(value) }], structuredContent: value };
      }
      const changed = tool.capability.tmuxEffects.some((effect) => effect !== "observe");
      return successResult(
        value,
        render,
        this.#options.settings.maxBytes,
        tool.overBudgetHint,
        changed,
      );
    } catch (error) {
      if (!(error instanceof ToolError || error instanceof TmuxError)) logError(tool.name, error);
      return errorResult(tool.name, this.#noteUnoffered(error));
    }
  }

  /** `error` with a note when its hint names tools the settings left out. */
  #noteUnoffered(error: unknown): unknown {
    return noteUnoffered(error, this.#unoffered, toolsetsOn(this.#options.settings.toolsets));
  }

  #context(tool: AnyTool, extra: Extra): ToolContext {
    const { tmux, settings, caller, tools } = this.#options;
    const progressToken = extra._meta?.progressToken;
    return {
      tmux,
      settings,
      caller,
      signal: extra.signal,
      selected: tools.map((t) => t.name),
      noteUnoffered: (error) => this.#noteUnoffered(error),
      progress: async (done, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress: done, total, message },
        });
      },
      call: async (name, args): Promise<CallOutcome> => {
        const nested = this.#byName.get(name);
        if (!nested) {
          return { ok: false, error: `${name} failed: this server does not offer that tool.` };
        }
        const result = await this.#run(nested, args, this.#context(nested, extra));
        return result.isError
          ? { ok: false, error: result.content[0].text }
          : { ok: true, result: result.structuredContent ?? {} };
      },
      topologyChanged: () => this.topologyChanged(),
      responseLineBytes: (structured, args) => {
        const render = (value: Record<string, unknown>) =>
          tool.render ? tool.render(value, args) : renderText(value);
        const result = {
          content: [{ type: "text" as const, text: render(structured) }],
          structuredContent: structured,
        };
        // The SDK writes JSON.stringify(message) + "\n"; the envelope adds the
        // jsonrpc version and the request id around the result. A string id
        // may hold any character, so the envelope is measured in UTF-8 bytes too.
        return resultBytes(result) +
          utf8Length(JSON.stringify({ jsonrpc: "2.0", id: extra.requestId, result: null })) -
          "null".length + 1;
      },
    };
  }
}

function unknownResource(): ResourceError {
  return new ResourceError(
    "unknown resource. List resources with resources/list (or the templates with " +
      "resources/templates/list) and use one of those URIs",
  );
}

/** Logs an unexpected failure to stderr (stdout carries only protocol messages). */
export function logError(where: string, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`tmux-mcp: unexpected error in ${where}: ${detail}`);
}
