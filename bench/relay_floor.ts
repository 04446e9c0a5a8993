/**
 * The relay floor: the SDK client, as the benchmark drives our server,
 * talking to bench/relay_stand_in.ts, which sends each call's tmux command
 * line through its own control client and answers with our server's
 * recorded answer. What is left of a call without our server's own work.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { serverArgv, serverEnv } from "../tests/harness.ts";
import type { Answers } from "./relay_stand_in.ts";

const STAND_IN = new URL("./relay_stand_in.ts", import.meta.url).pathname;

/** A stand-in server relaying the recorded calls, and the client talking to it. */
export class RelayFloor {
  private constructor(private readonly client: Client) {}

  /**
   * Starts the stand-in with `answers` (written to `dir`), attached to
   * `session` on `socketPath`, with the start task's V8 flags.
   */
  static async start(
    answers: Answers,
    dir: string,
    socketPath: string,
    session: string,
  ): Promise<RelayFloor> {
    const path = `${dir}/relay_answers.json`;
    await Deno.writeTextFile(path, JSON.stringify(answers));
    const [deno, ...flags] = serverArgv();
    const v8 = flags.filter((flag) => flag.startsWith("--v8-flags="));
    const transport = new StdioClientTransport({
      command: deno,
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        `--allow-read=${path}`,
        "--allow-run=tmux",
        ...v8,
        STAND_IN,
        path,
        socketPath,
        session,
      ],
      env: serverEnv({ DENO_DIR: Deno.env.get("DENO_DIR") ?? "" }),
      stderr: "inherit",
    });
    const client = new Client({ name: "tmux-mcp-bench", version: "0" });
    await client.connect(transport);
    return new RelayFloor(client);
  }

  /** One recorded call, timed from request written to answer parsed. */
  async call(tool: string, args: Record<string, unknown>): Promise<number> {
    const began = performance.now();
    const result = await this.client.callTool({ name: tool, arguments: args }) as CallToolResult;
    const ms = performance.now() - began;
    if (result.isError) throw new Error(`stand-in ${tool}: ${JSON.stringify(result.content)}`);
    return ms;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
