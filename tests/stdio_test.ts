/**
 * The stdio transport (server/stdio.ts) and the protocol endpoint
 * (server/protocol_server.ts): line framing units, then the raw wire as a
 * client that is not the SDK sees it (bytes split anywhere, CRLF, garbage
 * lines, the initialize handshake, task-augmented calls).
 */

import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { rawServer, TmuxFixture } from "./harness.ts";
import { DenoStdioTransport, LineSplitter } from "../server/stdio.ts";

const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("LineSplitter: lines across chunks, CRLF, a character split between chunks", () => {
  const splitter = new LineSplitter();
  assertEquals(splitter.push(encode("ab")), []);
  assertEquals(splitter.push(encode("c\nde\r\nf")), ["abc", "de"]);
  const euro = encode("€\n");
  assertEquals(splitter.push(euro.subarray(0, 1)), []);
  assertEquals(splitter.push(euro.subarray(1)), ["f€"]);
  assertEquals(splitter.push(encode("\n\n")), ["", ""]);
});

Deno.test("LineSplitter: a line over the limit is dropped and reported once; the next survives", () => {
  const splitter = new LineSplitter(8);
  const first = splitter.push(encode("0123456"));
  assertEquals(first, []);
  const second = splitter.push(encode("789abc"));
  assertEquals(second.length, 1);
  assert(second[0] instanceof Error);
  assertStringIncludes((second[0] as Error).message, "longer than 8 bytes");
  assertEquals(splitter.push(encode("defgh\nok\n")), ["ok"]);
  const inOne = splitter.push(encode("123456789\nyes\n"));
  assertEquals(inOne.length, 2);
  assert(inOne[0] instanceof Error);
  assertEquals(inOne[1], "yes");
});

/** A transport over in-memory streams, with what it delivered. */
function memoryTransport() {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const reader = new ReadableStream<Uint8Array>({ start: (controller) => void (feed = controller) })
    .getReader();
  let pending: Uint8Array = new Uint8Array(0);
  const written: string[] = [];
  const transport = new DenoStdioTransport({
    // Hands out what was fed, at most a buffer's worth per read, as stdin does.
    read: async (buffer) => {
      if (pending.length === 0) {
        const { value, done } = await reader.read();
        if (done) return null;
        pending = value;
      }
      const n = Math.min(buffer.length, pending.length);
      buffer.set(pending.subarray(0, n));
      pending = pending.subarray(n);
      return n;
    },
    // Accept at most 5 bytes per write, so whole-message writing is exercised.
    write: (bytes) => {
      const n = Math.min(bytes.length, 5);
      written.push(new TextDecoder().decode(bytes.subarray(0, n)));
      return Promise.resolve(n);
    },
  });
  const messages: unknown[] = [];
  const errors: string[] = [];
  let closed = 0;
  const firstClose = new Promise<void>((resolve) => {
    transport.onclose = () => {
      closed++;
      resolve();
    };
  });
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => errors.push(error.message);
  return {
    transport,
    feed: () => feed,
    written,
    messages,
    errors,
    firstClose,
    closed: () => closed,
  };
}

Deno.test("DenoStdioTransport: messages in, garbage reported, whole lines out, EOF closes once", async () => {
  const t = memoryTransport();
  await t.transport.start();
  t.feed().enqueue(encode('{"jsonrpc":"2.0","method":"notifications/initialized"}\nnot json\n'));
  t.feed().enqueue(encode('{"jsonrpc":"2.0","id":1,"method":"ping"}'));
  t.feed().enqueue(encode('\r\n{"no":"jsonrpc"}\n'));
  await Promise.all([
    t.transport.send({ jsonrpc: "2.0", id: 1, result: {} }),
    t.transport.send({ jsonrpc: "2.0", method: "notifications/resources/list_changed" }),
  ]);
  // The answers to the two lines that are no message are written in the background.
  const lines = () => t.written.join("").split("\n").length - 1;
  for (let spins = 0; lines() < 4 && spins < 1000; spins++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  t.feed().close();
  await t.firstClose;
  const written = t.written.join("").split("\n").filter((line) => line !== "");
  // Whole lines, in order; each line that is no message got an error answer (id null).
  assertEquals(written.filter((line) => !line.includes('"error"')), [
    '{"jsonrpc":"2.0","id":1,"result":{}}',
    '{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}',
  ]);
  assertEquals(
    written.filter((line) => line.includes('"error"')).map((line) => JSON.parse(line))
      .map((m) => [m.id, m.error.code]),
    [[null, -32700], [null, -32600]],
  );
  assertEquals(t.messages, [
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "ping" },
  ]);
  assertEquals(t.errors.length, 2, `errors: ${t.errors.join(" | ")}`);
  await t.transport.close();
  assertEquals(t.closed(), 1);
});

Deno.test("stdio wire: split bytes, CRLF, a garbage line, initialize, ping, tasks refused", async () => {
  await using fx = await TmuxFixture.start();
  const server = rawServer(["-S", fx.socketPath]);
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "1999-01-01",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    },
  });
  // Three bytes at a time, with a multi-byte character in the client name.
  await server.write(initialize.replace('"raw"', '"raw→client"') + "\r\n", 3);
  const init = await server.answer(1);
  const result = init.result as Record<string, unknown>;
  assertEquals((result.serverInfo as { name: string }).name, "tmux-mcp");
  assert(typeof result.protocolVersion === "string" && result.protocolVersion !== "1999-01-01");
  assert(typeof result.instructions === "string");
  const capabilities = result.capabilities as Record<string, unknown>;
  assert(capabilities.tools && capabilities.resources && capabilities.completions);

  await server.write(
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\nthis is not json\n',
  );
  await server.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  assertEquals((await server.answer(2)).result, {});
  // Lines that are no message are answered, so no client waits on them.
  assertEquals((await server.answer(null)).error, {
    code: -32700,
    message: "Parse error: the line is not JSON",
  });
  await server.write('{"jsonrpc":"2.0","id":20}\n[{"jsonrpc":"2.0","id":21,"method":"ping"}]\n');
  assertEquals(((await server.answer(20)).error as { code: number }).code, -32600);
  assertStringIncludes(JSON.stringify((await server.answer(null)).error), "batches");

  await server.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "list_sessions", arguments: {}, task: { ttl: 1000 } },
    }) + "\n",
  );
  const refused = await server.answer(3);
  assertStringIncludes(JSON.stringify(refused.error), "task");

  // A request that does not fit its method's schema is the client's mistake
  // (-32602, saying what is wrong), not an internal error.
  await server.write(
    '{"jsonrpc":"2.0","id":6,"method":"tools/call"}\n' +
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}\n',
  );
  const noParams = (await server.answer(6)).error as { code: number; message: string };
  assertEquals(noParams.code, -32602);
  assertStringIncludes(noParams.message, "tools/call request: params: ");
  const badName = (await server.answer(7)).error as { code: number; message: string };
  assertEquals(badName.code, -32602);
  assertStringIncludes(badName.message, "params.name: ");

  // Two requests in one write, answered both.
  await server.write(
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}\n' +
      '{"jsonrpc":"2.0","id":5,"method":"no/such"}\n',
  );
  const sessions = (await server.answer(4)).result as {
    structuredContent: { sessions: unknown[] };
  };
  assertEquals(sessions.structuredContent.sessions.length, 1);
  assertEquals((await server.answer(5)).error !== undefined, true);

  await server.hangUp();
  const { code } = await server.child.status;
  const stderr = await new Response(server.child.stderr).text();
  assertEquals(code, 0);
  // The garbage line was reported, once, on stderr; stdout stayed protocol-only.
  assertStringIncludes(stderr, "tmux-mcp: ");
  assert(stderr.split("\n").some((line) => /JSON|Unexpected token/.test(line)), stderr);
});

Deno.test("stdio wire: a __proto__ name is refused by name, at the top of the arguments or inside", async () => {
  await using fx = await TmuxFixture.start();
  const server = rawServer(["-S", fx.socketPath]);
  await server.initialize();
  // Written as text: JSON.stringify of an object literal would drop the key.
  await server.write(
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions",' +
      '"arguments":{"__proto__":1}}}\n' +
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_session",' +
      '"arguments":{"name":"proto","environment":{"__proto__":"x","KEPT":"y"}}}}\n',
  );
  // The SDK's schemas would drop the key silently; the request is refused before them.
  for (const [id, path] of [[2, "arguments"], [3, "arguments.environment"]] as const) {
    const error = (await server.answer(id)).error as { code: number; message: string };
    assertEquals(error.code, -32602);
    assertStringIncludes(
      error.message,
      `invalid tools/call request: params.${path}.__proto__: the name "__proto__" is not accepted`,
    );
  }
  assertEquals(
    await fx.tmux("list-sessions", "-F", "#{session_name}"),
    "main",
    "no session made",
  );
  await server.hangUp();
  assertEquals((await server.child.status).code, 0);
});

Deno.test("stdio wire: only ping is served before initialize, and initialize only once", async () => {
  await using fx = await TmuxFixture.start();
  const server = rawServer(["-S", fx.socketPath]);
  const initialize = (id: number, protocolVersion: string) =>
    server.send({
      id,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
  await server.send({ id: 1, method: "tools/list" });
  await server.send({
    id: 2,
    method: "tools/call",
    params: { name: "list_sessions", arguments: {} },
  });
  await server.send({ id: 3, method: "ping" });
  for (const [id, method] of [[1, "tools/list"], [2, "tools/call"]] as const) {
    const error = (await server.answer(id)).error as { code: number; message: string };
    assertEquals(error?.code, -32600, `${method} before initialize`);
    assertStringIncludes(error.message, `${method} before initialize: send initialize first`);
  }
  assertEquals((await server.answer(3)).result, {});

  await initialize(4, "2025-06-18");
  const init = (await server.answer(4)).result as { protocolVersion: string };
  assertEquals(init.protocolVersion, "2025-06-18");
  await server.send({ method: "notifications/initialized" });
  await server.send({ id: 5, method: "tools/list" });
  assert(((await server.answer(5)).result as { tools: unknown[] }).tools.length > 0);
  // A second initialize would answer another version than the session runs.
  await initialize(6, "2025-03-26");
  const again = (await server.answer(6)).error as { code: number; message: string };
  assertEquals(again?.code, -32600);
  assertStringIncludes(again.message, "already initialized");
  await server.send({ id: 7, method: "ping" });
  assertEquals((await server.answer(7)).result, {});

  await server.hangUp();
  assertEquals((await server.child.status).code, 0);
});
