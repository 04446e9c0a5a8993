/**
 * JSON-RPC 2.0 messages as MCP uses them: the error codes, an error that
 * carries its code to the answer, and the check that one parsed line is a
 * request, a notification or an answer. MCP's own rules on top (methods,
 * params, the lifecycle) are in server/protocol_server.ts.
 *
 * Only the SDK's types are imported: its run-time schemas are not loaded
 * (docs/decisions/008-own-json-rpc-layer.md).
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";

export type { JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, RequestId };

/** The error codes of JSON-RPC 2.0 this server answers with. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
} as const;

/** An error whose code and message become the JSON-RPC error answer. */
export class RpcError extends Error {
  /** An error answered with `code` (one of {@link ErrorCode} or MCP's own). */
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "RpcError";
  }
}

/** The error answer to request `id` (null when the id could not be read). */
export function errorAnswer(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): JSONRPCErrorResponse {
  const error = data === undefined ? { code, message } : { code, message, data };
  // JSON-RPC answers an unreadable id with null; the SDK's type leaves the id out instead.
  return { jsonrpc: "2.0", id: id as RequestId, error };
}

/** What {@link readLine} made of one line. */
export type LineReading =
  | { message: JSONRPCMessage }
  /** Not a message: why, and the error answer due (null: none is, as for a malformed answer). */
  | { problem: Error; answer: JSONRPCErrorResponse | null };

/** The members each kind of message may have; any other is refused, as by the SDK's schemas. */
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const NOTIFICATION_KEYS = new Set(["jsonrpc", "method", "params"]);
const RESULT_KEYS = new Set(["jsonrpc", "id", "result"]);
const ERROR_KEYS = new Set(["jsonrpc", "id", "error"]);

/** The message on `line`, or why it is none and the answer due. */
export function readLine(line: string): LineReading {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return {
      problem: error instanceof Error ? error : new Error(String(error)),
      answer: errorAnswer(null, ErrorCode.ParseError, "Parse error: the line is not JSON"),
    };
  }
  if (Array.isArray(value)) return refused(null, "batches are not supported");
  if (!isObject(value)) return refused(null, "a message is a JSON object");
  const problem = messageProblem(value);
  if (problem === null) return { message: value as JSONRPCMessage };
  // A malformed answer to one of this server's requests gets none: an error
  // under its id would read as the answer to a request of the client's.
  if (!("method" in value) && ("result" in value || "error" in value)) {
    return { problem: new Error(`an answer was dropped: ${problem}`), answer: null };
  }
  const id = value.id;
  return refused(typeof id === "string" || typeof id === "number" ? id : null, problem);
}

function refused(id: RequestId | null, why: string): LineReading {
  return {
    problem: new Error(`an invalid message was refused: ${why}`),
    answer: errorAnswer(id, ErrorCode.InvalidRequest, `Invalid request: ${why}`),
  };
}

/** What makes `value` no JSON-RPC 2.0 message of MCP's, or null when it is one. */
function messageProblem(value: Record<string, unknown>): string | null {
  if (value.jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if ("method" in value) {
    if (typeof value.method !== "string") return "method must be a string";
    if ("params" in value && !isObject(value.params)) return "params must be an object";
    if (!("id" in value)) return unknownKey(value, NOTIFICATION_KEYS);
    return idProblem(value.id) ?? unknownKey(value, REQUEST_KEYS);
  }
  if ("result" in value) {
    if (!isObject(value.result)) return "result must be an object";
    return idProblem(value.id) ?? unknownKey(value, RESULT_KEYS);
  }
  if ("error" in value) {
    const error = value.error;
    if (
      !isObject(error) || !Number.isSafeInteger(error.code) || typeof error.message !== "string"
    ) {
      return "error must be an object with an integer code and a string message";
    }
    return ("id" in value ? idProblem(value.id) : null) ?? unknownKey(value, ERROR_KEYS);
  }
  return 'not a JSON-RPC 2.0 message (jsonrpc "2.0" with a method, or a result or error for an id)';
}

function idProblem(id: unknown): string | null {
  return typeof id === "string" || Number.isSafeInteger(id)
    ? null
    : "id must be a string or an integer";
}

function unknownKey(value: Record<string, unknown>, allowed: Set<string>): string | null {
  for (const key in value) {
    if (!allowed.has(key)) return `unknown member "${key}"`;
  }
  return null;
}

/** True for a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
