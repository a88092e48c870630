// Composite recipes on the installed torchvision (the managed torch 2.14.1 environment): blocks that only a model
// builds with the right arguments pass as parts of the models torchvision's own builders make, replayed on the
// original package for fidelity. The catalog keeps just these blocks (`symbols`); the models they are found in are
// walked through all the same.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { writeConfig } from '../helpers/run.ts';
import { tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

describe('composite recipes on the installed torchvision', () => {
  const blocks = new Map<string, BlockSpec>();

  beforeAll(async () => {
    const config = writeConfig([
      {
        id: 'torchvision',
        kind: 'python',
        distribution: 'torchvision',
        include: ['torchvision/**/*.py'],
        symbols: ['AnchorGenerator', 'IntermediateLayerGetter', 'UpdateBlock', 'RegionProposalNetwork'],
      },
    ]);
    const out = tempDir('nnb-tv-parts-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
    for (const f of readdirSync(join(out, 'blocks'))) {
      const spec = JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec;
      blocks.set(spec.name, spec);
    }
  }, 600_000);

  it.each([
    // forward(image_list: ImageList, feature_maps): what a detector's RPN passes it.
    ['AnchorGenerator', /anchor_generator$/],
    // (model, return_layers): the backbone body of a segmentation or detection model.
    ['IntermediateLayerGetter', /(^|\.)(backbone|body)$/],
    // RAFT's update block: hidden state, context, correlation features and flow from the model's own loop.
    ['UpdateBlock', /^update_block$/],
  ])('%s passes as a part of a builder model, identical to the original', (name, path) => {
    const v = blocks.get(name)!.validation!;
    expect(v.status).toBe('passed');
    expect(v.recipe?.origin).toBe('part');
    expect(v.recipe?.builderModule).toMatch(/^torchvision\.models\./);
    expect(v.recipe?.path).toMatch(path);
    expect(v.fidelity).toBe('exact');
    expect(v.outputs.length).toBeGreaterThan(0);
  });

  it('RegionProposalNetwork builds and runs forward as a part; its backward wants targets, which no input carries', () => {
    const v = blocks.get('RegionProposalNetwork')!.validation!;
    expect(v.status).toBe('failed');
    expect(v.failureClass).toBe('backward-error');
    expect(v.reason?.message).toMatch(/targets should not be None/);
    expect(v.reason?.recipeTried).toMatchObject({ origin: 'part', path: 'rpn' });
    expect(v.outputs.length).toBeGreaterThan(0);
  });
});
