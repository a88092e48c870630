// Summary of validation records: counts by status, failure class and fidelity, and the pass rate with its interval.
import type { ValidationRecord, ValidationSummary } from './types.ts';
import { wilsonInterval } from './wilson.ts';

export function summarize(records: ValidationRecord[]): ValidationSummary {
  const out: ValidationSummary = {
    total: records.length,
    byStatus: { passed: 0, failed: 0, skipped: 0 },
    byFailureClass: {},
    passRate: null,
    interval: null,
    fidelity: { identical: 0, differs: 0, 'n/a': 0 },
  };
  for (const r of records) {
    out.byStatus[r.status] += 1;
    if (r.failureClass) out.byFailureClass[r.failureClass] = (out.byFailureClass[r.failureClass] ?? 0) + 1;
    if (r.status === 'passed') out.fidelity[r.fidelity.status] += 1;
  }
  // Skipped blocks (no sandbox, no CUDA) were never attempted, so they are not part of the rate.
  const attempts = out.byStatus.passed + out.byStatus.failed;
  if (attempts > 0) {
    out.passRate = out.byStatus.passed / attempts;
    out.interval = wilsonInterval(out.byStatus.passed, attempts);
  }
  return out;
}
