// Wilson score interval for a binomial proportion: the pass rate's 95% interval, sound for small n and p near 0 or 1.

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/**
 * Wilson score interval of `successes` out of `n` trials; null when n is 0.
 * Unlike the normal approximation it never leaves [0, 1] and is not degenerate at p = 0 or 1.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): { low: number; high: number } | null {
  if (n <= 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At p = 0 and p = 1 the bound is exactly 0 or 1; say so rather than leave 0.9999999999999999.
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}
