/**
 * English for the counts in messages and descriptions.
 *
 * @module
 */

/** `count` and `noun`, plural unless the count is one: `1 pane`, `0 panes`, `3 panes`. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : plural}`;
}
