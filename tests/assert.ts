/**
 * The few assertions the tests use. (`@std/assert` lives on JSR, which is
 * not reachable from our machines.)
 *
 * @module
 */

/** Fails with `message` unless `condition` holds. */
export function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

/** Fails unless `actual` and `expected` are deeply equal (compared as JSON). */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${message ? message + ": " : ""}expected ${b}, got ${a}`);
}

/** Fails unless `text` contains `part`. */
export function assertStringIncludes(text: string, part: string, message?: string): void {
  if (!text.includes(part)) {
    throw new Error(
      `${message ? message + ": " : ""}expected to find ${JSON.stringify(part)} in ${
        JSON.stringify(text)
      }`,
    );
  }
}

/** Fails unless `fn` throws an instance of `type` whose message includes `part`. */
export function assertThrows(
  fn: () => unknown,
  type: abstract new (...args: never[]) => Error,
  part?: string,
): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof type)) throw new Error(`expected ${type.name}, got ${String(error)}`);
    if (part && !error.message.includes(part)) {
      throw new Error(
        `expected the error to include ${JSON.stringify(part)}, got ${
          JSON.stringify(error.message)
        }`,
      );
    }
    return;
  }
  throw new Error(`expected ${type.name} to be thrown`);
}

/** The text of the error `fn` rejects with; fails when it resolves. */
export async function rejection(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return String(error);
  }
  throw new Error("expected a rejection");
}

/** Fails unless the promise rejects (with an error mentioning `part`, when given). */
export async function assertRejects(fn: () => Promise<unknown>, part?: string): Promise<void> {
  const text = await rejection(fn);
  if (part && !text.includes(part)) {
    throw new Error(`expected the rejection to include ${JSON.stringify(part)}, got ${text}`);
  }
}

/** The UTF-8 size of `result` as JSON: what a tool result costs on the wire, for budget checks. */
export function wireBytes(result: unknown): number {
  return new TextEncoder().encode(JSON.stringify(result)).length;
}

/** Fails unless `result` takes at most `maxBytes` on the wire; resolves with its size. */
export function assertWithinBytes(result: unknown, maxBytes: number): number {
  const bytes = wireBytes(result);
  assert(bytes <= maxBytes, `the result is ${bytes} bytes, over ${maxBytes}`);
  return bytes;
}
