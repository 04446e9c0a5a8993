/** `send_keys`: types literal text and/or named keys into a pane. */

import { z } from "zod";
import {
  alsoSentTo,
  alsoSentToText,
  checkTyping,
  describeTyping,
  typingCommands,
  typingFields,
} from "../domain/keys.ts";
import { sendInput } from "../domain/input.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId } from "../core/schemas.ts";

/** The send_keys tool. */
export const sendKeys = defineTool({
  name: "send_keys",
  title: "Send keys",
  description:
    "Types text literally, then tmux keys, then Enter if enter. For a command's status " +
    "and output use run_shell_command; for multi-line text, paste_text.",
  capability: changesTmux("execute", ["change"], { processReach: "pane-input" }),
  input: z.strictObject({
    paneId,
    ...typingFields,
    enter: z.boolean().nullish().default(false),
  }),
  output: z.object({
    paneId: z.string(),
    sent: z.string().describe("What was sent, without repeating the text."),
    alsoSentTo,
  }),
  async handler(args, ctx) {
    checkTyping(args, "", ctx.tmux.version);
    const copies = await sendInput(ctx, args.paneId, {
      input: typingCommands(args.paneId, args),
      reportCopies: true,
    });
    return { paneId: args.paneId, sent: describeTyping(args), alsoSentTo: copies };
  },
  render: (r) => `sent to pane ${r.paneId}: ${r.sent}${alsoSentToText(r.alsoSentTo)}`,
});
