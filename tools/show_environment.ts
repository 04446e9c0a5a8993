/** `show_environment`: names (and, for one name, the value) of tmux environment variables. */

import { z } from "zod";
import { defineTool } from "../core/registry.ts";
import { optionalSession } from "../core/schemas.ts";
import {
  type EnvironmentEntry,
  parseEnvironment,
  showEnvironmentCommand,
} from "../tmux/environment_listing.ts";
import { sessionTarget } from "../tmux/targets.ts";

const SECRET = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;

/** True when a variable's name suggests it holds a secret, so its value is withheld. */
export function isSecretName(name: string): boolean {
  return SECRET.test(name);
}

const variable = z.object({
  name: z.string(),
  hasValue: z.boolean(),
  isRemoved: z.boolean().describe(
    "True when the variable is marked to be removed from new processes.",
  ),
  value: z.string().optional(),
  withheld: z.boolean().describe(
    "True when the value was not returned because the name suggests a secret.",
  ),
});

/** The show_environment tool. */
export const showEnvironment = defineTool({
  name: "show_environment",
  title: "Show environment",
  description:
    "The tmux environment new panes inherit (global or a session's): every name, or one " +
    "name's value; secret-looking ones (KEY, TOKEN...) withheld.",
  capability: {
    toolset: "inspect",
    processReach: "none",
    tmuxEffects: ["observe"],
    outputClasses: ["process-environment"],
    mayExposeSecrets: true,
    mayReturnUntrustedContent: false,
    amplifiesFutureInput: false,
  },
  input: z.strictObject({
    name: z.string().regex(NAME, {
      error: "must be a variable name: letters, digits and underscores",
    }).nullish()
      .describe("Return this variable's value; omit for every name."),
    session: optionalSession("Omit for the global environment."),
  }),
  output: z.object({ variables: z.array(variable) }),
  async handler(args, ctx) {
    const scope = args.session ? ["-t", sessionTarget(args.session)] : ["-g"];
    const name = args.name ?? null;
    let entries: EnvironmentEntry[];
    try {
      entries = parseEnvironment(await ctx.tmux.one(showEnvironmentCommand(scope, name)));
    } catch (error) {
      // tmux reports a name that is not set as an error: that is an empty answer.
      if (name && error instanceof Error && /unknown variable/i.test(error.message)) {
        return { variables: [] };
      }
      throw error;
    }
    return { variables: entries.map((entry) => view(entry, name !== null)) };
  },
});

/** One variable as the tool shows it; the value only when asked for and not a secret. */
function view(entry: EnvironmentEntry, withValue: boolean): z.infer<typeof variable> {
  const withheld = isSecretName(entry.name);
  const shown: z.infer<typeof variable> = {
    name: entry.name,
    hasValue: entry.value !== null,
    isRemoved: entry.value === null,
    withheld,
  };
  if (withValue && entry.value !== null && !withheld) shown.value = entry.value;
  return shown;
}
