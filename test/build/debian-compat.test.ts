// The compatibility path: Debian's torch 1.13 with its torchvision 0.14 (`content/corpus.debian.json` names
// /usr/bin/python3), built end to end through the CLI like the default corpus on torch 2.x. The record says which
// runtime it was (a named interpreter, torch 1.13, no CUDA build), and the blocks pass with exact fidelity.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import { loadConfig } from '../../pipeline/config/load.ts';
import { runCli } from '../../pipeline/cli/main.ts';
import { describeOnDebianTorchvision } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });
const DEBIAN = loadConfig('content/corpus.debian.json');

describeOnDebianTorchvision("Debian's torch 1.13 (corpus.debian.json)", () => {
  let info: BuildInfo;
  const blocks = new Map<string, BlockSpec>();

  beforeAll(async () => {
    const source = DEBIAN.sources[0];
    const config = writeConfig(
      [
        {
          id: source.id,
          kind: 'python',
          distribution: 'torchvision',
          include: ['torchvision/models/resnet.py', 'torchvision/ops/misc.py', 'torchvision/ops/roi_align.py'],
          symbols: ['ResNet', 'Bottleneck', 'SqueezeExcitation', 'RoIAlign'],
        },
      ],
      { python: DEBIAN.python },
    );
    const out = tempDir('nnb-debian-');
    expect(await runCli(['build', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
    info = JSON.parse(readFileSync(join(out, 'build-info.json'), 'utf8')) as BuildInfo;
    for (const f of readdirSync(join(out, 'blocks'))) {
      const spec = JSON.parse(readFileSync(join(out, 'blocks', f), 'utf8')) as BlockSpec;
      blocks.set(spec.name, spec);
    }
  }, 300_000);

  it('records the named interpreter: torch 1.13, torchvision 0.14, a CPU build', () => {
    expect(DEBIAN.python).toBe('/usr/bin/python3');
    expect(info.environment).toMatchObject({ kind: 'named', cuda: null, requirements: [], missing: [] });
    expect(info.environment?.torch).toMatch(/^1\.13/);
    expect(info.environment?.torchvision).toMatch(/^0\.14/);
    expect(info.environment?.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('validates with exact fidelity, compiled ops included', () => {
    for (const name of ['ResNet', 'Bottleneck', 'SqueezeExcitation', 'RoIAlign']) {
      expect(blocks.get(name)?.validation).toMatchObject({ status: 'passed', fidelity: 'exact' });
      expect(blocks.get(name)?.validation?.torchVersion).toMatch(/^1\.13/);
    }
  });
});
