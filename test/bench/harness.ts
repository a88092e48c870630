// Benchmark harness types: each `test/bench/*.bench.ts` exports `run()` returning measured figures.
// Benchmarks measure; tests assert behaviour. Nothing here fails a build.

export interface Figure {
  /** Issue number the figure answers. */
  issue: number;
  /** What was measured, e.g. 'cold index throughput (torchvision + torch/nn)'. */
  figure: string;
  /** The measured value, formatted for the table (keep units in `unit`). */
  value: number | string;
  unit?: string;
  /** The target as text, e.g. '>= 5 MB/s per core'. */
  target?: string;
  /** Whether the value meets the target; undefined when there is no target. */
  ok?: boolean;
  /** Free-form detail (counts, breakdowns) that goes to the JSON output only. */
  detail?: unknown;
}

export interface BenchModule {
  /** Short name shown in progress lines. */
  name?: string;
  run(): Promise<Figure[]>;
}

/** Median and percentile of a list of numbers (nearest-rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
