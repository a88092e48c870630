// Instance choices on real upstream code (run/instance-choices.ts): DETR at the commit the taxonomy bench pins, read
// from the local bare mirror (skipped, with the reason printed, where it is absent). Static only: no validation.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blockInstances } from '../../pipeline/run/extract-step.ts';
import { skipBecause } from '../helpers/skip.ts';
import { prepareRun, writeConfig } from '../helpers/run.ts';

const MIRRORS = process.env.NNBLOCKS_MIRRORS ?? '/work/.mirror';
const DETR = join(MIRRORS, 'facebookresearch+detr', 'repo');

describe("DETR's module parameters", () => {
  it('reads what DETR, DETRsegm and SetCriterion ask of their modules, and which blocks of DETR fit', async (ctx) => {
    if (!existsSync(DETR)) skipBecause(ctx, `no mirror at ${DETR}`);
    const config = writeConfig([
      {
        id: 'detr',
        kind: 'git',
        url: `file://${DETR}`,
        ref: '29901c51d7fe8712168b8d0d64351170bc0f83e0',
        include: ['models/**/*.py', 'util/misc.py', 'util/box_ops.py'],
      },
    ]);
    const { ctx: run, p } = await prepareRun(config);
    run.store.close();
    const slots = (name: string) =>
      blockInstances(
        p,
        p.discovered.blocks.find((b) => b.id === `detr:${name}`)!,
      ).map((s) => ({
        ...s,
        choices: s.choices.map((c) => c.name),
      }));
    expect(slots('models.detr.DETR')).toEqual([
      // `backbone.num_channels`, `features, pos = self.backbone(samples)`: BackboneBase (and Backbone, through it)
      // set num_channels but return a dict; Joiner returns (out, pos) but gets num_channels from build_backbone,
      // outside its class. Nothing fits: the page names the parameter.
      { param: 'backbone', config: false, choices: [] },
      // `transformer.d_model`, `self.transformer(...)[0]`.
      { param: 'transformer', config: false, choices: ['Transformer'] },
    ]);
    // `self.matcher(outputs_without_aux, targets)`; `losses` is a list of names (a forward's own `losses = {}`
    // is another variable).
    expect(slots('models.detr.SetCriterion')).toEqual([
      { param: 'matcher', config: false, choices: ['HungarianMatcher'] },
    ]);
    // `self.detr = detr`, `detr.transformer.d_model`, `self.detr.backbone(samples)`.
    expect(slots('models.segmentation.DETRsegm')).toEqual([{ param: 'detr', config: false, choices: ['DETR'] }]);
  }, 120_000);
});
