/**
 * Validates tool arguments against a closed schema and explains a rejection
 * without echoing the rejected value: an error never repeats what was sent.
 *
 * @module
 */

import type { z } from "zod";
import { ToolError } from "../core/errors.ts";

/** Parses `raw` with `schema`; throws a ToolError naming the argument at fault. */
export function parseArguments<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  // Interpreted: zod would otherwise compile a parser from generated source at
  // each object schema's first parse, slowing each tool's first call
  // (docs/benchmarks.md, "First call"). Asked here, not with z.config, which
  // reaches only schemas built after it: the tools' are built first.
  const result = schema.safeParse(raw ?? {}, { jitless: true });
  if (result.success) return result.data;
  const issues = result.error.issues.filter((issue) =>
    !isImplicitIntegerBound(issue, result.error.issues)
  );
  const problems = issues.slice(0, 3).map((issue) => describeIssue(issue, raw));
  throw new ToolError(
    `invalid arguments: ${problems.join("; ")}`,
    "Fix the arguments as described and call again.",
  );
}

/**
 * zod's integers carry a safe-integer bound of their own; when the schema's
 * bound on the same argument is also broken, only the schema's is worth saying.
 */
function isImplicitIntegerBound(issue: z.core.$ZodIssue, all: z.core.$ZodIssue[]): boolean {
  if (issue.code !== "too_big" && issue.code !== "too_small") return false;
  const bound = Number(issue.code === "too_big" ? issue.maximum : issue.minimum);
  if (Math.abs(bound) !== Number.MAX_SAFE_INTEGER) return false;
  const path = issue.path.join(".");
  return all.some((other) => other !== issue && other.path.join(".") === path);
}

/** The value at `path` inside `raw`, or undefined. */
function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const where = issue.path.length > 0 ? `'${issue.path.join(".")}'` : "the arguments";
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown argument${issue.keys.length > 1 ? "s" : ""} ${
        issue.keys.map((k) => `'${k}'`).join(", ")
      } at ${where}; remove ${issue.keys.length > 1 ? "them" : "it"}`;
    case "invalid_type":
      // zod 4 leaves issue.input empty unless asked, so look at what was sent.
      if (valueAt(raw, issue.path) === undefined) return `${where} is required`;
      // JSON numbers too large for a double (1e400) parse as Infinity.
      if (issue.expected === "number" && typeof valueAt(raw, issue.path) === "number") {
        return `${where} must be a finite number`;
      }
      // zod names an integer check "int".
      return `${where} must be ${article(issue.expected === "int" ? "integer" : issue.expected)}`;
    case "too_small":
      return `${where} ${boundText("at least", issue.minimum, issue.origin)}`;
    case "too_big":
      return `${where} ${boundText("at most", issue.maximum, issue.origin)}`;
    case "invalid_value":
      return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_format":
      // Our regex checks carry their own value-free messages.
      return `${where} ${issue.message}`;
    case "invalid_union": {
      // A discriminated union names what its key may be (the tools a batch can run).
      const options = (issue as { options?: unknown[] }).options;
      return Array.isArray(options) && options.length > 0
        ? `${where} must be one of ${options.map((v) => JSON.stringify(v)).join(", ")}`
        : `${where} does not match any accepted form`;
    }
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
  const one = Number(bound) === 1;
  const unit = origin === "string"
    ? ` character${one ? "" : "s"} long`
    : origin === "array"
    ? ` item${one ? "" : "s"}`
    : "";
  return `must be ${word} ${bound}${unit}`;
}
