/** `rename_session`: gives a session a new name. */

import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { changesTmux, defineTool } from "../core/registry.ts";
import { session, sessionView } from "../core/schemas.ts";
import { sessionName, withoutValues } from "../domain/workspace.ts";
import { escapeFormat } from "../tmux/format.ts";
import { sessionTarget, sessionWindowTarget } from "../tmux/targets.ts";
import { findSession, listSessionsCommand, parseSessions } from "../tmux/views.ts";

/** The rename_session tool. */
export const renameSession = defineTool({
  name: "rename_session",
  title: "Rename session",
  description: "Renames a session; tmux stores ':' and '.' as '_' (the result shows the name " +
    "stored).",
  capability: changesTmux("manage", ["change"]),
  input: z.strictObject({
    session,
    newName: sessionName(),
  }),
  output: z.object({ session: sessionView }),
  async handler(args, ctx) {
    const target = sessionTarget(args.session);
    // The id first: after the rename the old name no longer finds the session.
    // (display-message prints nothing for a missing target; rename then fails.)
    const [id, , sessions] = await withoutValues(
      [args.newName],
      () =>
        ctx.tmux.run([
          // A pane target: a name needs the "=name:" form there.
          ["display-message", "-p", "-t", sessionWindowTarget(args.session), "#{session_id}"],
          // "--": a name may start with "-", which tmux would read as flags.
          ["rename-session", "-t", target, "--", escapeFormat(args.newName)],
          listSessionsCommand(),
        ]),
      [[
        /duplicate session/,
        new ToolError(
          "another session already has that name (tmux stores ':' and '.' as '_')",
          "Pick a different name, or rename or kill the other session first.",
        ),
      ]],
    );
    ctx.topologyChanged();
    return { session: findSession(parseSessions(sessions), id) };
  },
});
