/** `paste_text`: pastes (multi-line) text into a pane through a private tmux buffer. */

import { z } from "zod";
import { utf8Length } from "../core/budget.ts";
import { ToolError } from "../core/errors.ts";
import { sendInput } from "../domain/input.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId } from "../core/schemas.ts";
import { chunkText } from "../tmux/chunks.ts";
import type { Tmux } from "../tmux/client.ts";
import { paneTarget } from "../tmux/targets.ts";

/** Largest text accepted (UTF-8 bytes). */
const MAX_PASTE_BYTES = 1_000_000;

/** The paste_text tool. */
export const pasteText = defineTool({
  name: "paste_text",
  title: "Paste text",
  description:
    "Pastes text (any lines) into a pane as one paste, bracketed if the program asks: a " +
    "shell runs nothing until Enter.",
  capability: changesTmux("execute", ["change"], { processReach: "pane-input" }),
  input: z.strictObject({
    paneId,
    text: z.string().min(1).max(MAX_PASTE_BYTES).describe(
      "Each line break (\\n, \\r\\n or \\r) is one Enter.",
    ),
    bracketed: z.boolean().nullish().default(true),
    enter: z.boolean().nullish().default(false),
  }),
  output: z.object({
    paneId: z.string(),
    bytes: z.int().describe("UTF-8 bytes pasted (each line break counted as one byte)."),
  }),
  async handler(args, ctx) {
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]/.test(args.text)) {
      throw new ToolError(
        "the text contains a control character other than tab, newline or carriage return " +
          "(an escape sequence could end the bracketed paste early)",
        "Remove those characters; send control keys with send_keys keys.",
      );
    }
    // tmux's paste turns every \n into \r, so a \r\n would arrive as two
    // Enters (a blank line that ends a Python block); a lone \r already
    // arrives as one, the line break of old Mac text.
    const text = args.text.replace(/\r\n?/g, "\n");
    const bytes = utf8Length(text);
    if (bytes > MAX_PASTE_BYTES) {
      throw new ToolError(
        `the text is ${bytes} bytes, more than the ${MAX_PASTE_BYTES} a paste may carry`,
        "Paste it in parts.",
      );
    }
    const target = paneTarget(args.paneId);
    const buffer = `tmux-mcp-paste-${crypto.randomUUID()}`;
    // Enter goes as a paste of its own, outside the brackets: a pressed key
    // is copied into every synchronized pane of the window, a paste (in tmux
    // 3.3a) is not, so an Enter key would end a half-typed line in a pane
    // the text never reached. paste-buffer turns the \n into \r, the byte
    // the Enter key sends.
    const enterBuffer = args.enter ? `${buffer}-enter` : null;
    const buffers = enterBuffer ? [buffer, enterBuffer] : [buffer];
    const paste = (name: string, bracketed: boolean) => [
      // -d deletes the buffer once pasted.
      "paste-buffer",
      "-d",
      ...(bracketed ? ["-p"] : []),
      "-b",
      name,
      "-t",
      target,
    ];
    const [first, ...rest] = chunkText(text);
    try {
      await sendInput(ctx, args.paneId, {
        setup: [
          ["set-buffer", "-b", buffer, "--", first],
          ...rest.map((chunk) => ["set-buffer", "-a", "-b", buffer, "--", chunk]),
          ...(enterBuffer ? [["set-buffer", "-b", enterBuffer, "--", "\n"]] : []),
        ],
        input: [
          paste(buffer, args.bracketed ?? true),
          ...(enterBuffer ? [paste(enterBuffer, false)] : []),
        ],
        refused: buffers.map((name) => ["delete-buffer", "-b", name]),
      });
    } catch (error) {
      await dropBuffers(ctx.tmux, buffers);
      throw error;
    }
    return { paneId: args.paneId, bytes };
  },
  render: (r) => `pasted ${r.bytes} bytes into pane ${r.paneId}`,
});

/** Deletes those of `buffers` a failed paste left behind. */
async function dropBuffers(tmux: Tmux, buffers: string[]): Promise<void> {
  const names = await tmux.one(["list-buffers", "-F", "#{buffer_name}"]).catch(() => null);
  // Without an answer from tmux (server gone), there is no buffer left to delete.
  if (names === null) return;
  const left = buffers.filter((buffer) => names.split("\n").includes(buffer));
  if (left.length > 0) await tmux.run(left.map((buffer) => ["delete-buffer", "-b", buffer]));
}
