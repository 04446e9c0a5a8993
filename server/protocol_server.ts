/**
 * The MCP server side of the protocol on our JSON-RPC endpoint
 * (server/rpc_endpoint.ts): the initialize handshake with protocol-version
 * negotiation, the lifecycle (only ping before initialize, initialize once),
 * ping, cancellation, the params check of each request, and the checks that
 * a handler or notification has its capability announced.
 *
 * The SDK's `Server`, or its `Protocol` base, would do the same, but loading
 * either with the SDK's schemas costs start-up time and memory beyond this
 * server's budget (docs/decisions/008-own-json-rpc-layer.md); the SDK's types
 * are used, its code is not loaded.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  Implementation,
  InitializeResult,
  ServerCapabilities,
  ServerNotification,
  ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, isObject, RpcError } from "./jsonrpc.ts";
import { type HandledMethod, paramsProblem, type RequestOf } from "./request_params.ts";
import { type RequestExtra, RpcEndpoint } from "./rpc_endpoint.ts";

/** The protocol versions this server speaks, newest first (the SDK's list of the same release). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** The capabilities and instructions a server announces. */
export interface ProtocolServerOptions {
  /** What the server offers. */
  capabilities: ServerCapabilities;
  /** Instructions for the client's model, sent in the initialize answer. */
  instructions?: string;
}

/** What a request handler gets besides the request. */
export type Extra = RequestExtra;

/** A notification method and the capability that must be on to send it. */
const NOTIFICATION_CAPABILITY: Record<string, keyof ServerCapabilities> = {
  "notifications/message": "logging",
  "notifications/resources/updated": "resources",
  "notifications/resources/list_changed": "resources",
  "notifications/tools/list_changed": "tools",
  "notifications/prompts/list_changed": "prompts",
};

/** A request method and the capability that must be on to handle it. */
const HANDLER_CAPABILITY: Record<string, keyof ServerCapabilities> = {
  "completion/complete": "completions",
  "prompts/get": "prompts",
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "resources/read": "resources",
  "resources/subscribe": "resources",
  "resources/unsubscribe": "resources",
  "tools/call": "tools",
  "tools/list": "tools",
};

/**
 * The path of the first own `__proto__` key in a request's params, or null.
 * JSON.parse makes it an ordinary key, but zod copies objects by assignment,
 * which drops it silently: a tool would run as if the name had not been
 * sent. Walked without recursion: a line may nest deeply.
 */
function protoKeyPath(params: unknown): string | null {
  const stack: [unknown, string][] = [[params, "params"]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    for (const key of Object.keys(value)) {
      if (key === "__proto__") return `${path}.${key}`;
      stack.push([(value as Record<string, unknown>)[key], `${path}.${key}`]);
    }
  }
  return null;
}

/** Throws when `method` needs `capability` and `announced` lacks it. */
function requireAnnounced(
  capability: keyof ServerCapabilities | undefined,
  method: string,
  announced: ServerCapabilities,
): void {
  if (capability && !announced[capability]) {
    throw new Error(`the server did not announce ${capability} (required for ${method})`);
  }
}

/** Why a request with these params is refused before its handler runs, or null. */
function refusal(method: HandledMethod, params: unknown): string | null {
  const proto = protoKeyPath(params);
  if (proto) return `${proto}: the name "__proto__" is not accepted; remove it`;
  // Calls run to completion within the request: no task is created for them.
  if (isObject(params) && params.task !== undefined) {
    return `params.task: this server does not run ${method} as a task; ` +
      "call it without the task parameter";
  }
  return paramsProblem(method, params);
}

/** An MCP server endpoint: answers initialize, then serves its handlers. */
export class ProtocolServer extends RpcEndpoint {
  readonly #info: Implementation;
  readonly #options: ProtocolServerOptions;
  /** An initialize request has been answered. */
  #initialized = false;

  /** A server named by `info`, announcing `options`. */
  constructor(info: Implementation, options: ProtocolServerOptions) {
    super();
    this.#info = info;
    this.#options = options;
    this.handle("initialize", (request) => this.#initialize(request));
    this.handle("ping", () => ({}));
    this.setNotificationHandler("notifications/cancelled", ({ params }) => {
      const id = params?.requestId;
      if (typeof id === "string" || typeof id === "number") this.cancel(id, params?.reason);
    });
  }

  /**
   * Serves `method` with `handler`. A request whose params do not fit the
   * method (`tools/call` without params, a name that is not a string) is
   * answered with -32602 naming what is wrong, before the handler runs.
   */
  handle<M extends HandledMethod>(
    method: M,
    handler: (request: RequestOf<M>, extra: Extra) => ServerResult | Promise<ServerResult>,
  ): void {
    requireAnnounced(HANDLER_CAPABILITY[method], method, this.#options.capabilities);
    this.setRequestHandler(method, (request, extra) => {
      this.#followLifecycle(method);
      const problem = refusal(method, request.params);
      if (problem) {
        throw new RpcError(ErrorCode.InvalidParams, `invalid ${method} request: ${problem}`);
      }
      return handler(request as RequestOf<M>, extra);
    });
  }

  /**
   * Refuses what the MCP lifecycle does not allow: a request other than ping
   * before initialize, and a second initialize (which would answer another
   * protocol version than the session runs).
   */
  #followLifecycle(method: string): void {
    if (method === "ping") return;
    if (method === "initialize" && this.#initialized) {
      throw new RpcError(
        ErrorCode.InvalidRequest,
        "the session is already initialized; to start over, start a new connection",
      );
    }
    if (method !== "initialize" && !this.#initialized) {
      throw new RpcError(
        ErrorCode.InvalidRequest,
        `${method} before initialize: send initialize first (only ping is served before it)`,
      );
    }
  }

  #initialize(request: RequestOf<"initialize">): InitializeResult {
    this.#initialized = true;
    const requested = request.params.protocolVersion;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : SUPPORTED_PROTOCOL_VERSIONS[0],
      capabilities: this.#options.capabilities,
      serverInfo: this.#info,
      ...(this.#options.instructions ? { instructions: this.#options.instructions } : {}),
    };
  }

  /** Sends `notification`; refused when its capability was not announced. */
  override notification(notification: ServerNotification): Promise<void> {
    try {
      requireAnnounced(
        NOTIFICATION_CAPABILITY[notification.method],
        notification.method,
        this.#options.capabilities,
      );
    } catch (error) {
      return Promise.reject(error);
    }
    return super.notification(notification);
  }

  /** Tells the client that the resource at `uri` changed. */
  sendResourceUpdated(params: { uri: string }): Promise<void> {
    return this.notification({ method: "notifications/resources/updated", params });
  }

  /** Tells the client that the list of resources changed. */
  sendResourceListChanged(): Promise<void> {
    return this.notification({ method: "notifications/resources/list_changed" });
  }
}
