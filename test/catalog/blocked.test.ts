// A blocked block in the catalog: status `blocked`, class `missing-dependency`, and `blockedBy` naming
// what to install. The schema holds the three together, and holds the names to names: they come from a sandboxed
// run (hostile) and the site shows them ("blocked: needs opencv-python").
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { blockSummary } from '../../pipeline/contract/summary.ts';
import { checkAgainstSchema } from '../../pipeline/catalog/check-catalog.ts';
import { toCatalog } from '../../pipeline/catalog/validation-record.ts';
import type { ValidationRecord } from '../../pipeline/validate/types.ts';
import { makeCatalog } from '../site/fixtures/make-catalog.ts';

const work = mkdtempSync(join(tmpdir(), 'nnblocks-blocked-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const catalog = makeCatalog({ dir: join(work, 'c'), blocks: 40 });
const blocked = (): BlockSpec =>
  JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${catalog.blocked.slug}.json`), 'utf8')) as BlockSpec;
const errors = (spec: BlockSpec) => checkAgainstSchema('block', spec, 'block');

describe('a blocked block', () => {
  it('is valid with its class and what it needs, and is blocked in listings', () => {
    const spec = blocked();
    expect(spec.validation).toMatchObject({ status: 'blocked', failureClass: 'missing-dependency' });
    expect(spec.validation!.blockedBy![0]).toEqual({ distribution: 'opencv-python', module: 'cv2', known: true });
    expect(errors(spec)).toEqual([]);
    expect(blockSummary(spec).status).toBe('blocked');
  });

  it.each([
    ['without blockedBy', (s: BlockSpec) => delete s.validation!.blockedBy],
    ['with another class', (s: BlockSpec) => (s.validation!.failureClass = 'missing-module')],
    ['without a class', (s: BlockSpec) => delete s.validation!.failureClass],
    ['naming a distribution that is markup', (s: BlockSpec) => (s.validation!.blockedBy![0].distribution = '<b>x</b>')],
    ['naming a module that is a path', (s: BlockSpec) => (s.validation!.blockedBy![0].module = '/etc/passwd')],
    ['as a failed block that names what it needs', (s: BlockSpec) => (s.validation!.status = 'failed')],
  ])('is refused %s', (_name, spoil) => {
    const spec = blocked();
    spoil(spec);
    expect(errors(spec)).not.toEqual([]);
  });

  it("comes from a runner record of class missing-dependency, the modules' distributions named", () => {
    const rec = {
      id: 'x:m.B',
      status: 'blocked',
      failureClass: 'missing-dependency',
      failureDetail: 'cv2, yaml, nnb_unknown_q',
      stages: [{ stage: 'import', status: 'failed', ms: 3 }],
      recipe: null,
      outputs: [],
      params: null,
      buffers: null,
      gradients: null,
      peakMemoryBytes: null,
      device: 'cpu',
      gpuName: null,
      torchVersion: '1.13.0',
      moduleTree: null,
      fidelity: { status: 'n/a' },
      stdoutTail: '',
      stderrTail: '',
      cached: false,
    } as ValidationRecord;
    const v = toCatalog(rec);
    expect(v.status).toBe('blocked');
    expect(v.blockedBy).toEqual([
      { distribution: 'nnb_unknown_q', module: 'nnb_unknown_q', known: false },
      { distribution: 'opencv-python', module: 'cv2', known: true },
      { distribution: 'PyYAML', module: 'yaml', known: true },
    ]);
    expect(toCatalog({ ...rec, status: 'failed', failureClass: 'missing-module' }).blockedBy).toBeUndefined();
  });
});
