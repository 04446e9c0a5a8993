/** `show_environment`: names (and, for one name, the value) of tmux environment variables. */

import { z } from "zod";
import { defineTool } from "../mcp/registry.ts";
import { optionalSession } from "../mcp/schemas.ts";
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
  description: "Lists the tmux environment (global, or of one session) that new panes inherit. " +
    "Without name only names are returned; with name that variable's value, unless its name suggests a " +
    "secret (KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH), which is withheld.",
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
      .describe("One variable name, which returns its value. Omit for every name without values."),
    session: optionalSession("A session id or name. Omit for the global environment."),
  }),
  output: z.object({ variables: z.array(variable) }),
  async handler(args, ctx) {
    const scope = args.session ? ["-t", sessionTarget(args.session)] : ["-g"];
    const name = args.name ?? null;
    let output: string;
    try {
      output = await ctx.tmux.one(["show-environment", ...scope, ...(name ? [name] : [])]);
    } catch (error) {
      // tmux reports a name that is not set as an error: that is an empty answer.
      if (name && error instanceof Error && /unknown variable/i.test(error.message)) {
        return { variables: [] };
      }
      throw error;
    }
    if (name) return { variables: output === "" ? [] : [parseEntry(output, true)] };
    const variables = output.split("\n").filter((line) => line !== "").map((line) =>
      parseEntry(line, false)
    );
    // A value containing a newline would show up as a stray line; keep only real names.
    return { variables: variables.filter((v) => NAME.test(v.name)) };
  },
});

/** Parses one `show-environment` record (`NAME=value` or `-NAME`). */
function parseEntry(record: string, withValue: boolean): z.infer<typeof variable> {
  const removed = record.startsWith("-");
  const eq = record.indexOf("=");
  const name = removed ? record.slice(1) : eq === -1 ? record : record.slice(0, eq);
  const withheld = isSecretName(name);
  const entry: z.infer<typeof variable> = {
    name,
    hasValue: !removed && eq !== -1,
    isRemoved: removed,
    withheld,
  };
  if (withValue && entry.hasValue && !withheld) entry.value = record.slice(eq + 1);
  return entry;
}
