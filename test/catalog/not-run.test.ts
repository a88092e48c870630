// A block the harness could not run, from the runner's record to the catalog: `not-run`, apart from `failed`, by the
// table in contract/harness.ts; the schema holds it to a class and a reason like a failed block, and checkCatalog
// refuses a status the table disagrees with.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAgainstSchema, checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { toCatalog } from '../../pipeline/catalog/validation-record.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { makeCatalog } from '../site/fixtures/make-catalog.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';

/** A runner record that failed in `stage` with `error` (`Type: message`, or how the run ended). */
function failed(failureClass: string, stage: string, error: string): ValidationRecord {
  return {
    id: 'x:m.B',
    status: 'failed',
    failureClass,
    failureDetail: null,
    stages: [
      { stage: 'import', status: 'passed', ms: 3 },
      ...(stage === 'import' ? [] : [{ stage: 'build', status: stage === 'build' ? 'failed' : 'passed', ms: 3 }]),
      ...(stage === 'forward' ? [{ stage: 'forward', status: 'failed', ms: 3 }] : []),
    ].map((s) => (s.stage === stage ? { ...s, status: 'failed', error } : s)),
    recipe: null,
    outputs: [],
    params: null,
    buffers: null,
    gradients: null,
    peakMemoryBytes: null,
    device: 'cpu',
    gpuName: null,
    torchVersion: '2.14.1',
    moduleTree: null,
    fidelity: { status: 'n/a' },
    stdoutTail: '',
    stderrTail: '',
    cached: false,
  } as unknown as ValidationRecord;
}

describe('not run automatically, in the catalog', () => {
  it.each([
    [
      'needs-arguments',
      'build',
      "TypeError: FasterRCNN.__init__() missing 1 required positional argument: 'backbone'",
      'not-run',
    ],
    ['timeout', 'forward', 'killed at the deadline during forward without reporting a result', 'not-run'],
    ['forward-error', 'forward', 'ValueError: not enough values to unpack (expected 3, got 2)', 'not-run'],
    ['forward-error', 'forward', 'RuntimeError: this block always fails', 'failed'],
    ['forward-error', 'forward', "AttributeError: 'Block' object has no attribute 'proj'", 'failed'],
    ['compile', 'import', 'ZeroDivisionError: division by zero', 'failed'],
  ])('%s in %s (%s) is %s', (cls, stage, error, status) => {
    const v = toCatalog(failed(cls, stage, error));
    expect(v.status).toBe(status);
    // Either way it keeps its class and neutral reason, and has no replay recipe.
    expect(v.failureClass).toBe(cls);
    expect(v.reason?.stage).toBe(stage);
    expect(v.recipe).toBeUndefined();
  });
});

describe('the catalog holds not-run to the table', () => {
  const work = mkdtempSync(join(tmpdir(), 'nnblocks-not-run-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  const catalog = makeCatalog({ dir: join(work, 'c'), blocks: 40 });
  const blockFiles = () => readdirSync(join(catalog.dir, 'blocks')).map((f) => join(catalog.dir, 'blocks', f));
  const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as BlockSpec;

  it('checks clean with not-run blocks, which keep their class and reason', () => {
    const notRun = blockFiles()
      .map(read)
      .filter((s) => s.validation?.status === 'not-run');
    expect(notRun.length).toBeGreaterThan(0);
    for (const s of notRun) expect(checkAgainstSchema('block', s, s.slug)).toEqual([]);
    expect(checkCatalog(catalog.dir).errors).toEqual([]);
  });

  it.each([
    ['a not-run block shown as failed', 'not-run', 'failed'],
    ['a failed block shown as not run', 'failed', 'not-run'],
  ] as const)('refuses %s', (_name, from, to) => {
    const copy = join(work, `copy-${from}`);
    cpSync(catalog.dir, copy, { recursive: true });
    const file = readdirSync(join(copy, 'blocks'))
      .map((f) => join(copy, 'blocks', f))
      .find((f) => read(f).validation?.status === from)!;
    const spec = read(file);
    spec.validation!.status = to;
    writeFileSync(file, JSON.stringify(spec));
    expect(checkCatalog(copy).errors.join('\n')).toMatch(/disagrees with the harness table/);
  });

  it('refuses a not-run block without a reason, like a failed one', () => {
    const spec = blockFiles()
      .map(read)
      .find((s) => s.validation?.status === 'not-run')!;
    delete spec.validation!.reason;
    expect(checkAgainstSchema('block', spec, spec.slug)).not.toEqual([]);
  });
});
