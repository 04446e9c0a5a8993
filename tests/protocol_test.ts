/**
 * Our JSON-RPC and MCP layer without a process or tmux: which lines are
 * messages (server/jsonrpc.ts), the params checks (server/request_params.ts),
 * and the endpoint's dispatch, errors, cancellation, progress and close
 * (server/rpc_endpoint.ts, server/protocol_server.ts) over an in-memory
 * transport. The same over the real wire is in tests/stdio_test.ts.
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { type JSONRPCMessage, readLine, RpcError } from "../server/jsonrpc.ts";
import { ProtocolServer, SUPPORTED_PROTOCOL_VERSIONS } from "../server/protocol_server.ts";
import type { MessageTransport } from "../server/rpc_endpoint.ts";

/** The error answer `line` gets, as [id, code, message]; null when it is a message. */
function refusalOf(line: string): [unknown, number, string] | null | "no answer" {
  const reading = readLine(line);
  if ("message" in reading) return null;
  if (!reading.answer) return "no answer";
  const { id, error } = reading.answer;
  return [id, error.code, error.message];
}

Deno.test("readLine: messages of each kind pass as parsed", () => {
  for (
    const line of [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}',
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","id":3,"result":{}}',
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"x","data":1}}',
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}',
    ]
  ) {
    assertEquals(readLine(line), { message: JSON.parse(line) }, line);
  }
});

Deno.test("readLine: a line that is no message gets -32700 or -32600, with its id when readable", () => {
  assertEquals(refusalOf("{oops"), [null, -32700, "Parse error: the line is not JSON"]);
  const cases: [string, unknown, string][] = [
    ["[1]", null, "batches are not supported"],
    ['"text"', null, "a message is a JSON object"],
    ['{"id":1,"method":"ping"}', 1, 'jsonrpc must be "2.0"'],
    ['{"jsonrpc":"2.0","id":2,"method":5}', 2, "method must be a string"],
    ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 1.5, "id must be a string or an integer"],
    ['{"jsonrpc":"2.0","id":null,"method":"ping"}', null, "id must be a string or an integer"],
    ['{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}', 4, "params must be an object"],
    ['{"jsonrpc":"2.0","id":5,"method":"ping","extra":1}', 5, 'unknown member "extra"'],
    ['{"jsonrpc":"2.0","method":"x","params":null}', null, "params must be an object"],
    ['{"jsonrpc":"2.0","id":6}', 6, "not a JSON-RPC 2.0 message"],
  ];
  for (const [line, id, why] of cases) {
    const refusal = refusalOf(line);
    assert(Array.isArray(refusal), line);
    assertEquals([refusal[0], refusal[1]], [id, -32600], line);
    assertStringIncludes(refusal[2], why, line);
  }
});

Deno.test("readLine: a malformed answer gets no answer of its own", () => {
  assertEquals(refusalOf('{"jsonrpc":"2.0","id":1,"result":5}'), "no answer");
  assertEquals(refusalOf('{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}'), "no answer");
});

Deno.test("protocol versions: the same list as the SDK the tests' client comes from", () => {
  assertEquals([...SUPPORTED_PROTOCOL_VERSIONS], [...SDK_VERSIONS]);
});

/** A transport in memory: lines in through `deliver`, answers out by id. */
class MemoryTransport implements MessageTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: JSONRPCMessage[] = [];
  readonly errors: string[] = [];
  readonly #waiting = new Map<unknown, (message: JSONRPCMessage) => void>();

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message);
    if ("id" in message && !("method" in message)) this.#waiting.get(message.id)?.(message);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }

  /** Delivers `message` (jsonrpc added) as a line read from the client. */
  deliver(message: Record<string, unknown>): void {
    const reading = readLine(JSON.stringify({ jsonrpc: "2.0", ...message }));
    if (!("message" in reading)) throw reading.problem;
    this.onmessage?.(reading.message);
  }

  /** Sends request `id` and resolves with its answer. */
  ask(id: number, method: string, params?: unknown): Promise<Record<string, unknown>> {
    const answered = new Promise<JSONRPCMessage>((resolve) => this.#waiting.set(id, resolve));
    this.deliver({ id, method, ...(params === undefined ? {} : { params }) });
    return answered as Promise<never>;
  }
}

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "t", version: "0" },
};

/** A server announcing tools only, connected to a memory transport. */
async function connected(initialize = true) {
  const server = new ProtocolServer({ name: "test", version: "0" }, {
    capabilities: { tools: {} },
  });
  const transport = new MemoryTransport();
  server.onerror = (error) => transport.errors.push(error.message);
  await server.connect(transport);
  if (initialize) await transport.ask(0, "initialize", INITIALIZE);
  return { server, transport };
}

/** Resolves once `signal` is aborted. */
function abortOf(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
}

/** The `error` of an answer, as code and message. */
function errorOf(answer: Record<string, unknown>): { code: number; message: string } {
  assert(answer.error, `an error answer: ${JSON.stringify(answer)}`);
  return answer.error as { code: number; message: string };
}

Deno.test("protocol: version negotiation answers a supported version as asked, else the latest", async () => {
  for (const [asked, answered] of [["2024-11-05", "2024-11-05"], ["1999-01-01", "2025-11-25"]]) {
    const { transport } = await connected(false);
    const init = await transport.ask(1, "initialize", { ...INITIALIZE, protocolVersion: asked });
    assertEquals((init.result as { protocolVersion: string }).protocolVersion, answered);
  }
});

Deno.test("protocol: an unknown method is -32601; a handler's throw keeps its code or is -32603", async () => {
  const { server, transport } = await connected();
  server.handle("tools/list", () => {
    throw new Error("listing broke");
  });
  server.handle("tools/call", () => {
    throw new RpcError(-32002, "no such thing", { hint: 1 });
  });
  assertEquals(errorOf(await transport.ask(1, "no/such")).code, -32601);
  assertStringIncludes(errorOf(await transport.ask(1, "no/such")).message, "no/such");
  assertEquals(errorOf(await transport.ask(2, "tools/list")), {
    code: -32603,
    message: "listing broke",
  });
  const call = await transport.ask(3, "tools/call", { name: "x" });
  assertEquals(call.error, { code: -32002, message: "no such thing", data: { hint: 1 } });
});

Deno.test("protocol: params that do not fit the method are -32602 naming the path", async () => {
  const { server, transport } = await connected();
  server.handle("tools/call", () => ({ content: [] }));
  const cases: [unknown, string][] = [
    [undefined, "params: required (an object)"],
    [{ name: 5 }, "params.name: expected a string, got a number"],
    [{ name: "x", arguments: [1] }, "params.arguments: expected an object, got an array"],
    [{ name: "x", _meta: { progressToken: 1.5 } }, "params._meta.progressToken: expected a"],
    [{ name: "x", task: { ttl: 1 } }, "params.task: this server does not run tools/call as a task"],
    [JSON.parse('{"name":"x","arguments":{"a":{"__proto__":1}}}'), "params.arguments.a.__proto__"],
  ];
  let id = 10;
  for (const [params, message] of cases) {
    const error = errorOf(await transport.ask(id++, "tools/call", params));
    assertEquals(error.code, -32602, message);
    assertStringIncludes(error.message, `invalid tools/call request: ${message}`);
  }
  assert("result" in await transport.ask(id++, "tools/call", { name: "x", more: 1 }));
});

Deno.test("protocol: a cancelled request's handler is aborted with the reason and gets no answer", async () => {
  const { server, transport } = await connected();
  let reason: unknown;
  const ended = Promise.withResolvers<void>();
  server.handle("tools/call", async (_request, extra) => {
    await abortOf(extra.signal);
    reason = extra.signal.reason;
    // Progress after the cancellation is dropped, not sent.
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: 1, progress: 1 },
    });
    ended.resolve();
    return { content: [] };
  });
  transport.deliver({ id: 7, method: "tools/call", params: { name: "x" } });
  transport.deliver({
    method: "notifications/cancelled",
    params: { requestId: 7, reason: "the user stopped" },
  });
  await ended.promise;
  // A macrotask: every microtask of the handler's settling has run.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(reason, "the user stopped");
  assertEquals(transport.sent.filter((m) => "id" in m && m.id === 7 || "method" in m), []);
});

Deno.test("protocol: progress goes out for a running request; the connection's end aborts it", async () => {
  const { server, transport } = await connected();
  const aborted = Promise.withResolvers<boolean>();
  server.handle("tools/call", async (_request, extra) => {
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: extra._meta!.progressToken!, progress: 1, total: 2 },
    });
    await abortOf(extra.signal);
    aborted.resolve(extra.signal.aborted);
    return { content: [] };
  });
  let closed = 0;
  server.onclose = () => closed++;
  transport.deliver({
    id: 8,
    method: "tools/call",
    params: { name: "x", _meta: { progressToken: "p" } },
  });
  assertEquals(transport.sent.at(-1), {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "p", progress: 1, total: 2 },
  });
  await server.close();
  assert(await aborted.promise);
  assertEquals(closed, 1);
  await server.notification({
    method: "notifications/progress",
    params: { progressToken: 1, progress: 1 },
  })
    .then(
      () => assert(false, "sent after the close"),
      (error) => assertStringIncludes(error.message, "not connected"),
    );
});

Deno.test("protocol: capabilities not announced refuse their handlers and notifications", async () => {
  const { server, transport } = await connected();
  let thrown = "";
  try {
    server.handle("resources/read", () => ({ contents: [] }));
  } catch (error) {
    thrown = (error as Error).message;
  }
  assertStringIncludes(thrown, "did not announce resources");
  const refused = await server.sendResourceListChanged().then(() => "", (e: Error) => e.message);
  assertStringIncludes(refused, "did not announce resources");
  assertEquals(transport.sent.filter((m) => "method" in m), []);
});

Deno.test("protocol: an answer to no request of ours and an unknown notification are not answered", async () => {
  const { transport } = await connected();
  const before = transport.sent.length;
  transport.deliver({ id: 99, result: {} });
  transport.deliver({ method: "notifications/roots/list_changed" });
  assertEquals(transport.sent.length, before);
  assertEquals(transport.errors.length, 1);
  assertStringIncludes(transport.errors[0], "an answer to no request of ours");
});
