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

/** Fails unless the promise rejects. */
export async function assertRejects(fn: () => Promise<unknown>, part?: string): Promise<void> {
  try {
    await fn();
  } catch (error) {
    if (part && !String(error).includes(part)) {
      throw new Error(
        `expected the rejection to include ${JSON.stringify(part)}, got ${String(error)}`,
      );
    }
    return;
  }
  throw new Error("expected a rejection");
}
