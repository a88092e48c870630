// Compares two `nnblocks validate --json` runs of the same blocks, a GPU run and a CPU run (scripts/gpu-check.sh):
// per block, the status, failure class, fidelity, recipe, parameter count and output shapes must be equal and the
// output checksums close. Pure functions, plus a small CLI that writes a summary JSON and prints a table.
// Run: node --import tsx scripts/gpu-compare.ts --a cuda.json --b cpu.json [--json summary.json]  (exit 0: all agree)
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { renderTable } from '../pipeline/cli/table.ts';
import type { ValidationRecord } from '../pipeline/validate/types.ts';

/**
 * A checksum is Σ|x| over one output, in float64, and two are close when |a − b| ≤ atol + rtol · max(|a|, |b|).
 * GPU kernels are not bit-identical to CPU ones: other summation orders, and cuDNN convolutions in TF32 (PyTorch's
 * default, `torch.backends.cudnn.allow_tf32`: a 10-bit mantissa, ~5e-4 relative per rounded input). Rounding errors
 * of that size, unbiased, largely cancel in a sum over thousands of elements, so 1e-3 of the sum leaves room for
 * deep blocks while a wrong kernel, a different recipe or a different input (errors of order 1) still fails;
 * atol covers outputs whose sum is zero or nearly (zero-initialised heads).
 */
export interface Tolerance {
  rtol: number;
  atol: number;
}
export const DEFAULT_TOLERANCE: Tolerance = { rtol: 1e-3, atol: 1e-5 };

/** The fields of a record that the comparison reads (tests write only these). */
export type RunRecord = Pick<
  ValidationRecord,
  'id' | 'status' | 'failureClass' | 'fidelity' | 'recipe' | 'params' | 'outputs' | 'device'
> &
  Partial<Pick<ValidationRecord, 'cached' | 'failureDetail'>>;

export type MismatchKind =
  | 'only-in-a'
  | 'only-in-b'
  | 'status'
  | 'failure-class'
  | 'fidelity'
  | 'recipe'
  | 'params'
  | 'outputs'
  | 'shape'
  | 'dtype'
  | 'checksum'
  | 'device';

export interface Mismatch {
  id: string;
  kind: MismatchKind;
  /** What run A and run B recorded, as short text. */
  a: string;
  b: string;
}

export interface Comparison {
  /** Block ids in either run. */
  blocks: number;
  /** Blocks in both runs with no mismatch. */
  agree: number;
  /** Outputs whose checksums were compared (same recipe, shape and dtype, both numbers). */
  outputsCompared: number;
  /** The largest relative checksum difference among them: how near the tolerance the runs came. */
  maxRelDiff: number | null;
  maxRelDiffId: string | null;
  mismatches: Mismatch[];
  /** Problems of a whole run: no records, nothing ran (every block skipped). */
  problems: string[];
  ok: boolean;
}

/** JSON with object keys sorted, so that equal recipes give equal text whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)))
      : v,
  );
}

/** Whether two checksums are close; a non-finite one ('nan', 'inf') must be the same text. */
export function checksumsClose(
  a: number | string,
  b: number | string,
  tol: Tolerance,
): { close: boolean; rel: number | null } {
  if (typeof a !== 'number' || typeof b !== 'number') return { close: a === b, rel: null };
  const diff = Math.abs(a - b);
  const scale = Math.max(Math.abs(a), Math.abs(b));
  return { close: diff <= tol.atol + tol.rtol * scale, rel: scale === 0 ? 0 : diff / scale };
}

const status = (r: RunRecord) => (r.failureClass ? `${r.status} (${r.failureClass})` : r.status);

/** Compares run A (the GPU run) with run B (the CPU run); `device` names the device each run's records must carry. */
export function compareRuns(
  a: RunRecord[],
  b: RunRecord[],
  tol: Tolerance = DEFAULT_TOLERANCE,
  device: { a?: string; b?: string } = {},
): Comparison {
  const byId = (rs: RunRecord[]) => new Map(rs.map((r) => [r.id, r]));
  const [ma, mb] = [byId(a), byId(b)];
  const ids = [...new Set([...ma.keys(), ...mb.keys()])].sort();
  const mismatches: Mismatch[] = [];
  let agree = 0;
  let outputsCompared = 0;
  let maxRelDiff: number | null = null;
  let maxRelDiffId: string | null = null;
  for (const id of ids) {
    const [ra, rb] = [ma.get(id), mb.get(id)];
    const found: Mismatch[] = [];
    const differ = (kind: MismatchKind, x: unknown, y: unknown) => found.push({ id, kind, a: String(x), b: String(y) });
    if (!ra || !rb) {
      mismatches.push({ id, kind: ra ? 'only-in-a' : 'only-in-b', a: ra ? status(ra) : '-', b: rb ? status(rb) : '-' });
      continue;
    }
    for (const [r, want, side] of [
      [ra, device.a, 'a'],
      [rb, device.b, 'b'],
    ] as const) {
      if (want && r.status !== 'skipped' && r.device !== want) {
        const text = `${r.device}, expected ${want}`;
        found.push({ id, kind: 'device', a: side === 'a' ? text : '', b: side === 'b' ? text : '' });
      }
    }
    if (ra.status !== rb.status) differ('status', ra.status, rb.status);
    if (ra.failureClass !== rb.failureClass) differ('failure-class', ra.failureClass ?? '-', rb.failureClass ?? '-');
    if (ra.fidelity.status !== rb.fidelity.status) differ('fidelity', ra.fidelity.status, rb.fidelity.status);
    // Outputs mean something only for the same recipe: a block built or fed otherwise is another computation.
    if (canonical(ra.recipe) !== canonical(rb.recipe)) differ('recipe', canonical(ra.recipe), canonical(rb.recipe));
    else {
      if (ra.params !== rb.params) differ('params', ra.params ?? '-', rb.params ?? '-');
      if (ra.outputs.length !== rb.outputs.length) differ('outputs', ra.outputs.length, rb.outputs.length);
      ra.outputs.slice(0, rb.outputs.length).forEach((oa, i) => {
        const ob = rb.outputs[i];
        if (canonical(oa.shape) !== canonical(ob.shape))
          return differ('shape', `#${i} ${oa.shape}`, `#${i} ${ob.shape}`);
        if (oa.dtype !== ob.dtype) return differ('dtype', `#${i} ${oa.dtype}`, `#${i} ${ob.dtype}`);
        const c = checksumsClose(oa.checksum, ob.checksum, tol);
        if (c.rel !== null) {
          outputsCompared++;
          if (maxRelDiff === null || c.rel > maxRelDiff) [maxRelDiff, maxRelDiffId] = [c.rel, id];
        }
        if (!c.close) {
          const rel = c.rel === null ? '' : ` (rel ${c.rel.toExponential(2)})`;
          differ('checksum', `#${i} ${oa.checksum}`, `#${i} ${ob.checksum}${rel}`);
        }
      });
    }
    if (found.length === 0) agree++;
    mismatches.push(...found);
  }
  const problems: string[] = [];
  for (const [label, rs] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (rs.length === 0) problems.push(`run ${label} has no records`);
    else if (rs.every((r) => r.status === 'skipped'))
      problems.push(`nothing ran in run ${label}: every block skipped (${rs[0].failureDetail ?? 'no reason given'})`);
  }
  const ok = mismatches.length === 0 && problems.length === 0;
  return { blocks: ids.length, agree, outputsCompared, maxRelDiff, maxRelDiffId, mismatches, problems, ok };
}

/** Counts of one run, and its speed when its wall time is known. */
export interface RunFacts {
  label: string;
  device: string | null;
  records: number;
  cached: number;
  byStatus: Record<string, number>;
  byFailureClass: Record<string, number>;
  fidelity: Record<string, number>;
  /** The whole `validate` command: loading the index and extracting the blocks included. */
  wallSeconds: number | null;
  /** Blocks validated (not read from the cache) per second of that wall time. */
  blocksPerSecond: number | null;
}

export function runFacts(label: string, rs: RunRecord[], wallSeconds: number | null = null): RunFacts {
  const count = (key: (r: RunRecord) => string | null) => {
    const out: Record<string, number> = {};
    for (const r of rs) {
      const k = key(r);
      if (k !== null) out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  const ran = rs.find((r) => r.status !== 'skipped');
  return {
    label,
    device: ran?.device ?? null,
    records: rs.length,
    cached: rs.filter((r) => r.cached).length,
    byStatus: count((r) => r.status),
    byFailureClass: count((r) => r.failureClass),
    fidelity: count((r) => (r.status === 'skipped' ? null : r.fidelity.status)),
    wallSeconds,
    // Blocks read from the validation cache (an earlier call on the same machine) took no time: not counted.
    blocksPerSecond: wallSeconds ? Math.round((100 * rs.filter((r) => !r.cached).length) / wallSeconds) / 100 : null,
  };
}

export interface CheckSummary {
  ok: boolean;
  tolerance: Tolerance;
  /** What the GPU check's interpreter said of itself: GPU, torch, CUDA (scripts/gpu-check.sh writes it). */
  env: Record<string, unknown>;
  workers: number | null;
  runs: [RunFacts, RunFacts];
  comparison: Comparison;
}

const MAX_LISTED = 200;

/** The human report: environment, both runs' counts side by side, then every mismatch (at most 200 rows). */
export function renderReport(s: CheckSummary): string {
  const [a, b] = s.runs;
  const e = s.env;
  const lines = [
    `GPU check: ${s.ok ? 'AGREE' : 'DISAGREE'} — ${s.comparison.agree} of ${s.comparison.blocks} blocks agree` +
      ` (rtol ${s.tolerance.rtol}, atol ${s.tolerance.atol})`,
    `gpu ${e.gpu ?? '-'}, torch ${e.torch ?? '-'}, cuda ${e.cuda ?? '-'}, python ${e.pythonVersion ?? '-'},` +
      ` workers ${s.workers ?? '-'}`,
    `outputs compared ${s.comparison.outputsCompared}, largest relative checksum difference ` +
      `${s.comparison.maxRelDiff === null ? '-' : s.comparison.maxRelDiff.toExponential(2)}` +
      `${s.comparison.maxRelDiff ? ` (${s.comparison.maxRelDiffId})` : ''}`,
    '',
  ];
  const keys = (f: (r: RunFacts) => Record<string, number>) => [
    ...new Set([...Object.keys(f(a)), ...Object.keys(f(b))]),
  ];
  const rows: (string | number)[][] = [
    ['device', a.device ?? '-', b.device ?? '-'],
    ['records', a.records, b.records],
    ['cached', a.cached, b.cached],
    ['wall s', a.wallSeconds ?? '-', b.wallSeconds ?? '-'],
    ['blocks/s', a.blocksPerSecond ?? '-', b.blocksPerSecond ?? '-'],
    ...keys((r) => r.byStatus).map((k) => [k, a.byStatus[k] ?? 0, b.byStatus[k] ?? 0]),
    ...keys((r) => r.byFailureClass).map((k) => [`  ${k}`, a.byFailureClass[k] ?? 0, b.byFailureClass[k] ?? 0]),
    ...keys((r) => r.fidelity).map((k) => [`fidelity ${k}`, a.fidelity[k] ?? 0, b.fidelity[k] ?? 0]),
  ];
  lines.push(renderTable(['', a.label, b.label], rows));
  for (const p of s.comparison.problems) lines.push(`PROBLEM: ${p}`);
  const m = s.comparison.mismatches;
  if (m.length) {
    const cut = (t: string) => (t.length > 70 ? `${t.slice(0, 67)}...` : t);
    lines.push(`${m.length} mismatch(es):`);
    lines.push(
      renderTable(
        ['block', 'what', a.label, b.label],
        m.slice(0, MAX_LISTED).map((x) => [x.id, x.kind, cut(x.a), cut(x.b)]),
      ),
    );
    if (m.length > MAX_LISTED) lines.push(`... and ${m.length - MAX_LISTED} more in the summary JSON`);
  }
  return lines.join('\n') + '\n';
}

/** The records of a `validate --json` document; throws (our input, not upstream's) when it is not one. */
export function readRecords(text: string, file: string): RunRecord[] {
  const doc = JSON.parse(text) as { records?: unknown };
  if (!Array.isArray(doc.records)) throw new Error(`${file}: not \`nnblocks validate --json\` output (no records)`);
  return doc.records as RunRecord[];
}

export function main(argv: string[]): number {
  const s = { type: 'string' } as const;
  const { values: o } = parseArgs({
    args: argv,
    options: {
      a: s,
      b: s,
      'label-a': s,
      'label-b': s,
      'device-a': s,
      'device-b': s,
      rtol: s,
      atol: s,
      env: s,
      'wall-a': s,
      'wall-b': s,
      workers: s,
      json: s,
    },
  });
  if (!o.a || !o.b) {
    process.stderr.write('usage: gpu-compare.ts --a GPU.json --b CPU.json [--rtol R --atol A --json OUT ...]\n');
    return 2;
  }
  const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
  const tolerance = { rtol: num(o.rtol) ?? DEFAULT_TOLERANCE.rtol, atol: num(o.atol) ?? DEFAULT_TOLERANCE.atol };
  const [ra, rb] = [readRecords(readFileSync(o.a, 'utf8'), o.a), readRecords(readFileSync(o.b, 'utf8'), o.b)];
  const comparison = compareRuns(ra, rb, tolerance, { a: o['device-a'], b: o['device-b'] });
  const summary: CheckSummary = {
    ok: comparison.ok,
    tolerance,
    env: o.env ? (JSON.parse(readFileSync(o.env, 'utf8')) as Record<string, unknown>) : {},
    workers: num(o.workers),
    runs: [runFacts(o['label-a'] ?? 'A', ra, num(o['wall-a'])), runFacts(o['label-b'] ?? 'B', rb, num(o['wall-b']))],
    comparison,
  };
  if (o.json) writeFileSync(o.json, JSON.stringify(summary, null, 2) + '\n');
  process.stdout.write(renderReport(summary));
  return summary.ok ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main(process.argv.slice(2));
