/**
 * The summary statistics the benchmarks report, and how they time.
 *
 * @module
 */

/** The value at quantile `q` (0 to 1) of `samples`: nearest rank, no interpolation. */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The median of `samples` (the mean of the middle two for an even count). */
export function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** How long `fn` took, in ms. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await fn();
  return performance.now() - began;
}
