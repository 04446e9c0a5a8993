/**
 * The MCP server: lists the selected tools with their schemas, annotations
 * and capability records, runs calls through the shared pipeline
 * (validate, handle, shape, budget), and serves resources.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ReadResourceRequest,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";
import type { Caller } from "../tmux/caller.ts";
import type { Tmux } from "../tmux/client.ts";
import { TmuxError } from "../tmux/errors.ts";
import { parseArguments } from "./arguments.ts";
import { ToolError } from "./errors.ts";
import {
  type AnyTool,
  type CallOutcome,
  CAPABILITY_META_KEY,
  classSentence,
  type ToolContext,
} from "./registry.ts";
import type { ResourceContext, ResourceProvider } from "./resources.ts";
import { errorResult, renderJson, resultBytes, successResult, type ToolResult } from "./results.ts";
import type { Settings } from "./settings.ts";
import { SERVER_NAME, SERVER_VERSION } from "./version.ts";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
}

/** Converts a zod schema to the JSON Schema sent in `tools/list`. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The `tools/list` entry of `tool`. */
export function toolListing(tool: AnyTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: `${classSentence(tool.capability)} ${tool.description}`,
    inputSchema: jsonSchemaOf(tool.input, "input") as { type: "object" },
    outputSchema: jsonSchemaOf(tool.output, "output") as { type: "object" },
    annotations: {
      title: tool.title,
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    _meta: { [CAPABILITY_META_KEY]: tool.capability },
  };
}

/** The running MCP server and the hooks other modules use. */
export class TmuxMcpServer {
  /** The SDK server. */
  readonly server: Server;
  readonly #options: ServerOptions;
  readonly #byName: Map<string, AnyTool>;
  #listChangedTimer: ReturnType<typeof setTimeout> | undefined;

  /** Builds the server; call `server.connect(transport)` to serve. */
  constructor(options: ServerOptions) {
    this.#options = options;
    this.#byName = new Map(options.tools.map((tool) => [tool.name, tool]));
    this.server = new Server(
      { name: SERVER_NAME, version: SERVER_VERSION },
      {
        capabilities: {
          tools: { listChanged: false },
          resources: { subscribe: false, listChanged: true },
        },
        instructions: options.instructions,
      },
    );
    const listings = options.tools.map(toolListing);
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listings }));
    this.server.setRequestHandler(
      CallToolRequestSchema,
      (request: CallToolRequest, extra: Extra) =>
        this.#call(request.params.name, request.params.arguments, extra),
    );
    this.server.setRequestHandler(ListResourcesRequestSchema, async () => {
      const lists = await Promise.all(options.resources.map((p) => p.list(this.resourceContext)));
      return { resources: lists.flat() };
    });
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: options.resources.flatMap((p) => p.templates?.() ?? []),
    }));
    this.server.setRequestHandler(
      ReadResourceRequestSchema,
      async (request: ReadResourceRequest) => {
        for (const provider of options.resources) {
          const contents = await provider.read(request.params.uri, this.resourceContext);
          if (contents) return { contents };
        }
        throw new Error(
          "Unknown resource. List resources with resources/list and read one of those.",
        );
      },
    );
  }

  /** The context resource providers read with. */
  get resourceContext(): ResourceContext {
    const { tmux, settings, caller, tools } = this.#options;
    return { tmux, settings, caller, selected: tools.map((t) => t.name) };
  }

  /** Tells the client the resource list changed, coalescing bursts. */
  topologyChanged(): void {
    if (this.#listChangedTimer !== undefined) return;
    this.#listChangedTimer = setTimeout(() => {
      this.#listChangedTimer = undefined;
      this.server.sendResourceListChanged().catch((error: unknown) =>
        logError("list_changed", error)
      );
    }, 200);
  }

  /** Stops timers; the caller closes the transport. */
  dispose(): void {
    clearTimeout(this.#listChangedTimer);
    this.#listChangedTimer = undefined;
  }

  async #call(name: string, rawArgs: unknown, extra: Extra): Promise<ToolResult> {
    const tool = this.#byName.get(name);
    if (!tool) {
      return errorResult(
        name,
        new ToolError(
          "this server does not offer that tool",
          `Call tools/list for the tools offered; toolsets on: ${
            this.#options.settings.toolsets.join(", ")
          }.`,
        ),
      );
    }
    return await this.#run(tool, rawArgs, this.#context(tool, extra));
  }

  /** Runs one tool call through the pipeline; never throws. */
  async #run(tool: AnyTool, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
    try {
      const args = parseArguments(tool.input, rawArgs);
      const value = await tool.handler(args, ctx) as Record<string, unknown>;
      const render = tool.render ?? renderJson;
      if (tool.sizesItsOwnResult) {
        return { content: [{ type: "text", text: render(value) }], structuredContent: value };
      }
      return successResult(value, render, this.#options.settings.maxBytes);
    } catch (error) {
      if (!(error instanceof ToolError || error instanceof TmuxError)) logError(tool.name, error);
      return errorResult(tool.name, error);
    }
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
      responseLineBytes: (structured) => {
        const render = tool.render ?? renderJson;
        const result = {
          content: [{ type: "text" as const, text: render(structured) }],
          structuredContent: structured,
        };
        // The SDK writes JSON.stringify(message) + "\n"; the envelope adds the
        // jsonrpc version and the request id around the result.
        return resultBytes(result) +
          JSON.stringify({ jsonrpc: "2.0", id: extra.requestId, result: null }).length -
          "null".length + 1;
      },
    };
  }
}

/** Logs an unexpected failure to stderr (stdout carries only protocol messages). */
export function logError(where: string, error: unknown): void {
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  console.error(`tmux-mcp: unexpected error in ${where}: ${detail}`);
}
