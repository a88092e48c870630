// Pure functions of the validate stage: the Wilson interval and the summary of records.
import { describe, expect, it } from 'vitest';
import { summarize } from '../../pipeline/validate/summary.ts';
import { settled } from '../../pipeline/validate/validate.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { wilsonInterval } from '../../pipeline/validate/wilson.ts';

describe('wilsonInterval', () => {
  it('matches published values', () => {
    // 81 of 263 (Wilson 1927 style example; R: prop.test(81, 263, correct = FALSE)$conf.int = 0.2553, 0.3662).
    const i = wilsonInterval(81, 263)!;
    expect(i.low).toBeCloseTo(0.2553, 3);
    expect(i.high).toBeCloseTo(0.3662, 3);
  });

  it('stays inside [0, 1] and is not degenerate at 0 or n successes', () => {
    const none = wilsonInterval(0, 10)!;
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 3);
    const all = wilsonInterval(10, 10)!;
    expect(all.high).toBe(1);
    expect(all.low).toBeCloseTo(0.7225, 3);
  });

  it('has no interval without trials', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
  });
});

function record(
  status: ValidationRecord['status'],
  failureClass: ValidationRecord['failureClass'] = null,
  fidelity: ValidationRecord['fidelity']['status'] = 'n/a',
): ValidationRecord {
  return {
    id: `${status}-${failureClass}-${Math.random()}`,
    status,
    failureClass,
    failureDetail: null,
    stages: [],
    recipe: null,
    outputs: [],
    params: null,
    buffers: null,
    gradients: null,
    peakMemoryBytes: null,
    device: 'cpu',
    gpuName: null,
    torchVersion: null,
    moduleTree: null,
    fidelity: { status: fidelity },
    stdoutTail: '',
    stderrTail: '',
    cached: false,
  };
}

describe('summarize', () => {
  it('counts by status, failure class and fidelity; skipped blocks are not attempts', () => {
    const s = summarize([
      record('passed', null, 'identical'),
      record('passed', null, 'identical'),
      record('passed'),
      record('failed', 'timeout'),
      record('failed', 'missing-module'),
      record('failed', 'missing-module'),
      record('skipped'),
    ]);
    expect(s.total).toBe(7);
    expect(s.byStatus).toEqual({ passed: 3, failed: 3, 'not-run': 0, blocked: 0, skipped: 1 });
    expect(s.byFailureClass).toEqual({ timeout: 1, 'missing-module': 2 });
    expect(s.passRate).toBe(0.5);
    expect(s.interval).toEqual(wilsonInterval(3, 6));
    expect(s.fidelity).toEqual({ identical: 2, differs: 0, 'n/a': 1 });
  });

  it('counts failed blocks the harness could not run as not-run, out of the rate, when told which', () => {
    const records = [record('passed'), record('failed', 'forward-error'), record('failed', 'needs-arguments')];
    const s = summarize(records, (r) => r.failureClass === 'needs-arguments');
    expect(s.byStatus).toEqual({ passed: 1, failed: 1, 'not-run': 1, blocked: 0, skipped: 0 });
    expect(s.passRate).toBe(0.5);
    expect(s.byFailureClass).toEqual({ 'forward-error': 1, 'needs-arguments': 1 });
  });

  it('keeps blocked blocks (a distribution not installed) out of the rate, and counts what they need', () => {
    const blocked = (detail: string) => ({ ...record('blocked', 'missing-dependency'), failureDetail: detail });
    const s = summarize([
      record('passed'),
      record('failed', 'forward-error'),
      blocked('cv2'),
      blocked('cv2, scipy'),
      blocked('ultralytics'),
    ]);
    expect(s.byStatus).toEqual({ passed: 1, failed: 1, 'not-run': 0, blocked: 3, skipped: 0 });
    expect(s.passRate).toBe(0.5);
    expect(s.interval).toEqual(wilsonInterval(1, 2));
    expect(s.blockedBy).toEqual([
      { distribution: 'opencv-python', blocks: 2 },
      { distribution: 'scipy', blocks: 1 },
      { distribution: 'ultralytics', blocks: 1 },
    ]);
  });

  it('turns a missing-dependency failure into blocked, and nothing else', () => {
    expect(settled(record('failed', 'missing-dependency')).status).toBe('blocked');
    expect(settled(record('failed', 'missing-module')).status).toBe('failed');
    expect(settled(record('passed')).status).toBe('passed');
  });

  it('has no rate when nothing was attempted', () => {
    expect(summarize([record('skipped')])).toMatchObject({ passRate: null, interval: null });
  });
});
