// A mistyped override ref, end to end: `"norm": "transformer.TwoWayTransformer"` with `refs: ["norm"]`
// names a module nothing provides. The block is not `blocked` by a made-up package "transformer": it fails
// `unresolved-name`, the build reports the override field as a config problem, and stats.json suggests nothing.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import { tempDir } from '../helpers/tree.ts';
import { fixtureCorpus } from './fixture.ts';

describe('a mistyped override ref', () => {
  let out: string;
  let printed = '';

  beforeAll(async () => {
    const { config } = fixtureCorpus();
    const c = JSON.parse(readFileSync(config, 'utf8'));
    c.validate = {
      overrides: { Proj: { kwargs: { dim: 16, norm: 'transformer.TwoWayTransformer' }, refs: ['norm'] } },
    };
    writeFileSync(config, JSON.stringify(c));
    out = tempDir('nnb-refs-');
    const io = () => ({ out: (s: string) => void (printed += s), err: () => {}, isTTY: false, ci: true, json: true });
    await runCli(['build', '--config', config, '--out', out, '--json'], io);
  });

  it('fails the block as an unresolved name, not blocked by a distribution', () => {
    const spec = JSON.parse(readFileSync(join(out, 'blocks', 'tiny.tinynet.blocks.proj.json'), 'utf8'));
    expect(spec.validation).toMatchObject({
      status: 'failed',
      failureClass: 'unresolved-name',
      failureDetail: 'transformer.TwoWayTransformer',
    });
    expect(spec.validation.blockedBy).toBeUndefined();
    const stats = JSON.parse(readFileSync(join(out, 'stats.json'), 'utf8'));
    expect(stats.unblock).toEqual([]);
  });

  it('reports the override field as a config problem', () => {
    const diagnostics = (JSON.parse(printed).diagnostics ?? []) as { code: string; message: string }[];
    const d = diagnostics.find((x) => x.code === 'override-ref-unresolved');
    expect(d?.message).toContain('validate.overrides["Proj"].kwargs.norm');
  });
});
