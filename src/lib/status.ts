// A block's validation status in words, one table for every place that shows it: the badge (a symbol and a word, so
// it never relies on colour alone), the search filter's label, the result list. `not-run` is what the harness could
// not run (contract/harness.ts) — apart from `failed`, the code's own failure.
import type { BlockStatus } from '../../pipeline/contract/summary.ts';

export const STATUS_BADGE: Record<BlockStatus, string> = {
  passed: '✓ passed',
  failed: '✗ failed',
  'not-run': '◌ not run automatically',
  blocked: '⊘ blocked',
  unvalidated: '– not validated',
};

/** The search filter's labels, in the order the filter lists them. */
export const STATUS_LABELS: ReadonlyMap<BlockStatus, string> = new Map<BlockStatus, string>([
  ['passed', 'passed'],
  ['failed', 'failed'],
  ['not-run', 'not run automatically'],
  ['blocked', 'blocked'],
  ['unvalidated', 'not validated'],
]);

/** What each status means, for a `title` and the stats page. */
export const STATUS_MEANING: Record<BlockStatus, string> = {
  passed: 'built, ran forward and backward in the sandbox',
  failed: 'the code failed: an import, a name, an error of its own on an input it accepts',
  'not-run':
    'the harness could not run it: no constructor arguments found, past the time budget, or an input it could not make; says nothing about the code',
  blocked: 'needs a distribution that was not installed where it was validated',
  unvalidated: 'not validated in this build',
};
