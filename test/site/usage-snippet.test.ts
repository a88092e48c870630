// The usage snippet: an install line and an import written only from checked values. A spec the schema
// would refuse (a forged one) gets no line at all, never an escaped one: like replay.test.ts, for shell and Python.
import { describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { installOf, usageOf } from '../../src/lib/usage-snippet.ts';

const COMMIT = '4371edfd656a69603141084c5ca4b945840400f8';

function spec(over: {
  module?: string;
  qualname?: string;
  repository?: string;
  commit?: string;
  release?: { distribution: string; version: string; tag?: string };
  version?: string;
  kwargs?: { name: string; value: unknown }[];
}): BlockSpec {
  return {
    module: over.module ?? 'torchvision.ops.misc',
    qualname: over.qualname ?? 'SqueezeExcitation',
    provenance: {
      repository: over.repository ?? 'https://github.com/pytorch/vision',
      ...(over.release ? { release: over.release } : { commit: over.commit ?? COMMIT }),
    },
    citation: { ...(over.version ? { version: over.version } : {}) },
    validation: {
      status: 'passed',
      recipe: { seed: 0, kwargs: over.kwargs ?? [{ name: 'input_channels', value: 16 }], inputs: [] },
    },
  } as unknown as BlockSpec;
}

describe('usageOf', () => {
  it('a release: pip at the cited public version, then the import and the tested construction', () => {
    const u = usageOf(
      spec({ release: { distribution: 'torchvision', version: '0.14.1a0', tag: 'v0.14.1' }, version: '0.14.1' }),
    );
    expect(u.install).toEqual({ kind: 'pip', command: 'pip install torchvision==0.14.1' });
    expect(u.importLine).toBe('from torchvision.ops.misc import SqueezeExcitation');
    expect(u.construct).toBe('block = SqueezeExcitation(input_channels=16)');
  });

  it('a release without a cited version drops the local label (PEP 440)', () => {
    expect(installOf(spec({ release: { distribution: 'torch-x', version: '2.6.0+cpu' } }))).toEqual({
      kind: 'pip',
      command: 'pip install torch-x==2.6.0',
    });
  });

  it('an installable git source: pip from git+https at the commit, and a clone', () => {
    const u = usageOf(spec({ repository: 'https://github.com/huggingface/pytorch-image-models.git' }), true);
    expect(u.install).toEqual({
      kind: 'git',
      command: `pip install git+https://github.com/huggingface/pytorch-image-models.git@${COMMIT}`,
      clone: `git clone https://github.com/huggingface/pytorch-image-models.git && git -C pytorch-image-models checkout ${COMMIT}`,
    });
  });

  it('a git source pip cannot install (no setup.py or pyproject.toml), or not known to be: the clone alone', () => {
    const clone = `git clone https://github.com/facebookresearch/dino && git -C dino checkout ${COMMIT}`;
    for (const installable of [false, undefined])
      expect(installOf(spec({ repository: 'https://github.com/facebookresearch/dino' }), installable)).toEqual({
        kind: 'clone',
        clone,
      });
  });

  it('a release found installed as a local build: pip at the release it was built from', () => {
    expect(installOf(spec({ release: { distribution: 'torchvision', version: '0.14.1a0+gitunknown' } }))).toEqual({
      kind: 'pip',
      command: 'pip install torchvision==0.14.1',
    });
  });

  it('a nested class is imported by its outer class', () => {
    expect(usageOf(spec({ qualname: 'Outer.Inner', kwargs: [] }))).toMatchObject({
      importLine: 'from torchvision.ops.misc import Outer',
      construct: 'block = Outer.Inner()',
    });
  });

  it.each([
    ['a repository URL with credentials', { repository: 'https://user:token@github.com/x/y' }],
    ['a non-https repository', { repository: 'http://github.com/x/y' }],
    ['a file:// repository', { repository: 'file:///home/me/repo' }],
    ['a repository URL with a shell payload', { repository: 'https://github.com/x/y;rm -rf ~' }],
    ['a commit that is not 40 hex digits', { commit: 'main; curl evil' }],
    ['a distribution with a shell payload', { release: { distribution: 'torch; rm -rf ~', version: '1.0' } }],
    ['a version with a shell payload', { release: { distribution: 'torch', version: '1.0 && id' } }],
    ['a version with a requirement operator', { release: { distribution: 'torch', version: '1.0,<2' } }],
  ])('no install line for %s', (_, over) => {
    expect(installOf(spec(over), true)).toEqual({ kind: 'none' });
  });

  it.each([
    ['a module with code in it', { module: 'os; import sys' }],
    ['a keyword as a module segment', { module: 'torchvision.class.misc' }],
    ['a non-ASCII class name', { qualname: 'Größe' }],
    ['a class named like code', { qualname: "x'); __import__('os')" }],
  ])('no import line for %s', (_, over) => {
    expect(usageOf(spec(over))).toMatchObject({ importLine: null, construct: null });
  });

  it('no construction line from a kwarg name that is not an identifier; values are Python literals', () => {
    expect(usageOf(spec({ kwargs: [{ name: "a=1); __import__('os')#", value: 1 }] })).construct).toBeNull();
    expect(usageOf(spec({ kwargs: [{ name: 'label', value: "x'); import os #" }] })).construct).toBe(
      "block = SqueezeExcitation(label='x\\'); import os #')",
    );
  });

  it('lists stay lists and tuples stay tuples, as validation built the block', () => {
    const kwargs = [
      { name: 'window_size', value: [4, 4] },
      { name: 'size', value: { tuple: [8, 8] } },
    ];
    expect(usageOf(spec({ kwargs })).construct).toBe('block = SqueezeExcitation(window_size=[4, 4], size=(8, 8))');
  });
});
