// The static structure reader on real classes: Debian's torchvision 0.14 (python3-torchvision), the real code the
// test machine has. Each class is read as the build reads it (its module indexed, its corpus bases merged) and its
// roles and forward features checked, so the structural rules are known to fire on real code, not only on fixtures.
// Other repositories are measured by test/bench/taxonomy.bench.ts.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { categorize } from '../../../pipeline/catalog/category.ts';
import { StructureReader, type StructureFacts } from '../../../pipeline/catalog/structure/reader.ts';
import { matchMethods, taxonomy } from '../../../pipeline/catalog/taxonomy.ts';
import type { Block } from '../../../pipeline/discover/discover.ts';
import { indexFolders } from '../../helpers/corpus.ts';
import { DEBIAN_TORCHVISION, describeOnDebianTorchvision } from '../../helpers/python.ts';
import { tempDir } from '../../helpers/tree.ts';

const FILES = [
  'ops/misc.py',
  'ops/stochastic_depth.py',
  'models/convnext.py',
  'models/vision_transformer.py',
  'models/swin_transformer.py',
  'models/resnet.py',
  'models/efficientnet.py',
];

describeOnDebianTorchvision('structure of real torchvision classes', () => {
  let facts: (name: string) => StructureFacts;
  let block: (name: string) => Block;

  beforeAll(async () => {
    const root = tempDir('nnb-tv-structure-');
    for (const f of FILES) {
      mkdirSync(dirname(join(root, 'torchvision', f)), { recursive: true });
      cpSync(join(DEBIAN_TORCHVISION, f), join(root, 'torchvision', f));
    }
    for (const d of ['', 'ops', 'models']) writeFileSync(join(root, 'torchvision', d, '__init__.py'), '');
    const { program, discovered, store } = await indexFolders([{ id: 'torchvision', root }]);
    store.close();
    const reader = new StructureReader(program, discovered.blocks);
    const byName = new Map(discovered.blocks.map((b) => [b.name, b]));
    block = (name) => byName.get(name)!;
    facts = (name) => reader.factsOf(block(name));
  }, 60_000);

  /** The methods a class implements by a structure rule alone (`structure#`): what its name would not tell. */
  const byStructure = (name: string) =>
    matchMethods({ name: 'Renamed', module: 'pkg.m', bases: [], layers: [], structure: facts(name) }).map(
      (m) => m.slug,
    );

  it.each([
    // x * scale from avgpool -> fc1 -> activation -> fc2 -> scale_activation (default nn.Sigmoid), via _scale().
    ['SqueezeExcitation', ['channel-gate'], ['squeeze-and-excitation']],
    // result = self.layer_scale * self.block(input); result += input
    ['CNBlock', ['residual', 'branch-scale'], []],
    // x = x + self.dropout(self.self_attention(self.ln_1(x))) ...
    ['EncoderBlock', ['residual'], ['transformer-encoder-block']],
    // ... and its ShiftedWindowAttention child shifts and attends: Swin's block, whatever its name.
    ['SwinTransformerBlock', ['residual'], ['shifted-window-attention', 'transformer-encoder-block']],
    // forward calls shifted_window_attention(), a module function: roll, then softmax(q @ k) @ v (the windows are
    // cut by view and permute, no partition function: shift and attention are what a structure rule reads).
    ['ShiftedWindowAttention', ['attention-core', 'pairwise-attention', 'shift'], ['shifted-window-attention']],
    ['Bottleneck', ['residual'], []],
    ['MBConv', ['residual'], []],
  ])('%s shows %j; by structure alone it lands in %j', (name, features, methods) => {
    expect(facts(name).features).toEqual(expect.arrayContaining(features));
    expect(byStructure(name)).toEqual(methods);
  });

  it('reads the children by role: norm, attention, norm, mlp; a stack of blocks', () => {
    expect(facts('EncoderBlock').roles).toEqual(['norm', 'attention', 'norm', 'mlp']);
    expect(facts('SwinTransformerBlock').roles).toEqual(['norm', 'attention', 'norm', 'mlp']);
    // OrderedDict filled in a loop, then nn.Sequential(layers)
    expect(facts('Encoder').roles).toEqual(['stack', 'norm']);
    expect(facts('SqueezeExcitation').roles).toEqual(['pool', 'conv', 'conv', 'activation', 'activation']);
  });

  it('gives the networks and their stages a category without a name rule', () => {
    const categories = (name: string) => {
      const b = block(name);
      const spec = { name: 'Renamed', bases: b.baseChain, layers: [], structure: facts(name) };
      const params = name === 'ResNet' ? ['block', 'layers', 'num_classes'] : [];
      const methods = matchMethods({ ...spec, module: b.module }).map((m) => ({
        slug: m.slug,
        categories: taxonomy().methods.find((x) => x.slug === m.slug)!.categories,
      }));
      return categorize({ ...spec, params, methods }).categories;
    };
    expect(categories('ResNet')).toContain('network');
    expect(categories('Encoder')).toContain('network');
    expect(categories('ShiftedWindowAttention')).toContain('attention');
    expect(categories('Bottleneck')).toContain('residual');
  });
});
