// Per-repository figures and the unblock table of stats.json (pipeline/catalog/figures.ts via statsFile): blocked
// and not-run blocks apart from failed ones and out of the pass rate, import OK from the import stage, the build's abstract and
// extracted counts, and the NN-RAG paper's count matched by repository URL only.
import { describe, expect, it } from 'vitest';
import { checkAgainstSchema } from '../../pipeline/catalog/check-catalog.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { BlockedBy, ValidationRecord } from '../../pipeline/contract/validation.ts';
import { repositoryKey } from '../../pipeline/catalog/paper.ts';
import { wilsonProportion } from '../../pipeline/catalog/proportion.ts';
import { sourcesFile, statsFile } from '../../pipeline/catalog/summary.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';

function snapshot(id: string, over: Partial<SourceSnapshot>, files: number): SourceSnapshot {
  return {
    id,
    kind: 'git',
    priority: 1,
    status: 'unchanged',
    root: `/cache/${id}`,
    importRoot: `/cache/${id}`,
    files: Array.from({ length: files }, (_, i) => ({ path: `m${i}.py`, size: 10 })),
    skipped: [],
    commit: 'a'.repeat(40),
    license: { spdx: 'MIT', method: 'LICENSE file' },
    diagnostics: [],
    ...over,
  };
}

type Outcome = ['passed'] | ['failed', string, boolean] | ['not-run', string] | ['blocked', BlockedBy[]];
const cv2: BlockedBy = { distribution: 'opencv-python', module: 'cv2', known: true };
const scipy: BlockedBy = { distribution: 'scipy', module: 'scipy', known: true };
const ultralytics: BlockedBy = { distribution: 'ultralytics', module: 'ultralytics', known: true };

let n = 0;
/** A spec with only what the summaries read: source, category, validation (import stage passed or not). */
function spec(sourceId: string, outcome: Outcome): BlockSpec {
  const [status] = outcome;
  const imported = status === 'passed' || (status === 'failed' && outcome[2]);
  const validation = {
    status,
    stages: [
      { stage: 'parse', status: 'ok', ms: 1 },
      { stage: 'import', status: imported ? 'ok' : 'failed', ms: 1 },
    ],
    recipe: { seed: 0, kwargs: [], inputs: [] },
    outputs: [],
    params: 0,
    buffers: 0,
    device: 'cpu',
    torchVersion: '1.13.0',
    fidelity: 'not-compared',
    ...(status === 'failed' || status === 'not-run' ? { failureClass: outcome[1], failureDetail: 'x' } : {}),
    ...(status === 'blocked'
      ? {
          failureClass: 'missing-dependency',
          failureDetail: outcome[1].map((b) => b.module).join(', '),
          blockedBy: outcome[1],
        }
      : {}),
  } as ValidationRecord;
  return { id: `${sourceId}:m.B${n++}`, sourceId, categories: ['other'], validation } as BlockSpec;
}

const snapshots = [
  snapshot(
    'vision',
    { url: 'https://github.com/pytorch/vision.git', repository: 'https://github.com/pytorch/vision' },
    12,
  ),
  // A local mirror: no repository URL, so no paper figure (a count is never matched by name).
  snapshot('mmcv', { url: 'file:///work/.mirror/open-mmlab+mmcv/repo' }, 5),
  snapshot('timm', { kind: 'python', repository: 'https://github.com/huggingface/pytorch-image-models' }, 3),
];
const specs = [
  spec('vision', ['passed']),
  spec('vision', ['passed']),
  spec('vision', ['passed']),
  spec('vision', ['failed', 'forward-error', true]),
  spec('vision', ['failed', 'missing-module', false]),
  // The harness found no constructor arguments: neither passed nor failed, and out of the rate.
  spec('vision', ['not-run', 'needs-arguments']),
  spec('vision', ['blocked', [cv2]]),
  spec('vision', ['blocked', [cv2, scipy]]),
  spec('mmcv', ['passed']),
  spec('mmcv', ['blocked', [ultralytics]]),
];
const counts = [
  { sourceId: 'vision', abstract: 2, extracted: 7 },
  { sourceId: 'mmcv', abstract: 0, extracted: 2 },
  { sourceId: 'timm', abstract: 1, extracted: 0 },
];

describe('stats.json per-repository figures', () => {
  const stats = statsFile(specs, snapshots, counts);
  const row = (id: string) => stats.perSource.find((r) => r.sourceId === id)!;

  it('counts one source from files to passed, blocked and not run apart from failed, the rate over attempts only', () => {
    expect(row('vision')).toEqual({
      sourceId: 'vision',
      repository: 'https://github.com/pytorch/vision',
      files: 12,
      blocks: 8,
      abstract: 2,
      extracted: 7,
      validated: 8,
      importOk: 4,
      passed: 3,
      blocked: 2,
      blockedBy: [
        { distribution: 'opencv-python', count: 2 },
        { distribution: 'scipy', count: 1 },
      ],
      failed: 2,
      failedByClass: [
        { failureClass: 'forward-error', count: 1 },
        { failureClass: 'missing-module', count: 1 },
      ],
      notRun: 1,
      notRunByRule: [{ rule: 'needs-arguments', count: 1 }],
      passRate: wilsonProportion(3, 5),
      paper: { repository: 'https://github.com/pytorch/vision', blocks: 156 },
    });
  });

  it("matches the paper's repositories by URL only, and lists every source, blocks or not, sorted by id", () => {
    expect(stats.perSource.map((r) => [r.sourceId, r.paper?.blocks ?? null])).toEqual([
      ['mmcv', null],
      ['timm', 167],
      ['vision', 156],
    ]);
    expect(row('timm')).toMatchObject({ blocks: 0, validated: 0, passRate: null, abstract: 1 });
    expect(repositoryKey('git+https://www.GitHub.com/PyTorch/vision.git/')).toBe('github.com/pytorch/vision');
    expect(repositoryKey('file:///work/.mirror/pytorch+vision/repo')).toBeNull();
  });

  it('leaves abstract and extracted out when the build did not record them', () => {
    expect(statsFile(specs, snapshots).perSource[0]).not.toHaveProperty('abstract');
    expect(statsFile(specs, snapshots).perSource[0]).not.toHaveProperty('extracted');
  });

  it('tables the distributions that would unblock blocks: how many need each, how many it alone unblocks', () => {
    expect(stats.unblock).toEqual([
      { distribution: 'opencv-python', modules: ['cv2'], blocks: 2, alone: 1 },
      { distribution: 'scipy', modules: ['scipy'], blocks: 1, alone: 0 },
      { distribution: 'ultralytics', modules: ['ultralytics'], blocks: 1, alone: 1 },
    ]);
  });

  it('keeps blocked and not-run blocks out of the headline and per-source pass rates and failure causes', () => {
    expect(stats.validation).toEqual({
      validated: 10,
      passed: 4,
      failed: 2,
      notRun: 1,
      blocked: 3,
      passRate: wilsonProportion(4, 6),
    });
    expect(stats.failureCauses.map((f) => f.failureClass).sort()).toEqual(['forward-error', 'missing-module']);
    expect(stats.notRunCauses).toEqual([{ rule: 'needs-arguments', count: 1 }]);
    const vision = sourcesFile(specs, snapshots).sources.find((s) => s.id === 'vision')!;
    expect(vision.counts).toEqual({ blocks: 8, validated: 8, passed: 3, failed: 2, notRun: 1, blocked: 2 });
    expect(vision.passRate).toEqual(wilsonProportion(3, 5));
  });

  it('is what the stats schema accepts', () => {
    expect(checkAgainstSchema('stats', stats, 'stats.json')).toEqual([]);
    expect(checkAgainstSchema('sources', sourcesFile(specs, snapshots), 'sources.json')).toEqual([]);
  });
});
