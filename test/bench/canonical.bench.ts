// Canonical configurations on real repositories (issue 25; docs/validate.md, "Canonical configurations"): of the
// networks that have a builder, the share that get a canonical configuration published. A block is a *network with
// a builder* when the corpus gives a way to build it at a named configuration — a zero-argument builder function
// (its own module's, as `zeroArgBuilders` chooses them, or a sibling module's, `siblingBuilders`), or a
// configuration in one of its source's config files (`configCandidates`). It *gets a canonical configuration* when
// validation publishes at least one `validation.canonical[]` figure for it. Static mining first, over timm, mmpretrain
// (with mmengine and mmcv for its bases), detectron2 and yolov9; then a deterministic sample of those networks (the
// SAMPLE of each source, evenly spaced by id) is built and validated. Also the static recall on timm: of the classes its
// model files pass to `build_model_with_cfg`, those mined with a builder. `npx tsx test/bench/run.ts canonical`
// (about 10 minutes cold on 2 cores). Skipped without the mirrors.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../pipeline/cli/main.ts';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { siblingBuilders, zeroArgBuilders } from '../../pipeline/run/extract-step.ts';
import { openRun, prepare } from '../../pipeline/run/prepare.ts';
import { configCandidates } from '../../pipeline/validate/recipe-candidates.ts';
import type { Figure } from './harness.ts';

const MIRRORS = '/work/.mirror';
const ISSUE = 25;
/** Networks with a builder validated per source. */
const SAMPLE = Number(process.env.NNB_CANONICAL_SAMPLE ?? 12);

const git = (id: string, mirror: string, commit: string, include: string[], extra: object = {}) => ({
  id,
  kind: 'git',
  url: `file://${MIRRORS}/${mirror}/repo`,
  repository: `https://github.com/${mirror.replace('+', '/')}`,
  ref: commit,
  include,
  exclude: ['**/tests/**', '**/test_*.py'],
  ...extra,
});

const SOURCES = [
  git('timm', 'huggingface+pytorch-image-models', 'aa4b5850c1543fa488abf260f18390eda46cf85d', [
    'timm/layers/**/*.py',
    'timm/models/**/*.py',
  ]),
  // Its configs at the root, and its pure-Python ones inside the package (`dict(type=ResNet, ...)`).
  git(
    'mmpretrain',
    'open-mmlab+mmpretrain',
    'ee7f2e88501f61aa95c742dd5f429f039935ee90',
    ['mmpretrain/models/**/*.py'],
    {
      configs: ['configs/**/*.py', 'mmpretrain/configs/**/*.py'],
    },
  ),
  // mmpretrain's bases (BaseModule) and bricks: resolution only (no block of theirs is counted).
  git(
    'mmengine',
    'open-mmlab+mmengine',
    '254342938d9bde1775c39ea7d5181c5d294026c4',
    ['mmengine/model/base_module.py'],
    {
      symbols: ['__none__'],
      priority: 2,
    },
  ),
  git('mmcv', 'open-mmlab+mmcv', 'a8073c74bf83d62ec36a103f835faa4837fb6585', ['mmcv/cnn/bricks/conv_module.py'], {
    symbols: ['__none__'],
    priority: 2,
  }),
  git('detectron2', 'facebookresearch+detectron2', '02b5c4e295e990042a714712c21dc79b731e8833', [
    'detectron2/modeling/**/*.py',
    'detectron2/layers/**/*.py',
  ]),
  // yolov9 builds its models from yaml (`Model(cfg='yolo.yaml')`): no builder function, no Python config file.
  git('yolov9', 'WongKinYiu+yolov9', '5b1ea9a8b3f0ffe4fe0e203ec6232d788bb3fcff', ['models/**/*.py']),
];
const MEASURED = ['timm', 'mmpretrain', 'detectron2', 'yolov9'];

interface Network {
  id: string;
  source: string;
  /** Its canonical candidates: builders (a sibling module's with its module) and config files. */
  candidates: string[];
}

/** Every non-abstract block with a builder or a config configuration, as the validate step would count them. */
async function networksWithBuilders(config: string): Promise<{ networks: Network[]; blocks: number; recall: object }> {
  const ctx = openRun(config);
  try {
    const p = await prepare(ctx);
    const networks: Network[] = [];
    const blocks = p.discovered.blocks.filter((b) => !b.abstract && MEASURED.includes(b.sourceId));
    for (const b of blocks) {
      const candidates = [
        ...zeroArgBuilders(p, b),
        ...siblingBuilders(p, b).map((f) => `${f.module}.${f.name}`),
        ...configCandidates(p.usage().usageOf(b.id).configs, 8).map((c) => c.config!),
      ];
      if (candidates.length) networks.push({ id: b.id, source: b.sourceId, candidates });
    }
    // timm's recall: the classes its model files name first in `build_model_with_cfg(X, ...)`.
    const passed = new Set<string>();
    for (const mod of p.program.modules)
      if (mod.sourceId === 'timm' && mod.path.startsWith('timm/models/'))
        for (const c of mod.facts.usage.calls)
          if (c.callee === 'build_model_with_cfg' && c.args[0] && 'name' in c.args[0] && !c.args[0].head)
            passed.add(`timm:${mod.module}.${c.args[0].name}`);
    const known = [...passed].filter((id) => blocks.some((b) => b.id === id));
    const found = known.filter((id) => networks.some((n) => n.id === id));
    return {
      networks,
      blocks: blocks.length,
      recall: { passed: known.length, withBuilder: found.length, missing: known.filter((id) => !found.includes(id)) },
    };
  } finally {
    ctx.store.close();
  }
}

export async function run(): Promise<Figure[]> {
  if (!existsSync(MIRRORS))
    return [{ issue: ISSUE, figure: 'canonical configurations', value: `skipped: no ${MIRRORS}` }];
  const dir = mkdtempSync(join(tmpdir(), 'nnb-canonical-'));
  const write = (name: string, symbols?: string[]) => {
    const sources = SOURCES.map((s) => (symbols && MEASURED.includes(s.id) ? { ...s, symbols } : s));
    const path = join(dir, name);
    writeFileSync(
      path,
      JSON.stringify({ name: 'canonical bench', cacheDir: join(dir, 'cache'), maxFileBytes: 1048576, sources }),
    );
    return path;
  };
  const { networks, blocks, recall } = await networksWithBuilders(write('static.json'));
  const bySource = (s: string) => networks.filter((n) => n.source === s);
  // Evenly spaced over each source's networks sorted by id (the first by id would all be timm.layers').
  const spread = <T>(list: T[]) =>
    list.length <= SAMPLE
      ? list
      : Array.from({ length: SAMPLE }, (_, i) => list[Math.floor((i * list.length) / SAMPLE)]);
  const sample = MEASURED.flatMap((s) => spread(bySource(s)));
  const figures: Figure[] = [
    {
      issue: ISSUE,
      figure: `networks with a builder or config configuration, of ${blocks} blocks (${MEASURED.join(', ')})`,
      value: networks.length,
      detail: Object.fromEntries(MEASURED.map((s) => [s, bySource(s).length])),
    },
    {
      issue: ISSUE,
      figure: 'timm: classes passed to build_model_with_cfg that are mined with a builder',
      value: `${(recall as { withBuilder: number }).withBuilder}/${(recall as { passed: number }).passed}`,
      detail: recall,
    },
  ];
  if (!sample.length) return figures;
  const out = join(dir, 'out');
  const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });
  await runCli(
    [
      'build',
      '--config',
      write(
        'sample.json',
        sample.map((n) => n.id),
      ),
      '--out',
      out,
      '--json',
    ],
    quiet,
  );
  const specs = readdirSync(join(out, 'blocks')).map(
    (f) => JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec,
  );
  const got = (id: string) => (specs.find((s) => s.id === id)?.validation?.canonical?.length ?? 0) > 0;
  const withCanonical = sample.filter((n) => got(n.id));
  const share = (100 * withCanonical.length) / sample.length;
  figures.push({
    issue: ISSUE,
    figure: `networks with a builder that get a canonical configuration (sample: ${SAMPLE} per source, evenly spaced by id)`,
    value: Math.round(share * 10) / 10,
    unit: '%',
    target: '>= 80%',
    ok: share >= 80,
    detail: Object.fromEntries(
      MEASURED.map((s) => {
        const in_ = sample.filter((n) => n.source === s);
        return [
          s,
          {
            sampled: in_.length,
            canonical: in_.filter((n) => got(n.id)).length,
            without: in_
              .filter((n) => !got(n.id))
              .map((n) => {
                const v = specs.find((x) => x.id === n.id)?.validation;
                return `${n.id}: ${v?.status ?? 'absent'} ${v?.failureClass ?? ''} (${n.candidates.slice(0, 3).join(', ')})`;
              }),
          },
        ];
      }),
    ),
  });
  return figures;
}
