/**
 * One end of a JSON-RPC 2.0 connection that serves requests: dispatch by
 * method, one answer per request (a result, or the error it threw with its
 * code), an abort signal per request for cancellation and for the
 * connection's end, and notifications out. It sends no requests of its own,
 * so an answer that arrives is reported and dropped.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import {
  errorAnswer,
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type RequestId,
} from "./jsonrpc.ts";

/** Carries whole messages; server/stdio.ts is the one this server runs on. */
export interface MessageTransport {
  /** Starts delivering messages through `onmessage`. */
  start(): Promise<void>;
  /** Sends one message. */
  send(message: JSONRPCMessage): Promise<void>;
  /** Ends the connection; `onclose` follows. */
  close(): Promise<void>;
  /** Set by the endpoint: each message read. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** Set by the endpoint: the connection ended. */
  onclose?: () => void;
  /** Set by the endpoint: a line that was no message, or an I/O failure. */
  onerror?: (error: Error) => void;
}

/** What a request handler gets besides the request. */
export interface RequestExtra {
  /** Aborted when the client cancels the request or the connection ends. */
  signal: AbortSignal;
  /** The request's id. */
  requestId: RequestId;
  /** The request's `params._meta`, with the client's progress token if it sent one. */
  _meta?: { progressToken?: string | number };
  /** Sends a notification about this request (progress); a no-op once it is aborted. */
  sendNotification(notification: ServerNotification): Promise<void>;
}

/** Answers one request: its result, or a throw (an `RpcError` keeps its code). */
export type RequestHandler = (request: JSONRPCRequest, extra: RequestExtra) => unknown;

/** A JSON-RPC endpoint that serves requests and sends notifications. */
export class RpcEndpoint {
  /** Called once when the connection ends. */
  onclose?: () => void;
  /** Called with each problem that has no request to answer it to. */
  onerror?: (error: Error) => void;

  #transport: MessageTransport | undefined;
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, (n: JSONRPCNotification) => void>();
  /** The requests being handled, by id. */
  readonly #running = new Map<RequestId, AbortController>();

  /** Serves requests of `method` with `handler` (replacing any before). */
  protected setRequestHandler(method: string, handler: RequestHandler): void {
    this.#requestHandlers.set(method, handler);
  }

  /** Calls `handler` with each notification of `method`; others are ignored. */
  protected setNotificationHandler(
    method: string,
    handler: (notification: JSONRPCNotification) => void,
  ): void {
    this.#notificationHandlers.set(method, handler);
  }

  /** Takes over `transport` and starts it; messages are served from then on. */
  async connect(transport: MessageTransport): Promise<void> {
    if (this.#transport) throw new Error("already connected; use a new endpoint per connection");
    this.#transport = transport;
    transport.onmessage = (message) => this.#receive(message);
    transport.onerror = (error) => this.onerror?.(error);
    transport.onclose = () => this.#closed();
    await transport.start();
  }

  /** Closes the transport; requests still running are aborted. */
  close(): Promise<void> {
    return this.#transport?.close() ?? Promise.resolve();
  }

  /** Sends `notification`; rejects when the connection has ended. */
  notification(notification: ServerNotification): Promise<void> {
    if (!this.#transport) return Promise.reject(new Error("not connected"));
    return this.#transport.send({ jsonrpc: "2.0", ...notification } as JSONRPCNotification);
  }

  /** Aborts the client's request `id` with `reason`, if it is still running. */
  protected cancel(id: RequestId, reason: unknown): void {
    this.#running.get(id)?.abort(reason);
  }

  #receive(message: JSONRPCMessage): void {
    if (!("method" in message)) {
      this.onerror?.(new Error(`an answer to no request of ours: ${JSON.stringify(message)}`));
    } else if ("id" in message) {
      this.#request(message);
    } else {
      this.#notify(message);
    }
  }

  #notify(notification: JSONRPCNotification): void {
    const handler = this.#notificationHandlers.get(notification.method);
    if (!handler) return;
    try {
      handler(notification);
    } catch (error) {
      this.onerror?.(new Error(`the ${notification.method} handler failed: ${error}`));
    }
  }

  #request(request: JSONRPCRequest): void {
    const transport = this.#transport;
    if (!transport) return;
    const handler = this.#requestHandlers.get(request.method);
    if (!handler) {
      this.#answer(
        transport,
        errorAnswer(request.id, ErrorCode.MethodNotFound, `Method not found: ${request.method}`),
      );
      return;
    }
    const controller = new AbortController();
    this.#running.set(request.id, controller);
    const extra: RequestExtra = {
      signal: controller.signal,
      requestId: request.id,
      _meta: request.params?._meta as RequestExtra["_meta"],
      sendNotification: (notification) =>
        controller.signal.aborted ? Promise.resolve() : this.notification(notification),
    };
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(handler(request, extra));
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => {
        if (controller.signal.aborted) return;
        this.#answer(transport, { jsonrpc: "2.0", id: request.id, result: value as never });
      },
      (error) => {
        if (controller.signal.aborted) return;
        this.#answer(transport, thrownAnswer(request.id, error));
      },
    ).finally(() => {
      // A later request may reuse the id: only this request's entry goes.
      if (this.#running.get(request.id) === controller) this.#running.delete(request.id);
    });
  }

  #answer(transport: MessageTransport, answer: JSONRPCMessage): void {
    transport.send(answer).catch((error: unknown) =>
      this.onerror?.(new Error(`an answer could not be sent: ${error}`))
    );
  }

  #closed(): void {
    this.#transport = undefined;
    for (const controller of this.#running.values()) controller.abort();
    this.#running.clear();
    this.onclose?.();
  }
}

/** The error answer to a handler's throw: its code when it carries one, else an internal error. */
function thrownAnswer(id: RequestId, error: unknown): JSONRPCMessage {
  const { code, message, data } = (typeof error === "object" && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  return errorAnswer(
    id,
    Number.isSafeInteger(code) ? code as number : ErrorCode.InternalError,
    typeof message === "string" ? message : String(error ?? "Internal error"),
    data,
  );
}
