// `nnblocks extract --all` on the installed torchvision (the managed environment's 0.29.1): one package, every
// upstream module written once at its own path, every block importing from it with torchvision itself blocked, and
// blocks extracted together sharing their classes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import type { ManifestEntry } from '../../pipeline/assemble/extract.ts';
import { importInFreshPython } from '../helpers/python.ts';
import { writeConfig } from '../helpers/run.ts';
import { tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

describe('extract --all of the installed torchvision as one package', () => {
  const out = tempDir('nnb-tv-pkg-');
  let manifest: { package: string; blocks: ManifestEntry[] };

  beforeAll(async () => {
    const config = writeConfig([
      { id: 'torchvision', kind: 'python', distribution: 'torchvision', include: ['torchvision/**/*.py'] },
    ]);
    expect(await runCli(['extract', '--all', '--config', config, '--out', out, '--json'], quiet)).toBe(0);
    manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  }, 300_000);

  it('names each block by its upstream module, in one package; no module merged with another', () => {
    expect(manifest.package).toBe('blocks');
    expect(manifest.blocks.length).toBeGreaterThan(250);
    const resnet = manifest.blocks.find((b) => b.id === 'torchvision:torchvision.models.resnet.ResNet')!;
    expect(resnet).toMatchObject({ module: 'blocks.torchvision.models.resnet', className: 'ResNet', importRoot: out });
    for (const b of manifest.blocks) {
      const first = readFileSync(b.file, 'utf8').split('\n')[0];
      expect(first, b.file).toBe(`# ${b.module.replace(/^blocks\./, '')}`);
    }
  });

  it('every block imports from the package with torchvision blocked; shared classes compose', () => {
    // Results are per module: the block whose module runs a check goes last, after the others of its module.
    const items: (ManifestEntry & { run?: string })[] = manifest.blocks.map((b) => ({ ...b }));
    const at = items.findIndex((b) => b.id === 'torchvision:torchvision.models.mobilenetv3.InvertedResidual');
    const ir = items.splice(at, 1)[0];
    items.push(ir);
    // mobilenetv3's InvertedResidual builds ops.misc's Conv2dNormActivation: the package's one class of that name.
    ir.run = `
from blocks.torchvision.ops.misc import Conv2dNormActivation
from blocks.torchvision.models.mobilenetv3 import InvertedResidualConfig
m = Block(InvertedResidualConfig(16, 3, 16, 16, False, "RE", 1, 1, 1.0), norm_layer=torch.nn.BatchNorm2d)
assert isinstance(m.block[0], Conv2dNormActivation), type(m.block[0])
m(torch.ones(1, 16, 8, 8))
`;
    const results = importInFreshPython(items, ['torchvision']);
    const failed = items.filter((b) => results.get(b.module) !== 'ok').map((b) => `${b.id}: ${results.get(b.module)}`);
    expect(failed).toEqual([]);
  });
});
