// Binomial proportions with a 95% Wilson score interval, for pass rates in sources.json and stats.json.
// Wilson rather than the normal approximation because sources are small (n < 30 is common) and rates near 1.
// The interval itself is the validate stage's `wilsonInterval`; this adds the catalog's record shape and rounding.
import { wilsonInterval } from '../validate/wilson.ts';
import type { Proportion } from '../contract/common.ts';

/** Rounded to 6 decimals so the catalog stays byte-stable across platforms' last-bit float differences. */
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

export function wilsonProportion(successes: number, trials: number): Proportion {
  const interval = wilsonInterval(successes, trials);
  if (!interval) return { successes, trials, value: 0, low: 0, high: 0 };
  return {
    successes,
    trials,
    value: round6(successes / trials),
    low: round6(interval.low),
    high: round6(interval.high),
  };
}
