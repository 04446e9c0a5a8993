/**
 * Our server as the floor benchmark drives it: an SDK client that times
 * each call, keeps the latest answer to each (for the relay floor's
 * stand-in) and reads the server's memory before fixed counts of calls.
 *
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { statusKiB } from "./fixture.ts";
import { callKey } from "./relay_stand_in.ts";

/** VmRSS readings taken before each mark, one every this many calls. */
const RSS_EVERY = 50;
/** Readings per mark. */
export const RSS_READINGS = 10;

/**
 * The client side of our server, counting calls to read its memory before
 * fixed marks: a reading lands anywhere in V8's cycle of garbage and
 * collection, so each mark takes the median of several.
 */
export class Ours {
  calls = 0;
  readonly rss = new Map<number, number[]>();
  /** The latest answer to each call, for the relay floor's stand-in (bench/relay_floor.ts). */
  readonly answers = new Map<string, unknown>();
  /** Reads memory before each of `marks` (counts of calls). */
  constructor(readonly client: Client, readonly pid: number, readonly marks: number[]) {}

  /** The mark the call count is before, when a reading of memory is due there. */
  #mark(): number | undefined {
    if (this.calls % RSS_EVERY !== 0) return undefined;
    const window = RSS_EVERY * RSS_READINGS;
    return this.marks.find((mark) => this.calls <= mark && this.calls > mark - window);
  }

  /** Calls `tool`, failing on an error result; `ms` is the call alone, memory read after it. */
  async call(tool: string, args: Record<string, unknown>) {
    const began = performance.now();
    const result = await this.client.callTool({ name: tool, arguments: args }) as CallToolResult;
    const ms = performance.now() - began;
    if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content)}`);
    this.calls++;
    this.answers.set(callKey(tool, args), result);
    const mark = this.#mark();
    if (mark !== undefined) {
      const readings = this.rss.get(mark) ?? [];
      this.rss.set(mark, [...readings, await statusKiB(this.pid, "VmRSS")]);
    }
    return { result, ms };
  }
}
