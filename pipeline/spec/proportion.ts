// Binomial proportions with a 95% Wilson score interval, for pass rates in sources.json and stats.json.
// Wilson rather than the normal approximation because sources are small (n < 30 is common) and rates near 1.
import type { Proportion } from './catalog-types.ts';

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/** Rounded to 6 decimals so the catalog stays byte-stable across platforms' last-bit float differences. */
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

export function wilsonProportion(successes: number, trials: number, z = Z95): Proportion {
  if (trials === 0) return { successes, trials, value: 0, low: 0, high: 0 };
  const p = successes / trials;
  const z2 = z * z;
  const denom = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denom;
  return {
    successes,
    trials,
    value: round6(p),
    low: round6(Math.max(0, centre - half)),
    high: round6(Math.min(1, centre + half)),
  };
}
