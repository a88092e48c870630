// What a block page tells a reader to run, from the catalog's facts: the extract command carries the
// config the catalog was built from, the interpreter and torch are named, and requirement versions are ones a user
// can install. Values that are not what they should be give no command text (src/lib/instructions.ts).
import { describe, expect, it } from 'vitest';
import type { BuildInfo, EnvironmentReport } from '../../pipeline/contract/build-info.ts';
import {
  configOf,
  extractCommand,
  installableVersion,
  requirementText,
  runtimeOf,
} from '../../src/lib/instructions.ts';

const info = (over: Partial<BuildInfo>): BuildInfo => ({
  formatVersion: 2,
  builtAt: '2026-01-01T00:00:00Z',
  nnblocksVersion: '0.1.0',
  ...over,
});
const env = (over: Partial<EnvironmentReport>) =>
  ({
    kind: 'managed',
    python: '3.11.2',
    torch: '2.14.1+cu130',
    torchvision: null,
    cuda: '13.0',
    ...over,
  }) as EnvironmentReport;

describe('the extract command', () => {
  it('carries the config the catalog was built from: a corpus other than the default matches its blocks', () => {
    const config = configOf(info({ config: 'content/corpus.debian.json' }));
    expect(extractCommand('torchvision:torchvision.ops.misc.SqueezeExcitation', config)).toBe(
      'nnblocks extract torchvision:torchvision.ops.misc.SqueezeExcitation --config content/corpus.debian.json --out blocks',
    );
    expect(extractCommand('sam:a.B', configOf(info({ config: 'corpus.json' })))).toBe(
      'nnblocks extract sam:a.B --config corpus.json --out blocks',
    );
  });

  it.each([
    ['an absolute path (a path of the machine that built)', '/home/me/sam/corpus.json'],
    ['a path climbing out of the project', '../other/corpus.json'],
    ['a path climbing out half-way', 'content/../../x.json'],
    ['a Windows path', 'C:\\corpus.json'],
    ['shell in the name', 'content/$(id).json'],
    ['a space', 'my corpus.json'],
    ['not a JSON file', 'content/corpus.yaml'],
    ['no config at all', undefined],
  ])('leaves out a config that is %s', (_, config) => {
    expect(configOf(info(config === undefined ? {} : { config }))).toBeUndefined();
    expect(extractCommand('a:b.C', configOf(info({ config })))).toBe('nnblocks extract a:b.C --out blocks');
  });

  it('quotes a block id that is not a plain word', () => {
    expect(extractCommand("x:a.B'; rm -rf ~", 'corpus.json')).toBe(
      "nnblocks extract 'x:a.B'\\''; rm -rf ~' --config corpus.json --out blocks",
    );
  });
});

describe('the runtime', () => {
  it('names the interpreter and torch validation ran with, and the torch release to install', () => {
    expect(runtimeOf(info({ environment: env({}) }))).toEqual({
      python: '3.11.2',
      torch: '2.14.1+cu130',
      torchRelease: '2.14.1',
      cuda: '13.0',
    });
    expect(runtimeOf(info({ environment: env({ torch: '1.13.0a0+gitunknown', cuda: null }) }))).toEqual({
      python: '3.11.2',
      torch: '1.13.0a0+gitunknown',
      torchRelease: '1.13.0',
      cuda: null,
    });
  });

  it('says nothing without an environment record, or when a version is not one', () => {
    expect(runtimeOf(info({}))).toBeUndefined();
    expect(runtimeOf(info({ environment: env({ python: '3.11; rm -rf ~' }) }))).toBeUndefined();
    expect(runtimeOf(info({ environment: env({ torch: '<script>' }) }))).toBeUndefined();
    expect(runtimeOf(info({ environment: env({ cuda: 'x y' }) }))?.cuda).toBeNull();
  });
});

describe('requirement versions', () => {
  it.each([
    // A distribution's build from source: the local label goes, and the pre-release it marks the tree with too.
    ['1.13.0a0+gitunknown', '1.13.0'],
    ['2.6.0+cpu', '2.6.0'],
    ['2.14.1+cu130', '2.14.1'],
    ['2.1.0.dev20230801+cu121', '2.1.0'],
    ['1.0.post1+local.2', '1.0.post1'],
    // Public versions stay, pre-releases included (they are on the index).
    ['2.6.0', '2.6.0'],
    ['2.0.0rc1', '2.0.0rc1'],
    ['0.14.1a0', '0.14.1a0'],
    ['1!2.0', '1!2.0'],
  ])('%s → %s', (installed, shown) => {
    expect(installableVersion(installed)).toBe(shown);
  });

  it('shows the name alone when the version is not PEP 440', () => {
    expect(requirementText('torch', '1.13.0a0+gitunknown')).toBe('torch==1.13.0');
    expect(requirementText('torch', 'unknown')).toBe('torch');
    expect(requirementText('torch', '1.0 && id')).toBe('torch');
    expect(requirementText('torch', null)).toBe('torch');
  });
});
