/** `set_pane_title`: sets the title tmux shows for a pane. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { callerPane } from "../core/panes.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { paneId, paneView } from "../core/schemas.ts";
import { nameText, withoutValues } from "../domain/workspace.ts";
import { escapeFormat, label } from "../tmux/format.ts";
import { paneTarget } from "../tmux/targets.ts";
import { noSuch } from "../tmux/errors.ts";
import { listPanesCommand, parsePanes } from "../tmux/views.ts";

/** How a pane view cuts its title (tmux/views.ts). */
const TITLE = label("pane_title");

/** The set_pane_title tool. */
export const setPaneTitle = defineTool({
  name: "set_pane_title",
  title: "Set pane title",
  description: "Sets a pane's title, taken literally; empty clears it.",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    paneId,
    title: nameText(1024, 0),
  }),
  output: z.object({ pane: paneView }),
  async handler(args, ctx) {
    // tmux ignores a title with a control character without an error, which
    // would leave the old title under a success.
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(args.title)) {
      throw new ToolError(
        "the title contains a control character (newline, tab, escape), which tmux does not accept",
        "Remove control characters from the title and call again.",
      );
    }
    const [, output] = await withoutValues([args.title], () =>
      ctx.tmux.run([
        ["select-pane", "-t", paneTarget(args.paneId), "-T", escapeFormat(args.title)],
        listPanesCommand({ kind: "pane", paneId: args.paneId }),
      ]));
    const [pane] = parsePanes(output, await callerPane(ctx));
    if (!pane) throw noSuch("pane");
    // tmux also keeps the old title, without an error, for one holding a
    // character its Unicode tables give no width (C1 controls, U+2028,
    // unassigned code points, emoji newer than the tables): the title must
    // read back as asked (views cut long labels the same way; a lone
    // surrogate reaches tmux as U+FFFD).
    if ((pane.title ?? "") !== TITLE.parse(args.title.toWellFormed())) {
      throw new ToolError(
        "tmux kept the pane's previous title: the new one holds a character tmux does not accept " +
          "(a control or unassigned character, or one newer than tmux's Unicode tables, such as a recent emoji)",
        "Replace unusual characters with plain text and call again.",
      );
    }
    return { pane };
  },
});
