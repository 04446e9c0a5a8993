/**
 * The params of each MCP request this server handles, checked by hand: the
 * fields the handlers read, with their types. A request that does not fit is
 * the client's mistake, answered -32602 with the path of what is wrong.
 * Unknown fields are ignored, as MCP lets newer clients send more.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { ClientRequest } from "@modelcontextprotocol/sdk/types.js";
import { isObject } from "./jsonrpc.ts";

/** The methods of the requests this server can handle. */
export type HandledMethod = keyof typeof PARAMS;

/** The request of method `M`, as the SDK types it. */
export type RequestOf<M extends HandledMethod> = Extract<ClientRequest, { method: M }>;

/** A check of one value at `path`: null when it fits, else what is wrong. */
type Check = (value: unknown, path: string) => string | null;

function got(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function expected(path: string, what: string, value: unknown): string {
  return value === undefined
    ? `${path}: required (${what})`
    : `${path}: expected ${what}, got ${got(value)}`;
}

const string: Check = (value, path) =>
  typeof value === "string" ? null : expected(path, "a string", value);

const stringOrInteger: Check = (value, path) =>
  typeof value === "string" || Number.isSafeInteger(value)
    ? null
    : expected(path, "a string or an integer", value);

function optional(check: Check): Check {
  return (value, path) => value === undefined ? null : check(value, path);
}

/** An object whose own fields pass `fields`; other fields are not looked at. */
function object(fields: Record<string, Check>): Check {
  const entries = Object.entries(fields);
  return (value, path) => {
    if (!isObject(value)) return expected(path, "an object", value);
    for (const [key, check] of entries) {
      const problem = check(Object.hasOwn(value, key) ? value[key] : undefined, `${path}.${key}`);
      if (problem !== null) return problem;
    }
    return null;
  };
}

/** An object whose every value passes `check` (null: any value). */
function record(check: Check | null): Check {
  return (value, path) => {
    if (!isObject(value)) return expected(path, "an object", value);
    if (check === null) return null;
    for (const key of Object.keys(value)) {
      const problem = check(value[key], `${path}.${key}`);
      if (problem !== null) return problem;
    }
    return null;
  };
}

/** A completion's reference: a prompt by name or a resource template by URI. */
const reference: Check = (value, path) => {
  if (!isObject(value)) return expected(path, "an object", value);
  if (value.type === "ref/prompt") return string(value.name, `${path}.name`);
  if (value.type === "ref/resource") return string(value.uri, `${path}.uri`);
  return `${path}.type: expected "ref/prompt" or "ref/resource"`;
};

/** Every request's params may carry `_meta`, with the progress token the client wants. */
const meta = optional(object({ progressToken: optional(stringOrInteger) }));

function params(fields: Record<string, Check>): Check {
  return object({ ...fields, _meta: meta });
}

const paged = optional(params({ cursor: optional(string) }));
const byUri = params({ uri: string });

const PARAMS = {
  "initialize": params({
    protocolVersion: string,
    capabilities: record(null),
    clientInfo: object({ name: string, version: string }),
  }),
  "ping": optional(params({})),
  "tools/list": paged,
  "tools/call": params({ name: string, arguments: optional(record(null)) }),
  "resources/list": paged,
  "resources/templates/list": paged,
  "resources/read": byUri,
  "resources/subscribe": byUri,
  "resources/unsubscribe": byUri,
  "prompts/list": paged,
  "prompts/get": params({ name: string, arguments: optional(record(string)) }),
  "completion/complete": params({
    ref: reference,
    argument: object({ name: string, value: string }),
    context: optional(object({ arguments: optional(record(string)) })),
  }),
} satisfies Partial<Record<ClientRequest["method"], Check>>;

/** What is wrong with the params of a `method` request, or null when they fit. */
export function paramsProblem(method: HandledMethod, value: unknown): string | null {
  return PARAMS[method](value, "params");
}
