// The GPU check's comparison (scripts/gpu-compare.ts): two small `validate --json` runs written inline, each case a
// change to one record of run A and the mismatch it must give, and the CLI's exit code, summary JSON and table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checksumsClose, compareRuns, main, runFacts, type RunRecord } from '../../scripts/gpu-compare.ts';
import { writeTree } from '../helpers/tree.ts';

const recipe = { seed: 0, origin: 'inference' as const, kwargs: { inplanes: 16, planes: 16 }, inputs: [] };
function rec(id: string, device: RunRecord['device'], extra: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    status: 'passed',
    failureClass: null,
    fidelity: { status: 'identical' },
    recipe,
    params: 4672,
    outputs: [{ shape: [2, 16, 32, 32], dtype: 'float32', checksum: 12566.999304724857, projection: 3.5 }],
    device,
    ...extra,
  };
}
const failed: Partial<RunRecord> = {
  status: 'failed',
  failureClass: 'needs-arguments',
  recipe: null,
  params: null,
  outputs: [],
};
const cpu = [rec('tv:BasicBlock', 'cpu'), rec('tv:Head', 'cpu', failed)];
const gpu = (change: Partial<RunRecord> = {}) => [rec('tv:BasicBlock', 'cuda', change), rec('tv:Head', 'cuda', failed)];
const tol = { rtol: 1e-3, atol: 1e-5 };
const kinds = (a: RunRecord[]) => compareRuns(a, cpu, tol, { a: 'cuda', b: 'cpu' }).mismatches.map((m) => m.kind);

describe('checksumsClose', () => {
  it.each([
    [12566.99, 12567.0, true], // GPU rounding: 8e-7 relative
    [1000, 1000.9, true], // 9e-4 relative: inside rtol 1e-3
    [1000, 1001.1, false], // 1.1e-3 relative: outside
    [0, 5e-6, true], // a zero-initialised head: atol decides
    [0, 5e-5, false],
    ['nan', 'nan', true], // non-finite checksums are text and must be the same text
    ['nan', 'inf', false],
    ['inf', 1e30, false],
  ] as const)('%s vs %s: close %s', (a, b, close) => {
    expect(checksumsClose(a, b, tol).close).toBe(close);
  });
});

describe('compareRuns', () => {
  it('agrees when only the device and rounding differ', () => {
    const a = gpu({ outputs: [{ shape: [2, 16, 32, 32], dtype: 'float32', checksum: 12567.2, projection: 3.5 }] });
    const c = compareRuns(a, cpu, tol, { a: 'cuda', b: 'cpu' });
    expect(c).toMatchObject({ ok: true, blocks: 2, agree: 2, outputsCompared: 1, mismatches: [], problems: [] });
    expect(c.maxRelDiff).toBeCloseTo(1.6e-5, 6);
  });

  it.each<[string, Partial<RunRecord>, string[]]>([
    // A status and class that differ: a timeout on one device is a finding, not noise.
    ['status', { ...failed, failureClass: 'timeout' }, ['status', 'failure-class', 'recipe']],
    ['fidelity', { fidelity: { status: 'differs', reason: 'outputs' } }, ['fidelity']],
    // Another recipe (time shares set a candidate aside) makes the outputs incomparable: they are not compared.
    ['recipe', { recipe: { ...recipe, kwargs: { inplanes: 32, planes: 32 } } }, ['recipe']],
    ['params', { params: 1 }, ['params']],
    ['shape', { outputs: [{ shape: [2, 16, 16, 16], dtype: 'float32', checksum: 1, projection: 3.5 }] }, ['shape']],
    ['dtype', { outputs: [{ shape: [2, 16, 32, 32], dtype: 'float16', checksum: 12567, projection: 3.5 }] }, ['dtype']],
    [
      'checksum',
      { outputs: [{ shape: [2, 16, 32, 32], dtype: 'float32', checksum: 12600, projection: 3.5 }] },
      ['checksum'],
    ],
    ['output count', { outputs: [] }, ['outputs']],
    // A run asked for cuda that recorded cpu did not test the GPU.
    ['device', { device: 'cpu' }, ['device']],
  ])('reports a different %s', (_what, change, expected) => {
    expect(kinds(gpu(change))).toEqual(expected);
  });

  it('recipes with keys in another order are the same recipe', () => {
    const reordered = { inputs: [], kwargs: { planes: 16, inplanes: 16 }, origin: 'inference' as const, seed: 0 };
    expect(kinds(gpu({ recipe: reordered }))).toEqual([]);
  });

  it('reports blocks only one run has', () => {
    const c = compareRuns([gpu()[0]], cpu, tol);
    expect(c.mismatches).toEqual([{ id: 'tv:Head', kind: 'only-in-b', a: '-', b: 'failed (needs-arguments)' }]);
    expect(c).toMatchObject({ ok: false, blocks: 2, agree: 1 });
  });

  it('a run where every block was skipped is a problem, though the statuses agree', () => {
    const skipped = (d: RunRecord['device']) => [rec('tv:X', d, { status: 'skipped', failureDetail: 'no sandbox' })];
    const c = compareRuns(skipped('cuda'), skipped('cpu'), tol, { a: 'cuda' });
    expect(c.mismatches).toEqual([]);
    expect(c.problems).toEqual([
      'nothing ran in run A: every block skipped (no sandbox)',
      'nothing ran in run B: every block skipped (no sandbox)',
    ]);
    expect(c.ok).toBe(false);
    expect(compareRuns([], [], tol).problems).toEqual(['run A has no records', 'run B has no records']);
  });
});

describe('runFacts', () => {
  it('counts blocks read from the cache (an earlier call) but not in blocks/s', () => {
    const facts = runFacts('cuda', [rec('tv:A', 'cuda', { cached: true }), rec('tv:B', 'cuda')], 2);
    expect(facts).toMatchObject({ device: 'cuda', records: 2, cached: 1, blocksPerSecond: 0.5 });
  });
});

describe('the CLI', () => {
  const doc = (records: RunRecord[]) => JSON.stringify({ summary: {}, sandbox: {}, records, diagnostics: [] });
  function run(a: RunRecord[]) {
    const dir = writeTree({
      'cuda.json': doc(a),
      'cpu.json': doc(cpu),
      'env.json': JSON.stringify({ gpu: 'NVIDIA H100 80GB HBM3', torch: '2.11.0+cu130', cuda: '13.0' }),
    });
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const argv = ['--a', join(dir, 'cuda.json'), '--b', join(dir, 'cpu.json'), '--label-a', 'cuda', '--label-b']
      .concat(['cpu', '--device-a', 'cuda', '--env', join(dir, 'env.json'), '--wall-a', '4', '--wall-b', '8'])
      .concat(['--workers', '16', '--json', join(dir, 'summary.json')]);
    const code = main(argv);
    const text = out.mock.calls.map((c) => String(c[0])).join('');
    out.mockRestore();
    return { code, text, summary: JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) };
  }

  it('exits 0 and records the GPU, the speeds and the workers when the runs agree', () => {
    const { code, text, summary } = run(gpu());
    expect(code).toBe(0);
    expect(summary).toMatchObject({ ok: true, workers: 16, env: { gpu: 'NVIDIA H100 80GB HBM3', cuda: '13.0' } });
    expect(summary.runs[0]).toMatchObject({ label: 'cuda', device: 'cuda', records: 2, wallSeconds: 4 });
    expect(summary.runs[0].blocksPerSecond).toBe(0.5);
    expect(summary.runs[1]).toMatchObject({ label: 'cpu', byStatus: { passed: 1, failed: 1 }, blocksPerSecond: 0.25 });
    expect(text).toContain('GPU check: AGREE — 2 of 2 blocks agree');
    expect(text).toContain('gpu NVIDIA H100 80GB HBM3, torch 2.11.0+cu130, cuda 13.0');
  });

  it('exits 1 and lists each mismatch when they do not', () => {
    const { code, text, summary } = run(gpu({ fidelity: { status: 'n/a' } }));
    expect(code).toBe(1);
    expect(summary.comparison.mismatches).toEqual([
      { id: 'tv:BasicBlock', kind: 'fidelity', a: 'n/a', b: 'identical' },
    ]);
    expect(text).toContain('GPU check: DISAGREE — 1 of 2 blocks agree');
    expect(text).toMatch(/tv:BasicBlock\s+fidelity\s+n\/a\s+identical/);
  });
});
