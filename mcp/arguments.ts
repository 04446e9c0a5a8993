/**
 * Validates tool arguments against a closed schema and explains a rejection
 * without echoing the rejected value (CONTRACT §4).
 *
 * @module
 */

import type { z } from "zod";
import { ToolError } from "./errors.ts";

/** Parses `raw` with `schema`; throws a ToolError naming the argument at fault. */
export function parseArguments<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 3).map(describeIssue);
  throw new ToolError(
    `invalid arguments: ${problems.join("; ")}`,
    "Fix the arguments as described and call again.",
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.length > 0 ? `'${issue.path.join(".")}'` : "the arguments";
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown argument${issue.keys.length > 1 ? "s" : ""} ${
        issue.keys.map((k) => `'${k}'`).join(", ")
      } at ${where}; remove ${issue.keys.length > 1 ? "them" : "it"}`;
    case "invalid_type":
      return issue.input === undefined
        ? `${where} is required`
        : `${where} must be ${article(issue.expected)}`;
    case "too_small":
      return `${where} ${boundText("at least", issue.minimum, issue.origin)}`;
    case "too_big":
      return `${where} ${boundText("at most", issue.maximum, issue.origin)}`;
    case "invalid_value":
      return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
      // Our regex checks carry their own value-free messages.
      return `${where} ${issue.message}`;
    case "invalid_union":
      return `${where} does not match any accepted form`;
    case "custom":
      return `${where} ${issue.message}`;
    default:
      return `${where} is not valid`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function boundText(word: string, bound: number | bigint, origin: string): string {
  const unit = origin === "string" ? " characters long" : origin === "array" ? " items" : "";
  return `must be ${word} ${bound}${unit}`;
}
