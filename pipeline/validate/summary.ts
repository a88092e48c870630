// Summary of validation records: counts by status, failure class and fidelity, the pass rate with its interval, and
// the distributions blocked blocks need. Failed blocks the harness could not run are counted `not-run` when the
// caller says which (the catalog's status, contract/harness.ts): like blocked ones, they are not attempts.
import { requirementsOf } from './distributions.ts';
import type { ValidationRecord, ValidationSummary } from './types.ts';
import { wilsonInterval } from './wilson.ts';

export function summarize(
  records: ValidationRecord[],
  notRun: (r: ValidationRecord) => boolean = () => false,
): ValidationSummary {
  const out: ValidationSummary = {
    total: records.length,
    byStatus: { passed: 0, failed: 0, 'not-run': 0, blocked: 0, skipped: 0 },
    byFailureClass: {},
    passRate: null,
    interval: null,
    fidelity: { identical: 0, differs: 0, 'n/a': 0 },
    blockedBy: [],
  };
  const needs = new Map<string, number>();
  for (const r of records) {
    out.byStatus[r.status === 'failed' && notRun(r) ? 'not-run' : r.status] += 1;
    if (r.failureClass) out.byFailureClass[r.failureClass] = (out.byFailureClass[r.failureClass] ?? 0) + 1;
    if (r.status === 'passed') out.fidelity[r.fidelity.status] += 1;
    if (r.status === 'blocked')
      for (const q of requirementsOf(r.failureDetail)) needs.set(q.distribution, (needs.get(q.distribution) ?? 0) + 1);
  }
  out.blockedBy = [...needs]
    .map(([distribution, blocks]) => ({ distribution, blocks }))
    .sort((a, b) => b.blocks - a.blocks || (a.distribution < b.distribution ? -1 : 1));
  // Skipped blocks (no sandbox, no CUDA) were never attempted, blocked ones could not be (a distribution is not
  // installed), and not-run ones the harness could not run (no arguments, past the budget, an input it could not
  // make): none is part of the rate.
  const attempts = out.byStatus.passed + out.byStatus.failed;
  if (attempts > 0) {
    out.passRate = out.byStatus.passed / attempts;
    out.interval = wilsonInterval(out.byStatus.passed, attempts);
  }
  return out;
}
