/**
 * The control-mode floor under the server's tmux work: the same command
 * through a bare control-mode client, one line written and its `%end` read,
 * with nothing around it.
 *
 * @module
 */

import { commandLine } from "../tmux/control_quote.ts";

/** A command waiting for its `%begin`…`%end` block. */
interface Pending {
  lines: string[];
  resolve(lines: string[]): void;
  reject(error: Error): void;
}

/** A raw control-mode client attached to a session: no parsing beyond blocks and `%output`. */
export class ControlFloor {
  private readonly pending: Pending[] = [];
  private block: Pending | undefined;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly encoder = new TextEncoder();
  private readonly reading: Promise<void>;
  /** Called with every `%output` line's pane and text (still octal-escaped, as tmux sends it). */
  onOutput: ((pane: string, text: string) => void) | undefined;

  private constructor(private readonly child: Deno.ChildProcess) {
    this.writer = child.stdin.getWriter();
    this.reading = this.read();
  }

  /** Attaches to `session` on `socketPath`; resolves once tmux answered the attach itself. */
  static async attach(socketPath: string, session: string): Promise<ControlFloor> {
    const child = spawnControlClient(socketPath, session);
    const floor = new ControlFloor(child);
    // tmux answers the attach command with a block of its own.
    await new Promise<string[]>((resolve, reject) =>
      floor.pending.push({ lines: [], resolve, reject })
    );
    return floor;
  }

  /** Writes `args` as one command line; resolves with its output lines, rejects on `%error`. */
  command(args: readonly string[]): Promise<string[]> {
    return this.line(commandLine(args));
  }

  /** Writes a raw command line (commands joined by `;` answer in one block). */
  line(text: string): Promise<string[]> {
    const answer = new Promise<string[]>((resolve, reject) =>
      this.pending.push({ lines: [], resolve, reject })
    );
    this.writer.write(this.encoder.encode(text + "\n")).catch(() => {});
    return answer;
  }

  private async read(): Promise<void> {
    let rest = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const line of lines) this.take(line);
    }
    for (const waiting of this.pending.splice(0)) waiting.reject(new Error("tmux -C ended"));
  }

  private take(line: string): void {
    if (this.block) {
      if (/^%(end|error) \d+ \d+ \d+$/.test(line)) {
        const done = this.block;
        this.block = undefined;
        if (line.startsWith("%end")) done.resolve(done.lines);
        else done.reject(new Error(`tmux: ${done.lines.join(" ")}`));
      } else this.block.lines.push(line);
    } else if (line.startsWith("%begin ")) {
      this.block = this.pending.shift();
    } else if (line.startsWith("%output ")) {
      const space = line.indexOf(" ", 8);
      this.onOutput?.(line.slice(8, space), line.slice(space + 1));
    }
  }

  /** Detaches (stdin closed) and waits for the client to exit. */
  async close(): Promise<void> {
    await this.writer.close().catch(() => {});
    await this.child.status;
    await this.reading;
  }
}

/** A bare `tmux -C attach-session -f ignore-size` client of `session` on `socketPath`. */
export function spawnControlClient(socketPath: string, session: string): Deno.ChildProcess {
  return new Deno.Command("tmux", {
    args: [
      "-S",
      socketPath,
      "-f",
      "/dev/null",
      "-C",
      "attach-session",
      "-f",
      "ignore-size",
      "-t",
      session,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
}
