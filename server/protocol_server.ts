/**
 * The MCP server side of the protocol: the SDK's `Protocol` (JSON-RPC
 * framing, request and response matching, cancellation, progress, ping)
 * plus the initialize handshake and the capability checks of a server.
 *
 * The SDK's public `Server` does the same and more, but loading it costs
 * more start-up time and memory than this server's budget allows
 * (docs/architecture.md#our-own-mcp-core has the measurement). `Protocol`,
 * the base of the SDK's own `Client` and `Server`, is exported by its package
 * (`shared/protocol.js`); no module of the SDK's server internals is imported.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { Protocol, type RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  type Implementation,
  InitializedNotificationSchema,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  LATEST_PROTOCOL_VERSION,
  McpError,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
  type ServerResult,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

/** The capabilities and instructions a server announces. */
export interface ProtocolServerOptions {
  /** What the server offers. */
  capabilities: ServerCapabilities;
  /** Instructions for the client's model, sent in the initialize answer. */
  instructions?: string;
}

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
  "logging/setLevel": "logging",
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
 * A request schema of the SDK's types module: a zod 4 object whose `method`
 * is a literal. The SDK builds them with the same zod package as ours, so
 * they are parsed with zod's own methods, not the SDK's internal helpers.
 */
type RequestSchema = z.ZodObject<{ method: z.ZodLiteral<string> }>;

/** What a schema check found wrong with a request, as one line. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.map(String).join(".") || "the request"}: ${issue.message}`)
    .join("; ");
}

/**
 * The path of the first own `__proto__` key in a request's params, or null.
 * JSON.parse makes it an ordinary key, but the SDK's schemas copy objects
 * by assignment, which drops it silently: a tool would run as if the name
 * had not been sent. Walked without recursion: a line may nest deeply.
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

/** Throws when `method` needs `capability` and `announced()` lacks it. */
function requireAnnounced(
  capability: keyof ServerCapabilities | undefined,
  method: string,
  announced: () => ServerCapabilities,
): void {
  if (capability && !announced()[capability]) {
    throw new Error(`the server did not announce ${capability} (required for ${method})`);
  }
}

/** An MCP server endpoint: answers initialize, then serves its handlers. */
export class ProtocolServer extends Protocol<ServerRequest, ServerNotification, ServerResult> {
  readonly #info: Implementation;
  readonly #options: ProtocolServerOptions;
  /** An initialize request has been answered. */
  #initialized = false;

  /** A server named by `info`, announcing `options`. */
  constructor(info: Implementation, options: ProtocolServerOptions) {
    super();
    this.#info = info;
    this.#options = options;
    this.handle(InitializeRequestSchema, (request) => this.#initialize(request));
    this.setNotificationHandler(InitializedNotificationSchema, () => this.oninitialized?.());
  }

  /**
   * Registers `handler` for the method of `requestSchema`. A request that does
   * not fit the schema (`tools/call` without params, a name that is not a
   * string) is answered with -32602 naming what is wrong; the SDK's own check
   * would answer -32603, an internal error, with the schema's error dump.
   * Use it instead of the inherited `setRequestHandler`, which skips these checks.
   */
  handle<T extends RequestSchema>(
    requestSchema: T,
    handler: (
      request: z.output<T>,
      extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    ) => ServerResult | Promise<ServerResult>,
  ): void {
    const method = requestSchema.shape.method.value;
    // The SDK matches handlers by the schema's method literal and parses the
    // request with the schema first; this schema checks only the method, so
    // the parse below decides the answer.
    const byMethod = z.looseObject({ method: z.literal(method) });
    this.setRequestHandler(byMethod, (request, extra) => {
      this.#followLifecycle(method);
      const proto = protoKeyPath(request.params);
      if (proto) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `invalid ${method} request: ${proto}: the name "__proto__" is not accepted; remove it`,
        );
      }
      const parsed = requestSchema.safeParse(request);
      if (!parsed.success) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `invalid ${method} request: ${describeIssues(parsed.error)}`,
        );
      }
      return handler(parsed.data, extra);
    });
  }

  /** Called when the client says initialization is complete. */
  oninitialized?: () => void;

  /**
   * Refuses what the MCP lifecycle does not allow: a request other than ping
   * before initialize, and a second initialize (which would answer another
   * protocol version than the session runs).
   */
  #followLifecycle(method: string): void {
    if (method === "ping") return;
    if (method === "initialize" && this.#initialized) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        "the session is already initialized; to start over, start a new connection",
      );
    }
    if (method !== "initialize" && !this.#initialized) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `${method} before initialize: send initialize first (only ping is served before it)`,
      );
    }
  }

  #initialize(request: InitializeRequest): InitializeResult {
    this.#initialized = true;
    const requested = request.params.protocolVersion;
    return {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      capabilities: this.#options.capabilities,
      serverInfo: this.#info,
      ...(this.#options.instructions ? { instructions: this.#options.instructions } : {}),
    };
  }

  /** Tells the client that the resource at `uri` changed. */
  sendResourceUpdated(params: { uri: string }): Promise<void> {
    return this.notification({ method: "notifications/resources/updated", params });
  }

  /** Tells the client that the list of resources changed. */
  sendResourceListChanged(): Promise<void> {
    return this.notification({ method: "notifications/resources/list_changed" });
  }

  /** This server sends no requests of its own (no sampling, elicitation or roots). */
  protected assertCapabilityForMethod(method: string): void {
    if (method !== "ping") throw new Error(`this server does not send ${method} requests`);
  }

  /** Refuses a notification whose capability this server did not announce. */
  protected assertNotificationCapability(method: string): void {
    requireAnnounced(NOTIFICATION_CAPABILITY[method], method, () => this.#options.capabilities);
  }

  /** Refuses a handler whose capability this server did not announce. */
  protected assertRequestHandlerCapability(method: string): void {
    // Also called by Protocol's constructor (ping), before #options exists:
    // the announced capabilities are read only for methods that need one.
    requireAnnounced(HANDLER_CAPABILITY[method], method, () => this.#options.capabilities);
  }

  /** This server creates no tasks on the client. */
  protected assertTaskCapability(method: string): void {
    throw new Error(`this server does not create tasks (asked for ${method})`);
  }

  /** Calls run to completion within the request; task-augmented requests are refused. */
  protected assertTaskHandlerCapability(method: string): void {
    throw new Error(
      `this server does not run ${method} as a task; call it without the task parameter`,
    );
  }
}
