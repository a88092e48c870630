// Corpus config: every mistake is reported with its field path, what is wrong and the fix; defaults and paths resolve.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, resolveConfig, type ConfigProblem } from '../../pipeline/config/load.ts';
import { tempDir } from '../helpers/tree.ts';

/** Writes `data` as `<tmp>/content/corpus.json` and returns the problems loadConfig reports (or [] when it loads). */
function problemsOf(data: unknown, raw?: string): ConfigProblem[] {
  const dir = join(tempDir('nnb-cfg-'), 'content');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'corpus.json');
  writeFileSync(file, raw ?? JSON.stringify(data, null, 2));
  try {
    loadConfig(file);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
}

const ok = { id: 'ok', kind: 'python', distribution: 'torchvision' };

describe('config errors name the field path, the problem and the fix', () => {
  it('a git source without ref', () => {
    // `then: { required: [ref] }` of the git branch reports the concrete field, not a vague if/then failure.
    expect(
      problemsOf({ name: 'x', sources: [{ id: 'vision', kind: 'git', url: 'https://github.com/pytorch/vision.git' }] }),
    ).toEqual([
      {
        path: 'sources[0].ref',
        message: 'is missing (a git source needs it)',
        fix: expect.stringContaining('a tag ("v0.14.1") or a full 40-character commit SHA'),
      },
    ]);
  });

  it('a mirror may name the public repository it copies: https and no credentials, git sources only', () => {
    const mirror = { id: 'm', kind: 'git', url: 'file:///srv/mirrors/detr', ref: 'main' };
    expect(problemsOf({ name: 'x', sources: [{ ...mirror, repository: 'https://github.com/org/detr' }] })).toEqual([]);
    expect(
      problemsOf({ name: 'x', sources: [{ ...mirror, repository: 'https://user:tok@github.com/org/detr' }] }),
    ).toEqual([
      {
        path: 'sources[0].repository',
        message: expect.any(String),
        fix: expect.stringContaining('without credentials'),
      },
    ]);
    expect(
      problemsOf({ name: 'x', sources: [{ ...ok, repository: 'https://github.com/pytorch/vision' }] })[0].path,
    ).toBe('sources[0].repository');
  });

  it('a de-duplication threshold of 0 fails when the config loads, not after the build', () => {
    // 0 would make every pair a near-duplicate; the schema's exclusiveMinimum catches it with the fix.
    expect(problemsOf({ name: 'x', sources: [ok], dedup: { lexicalThreshold: 0, structuralThreshold: 1.5 } })).toEqual([
      { path: 'dedup.lexicalThreshold', message: 'must be > 0 (got 0)', fix: expect.stringContaining('e.g. 0.9') },
      {
        path: 'dedup.structuralThreshold',
        message: 'must be <= 1 (got 1.5)',
        fix: expect.stringContaining('e.g. 0.9'),
      },
    ]);
  });

  it('overrides take the inputs the runner supports (lists) and refs', () => {
    const override = { kwargs: { norm_layer: 'torch.nn.BatchNorm2d' }, refs: ['norm_layer'] };
    const inputs = [{ shape: [1, 8, 16, 16], dtype: 'float32', list: 3 }];
    expect(
      problemsOf({ name: 'x', sources: [ok], validate: { overrides: { Head: { ...override, inputs } } } }),
    ).toEqual([]);
  });

  it('overrides build instances (nested) and pass tuples; each mistake in one names its field and the fix', () => {
    // SAM's MaskDecoder takes a TwoWayTransformer instance; PositionEmbeddingRandom's forward a `size` tuple.
    const decoder = {
      kwargs: {
        transformer_dim: 8,
        transformer: {
          class: '.TwoWayTransformer',
          kwargs: { depth: 1, norm: { class: 'torch.nn.LayerNorm', kwargs: { normalized_shape: { tuple: [8] } } } },
        },
      },
    };
    const pe = { kwargs: {}, inputs: [{ shape: [], dtype: 'int64', value: { tuple: [8, 8] } }] };
    const of = (overrides: object) => problemsOf({ name: 'x', sources: [ok], validate: { overrides } });
    expect(of({ MaskDecoder: decoder, PositionEmbeddingRandom: pe })).toEqual([]);
    const at = 'validate.overrides.MaskDecoder.kwargs.transformer';
    const withTransformer = (t: object) => of({ MaskDecoder: { kwargs: { transformer: t } } });
    expect(withTransformer({ class: 'two way', kwargs: {} })).toEqual([
      {
        path: `${at}.class`,
        message: 'has the wrong form (got "two way")',
        fix: expect.stringContaining('".TwoWayTransformer"'),
      },
    ]);
    expect(withTransformer({ clas: '.TwoWayTransformer' })).toContainEqual({
      path: `${at}.clas`,
      message: 'is not a known field',
      fix: 'did you mean "class"? rename it',
    });
    expect(withTransformer({ depth: 2 })).toEqual([
      { path: `${at}.depth`, message: 'is not a known field', fix: expect.stringContaining('class, kwargs, tuple') },
      {
        path: at,
        message: 'is an object that is neither an instance nor a tuple',
        fix: expect.stringContaining('"class"'),
      },
    ]);
    expect(withTransformer({ class: '.T', kwargs: { norm: { tuple: [8], kwargs: {} } } })).toEqual([
      { path: `${at}.kwargs.norm.kwargs`, message: 'belongs to an instance, not a tuple', fix: expect.any(String) },
    ]);
    expect(withTransformer({ class: '.T', kwargs: { depth: '2', dims: { tuple: [8, 'x', {}] } } })).toEqual([
      {
        path: `${at}.kwargs.dims.tuple[2]`,
        message: 'is an object that is neither an instance nor a tuple',
        fix: expect.any(String),
      },
    ]);
    const deep = { class: '.A', kwargs: { b: { class: '.B', kwargs: { c: { tuple: [[[1]]] } } } } };
    expect(withTransformer(deep)).toEqual([
      {
        path: `${at}.kwargs.b.kwargs.c.tuple[0][0]`,
        message: expect.stringContaining('more than 4 deep'),
        fix: expect.any(String),
      },
    ]);
    expect(of({ MaskDecoder: { kwargs: { transformer: { class: '.T' } }, refs: ['transformer'] } })).toEqual([
      {
        path: 'validate.overrides.MaskDecoder.refs[0]',
        message: expect.stringContaining('not a dotted name'),
        fix: expect.any(String),
      },
    ]);
    // A mistyped ref fails here, not as a "blocked" block that asks for a PyPI package named after it.
    expect(of({ MaskDecoder: { kwargs: { norm: 'LayerNorm' }, refs: ['norm', 'act'] } })).toEqual([
      {
        path: 'validate.overrides.MaskDecoder.refs[0]',
        message: 'names kwarg "norm", whose value is not a dotted name (got "LayerNorm")',
        fix: 'write a module and a name ("torch.nn.LayerNorm"), or ".LayerNorm" for a class of the block\'s package',
      },
      {
        path: 'validate.overrides.MaskDecoder.refs[1]',
        message: expect.stringContaining('kwargs does not have'),
        fix: expect.any(String),
      },
    ]);
    expect(of({ PositionEmbeddingRandom: { inputs: [{ shape: [], dtype: 'int64', value: { tuple: 'x' } }] } })).toEqual(
      [
        {
          path: 'validate.overrides.PositionEmbeddingRandom.inputs[0].value',
          message: 'is none of the allowed forms (got an object)',
          fix: expect.stringContaining('{ "tuple": [8, 8] }'),
        },
      ],
    );
  });

  it('a priority outside 1|2', () => {
    expect(problemsOf({ name: 'x', sources: [ok, { ...ok, id: 'b', priority: 3 }] })).toEqual([
      { path: 'sources[1].priority', message: 'must be one of 1, 2 (got 3)', fix: 'use 1 (primary) or 2 (secondary)' },
    ]);
  });

  it('resolveAcross is a boolean, true by default', () => {
    expect(problemsOf({ name: 'x', sources: [{ ...ok, resolveAcross: 'no' }] })).toEqual([
      {
        path: 'sources[0].resolveAcross',
        message: 'must be a boolean (got "no")',
        fix: 'use true (inline code of other corpus sources) or false (keep their imports)',
      },
    ]);
    const dir = tempDir('nnb-cfg-');
    const file = join(dir, 'corpus.json');
    writeFileSync(file, JSON.stringify({ name: 'x', sources: [ok, { ...ok, id: 'b', resolveAcross: false }] }));
    expect(loadConfig(file).sources.map((s) => s.resolveAcross)).toEqual([true, false]);
  });

  it('two sources with the same id', () => {
    expect(problemsOf({ name: 'x', sources: [ok, { ...ok, id: 'b' }, ok] })).toEqual([
      {
        path: 'sources[2].id',
        message: '"ok" is already the id of sources[0]',
        fix: expect.stringContaining('give every source its own id'),
      },
    ]);
  });

  it('a misspelt field gets a did-you-mean', () => {
    expect(problemsOf({ name: 'x', sources: [{ ...ok, inlcude: ['**/*.py'] }] })).toEqual([
      { path: 'sources[0].inlcude', message: 'is not a known field', fix: 'did you mean "include"? rename it' },
    ]);
  });

  it('an include glob that can never select a Python file', () => {
    expect(problemsOf({ name: 'x', sources: [{ ...ok, include: ['torchvision/**/*.py', 'docs/*.md'] }] })).toEqual([
      {
        path: 'sources[0].include[1]',
        message: expect.stringContaining('can never match a Python (.py) file'),
        fix: 'end it with ".py", e.g. "docs/*.py"',
      },
    ]);
  });

  it('config-file globs: a list of globs that can match a Python file', () => {
    // `configs` (OpenMMLab config files, docs/config.md "Config files"): a string instead of a list, a yaml glob, `..`.
    expect(problemsOf({ name: 'x', sources: [{ ...ok, configs: 'configs/**/*.py' }] }).map((p) => p.path)).toEqual([
      'sources[0].configs',
    ]);
    const problems = problemsOf({ name: 'x', sources: [{ ...ok, configs: ['configs/**/*.yaml', '../configs/*.py'] }] });
    expect(problems.map((p) => p.path)).toEqual(['sources[0].configs[0]', 'sources[0].configs[1]']);
    expect(problems[0]).toMatchObject({ message: expect.stringContaining('can never match a Python (.py) file') });
    expect(problemsOf({ name: 'x', sources: [{ ...ok, configs: [] }] })).toEqual([]);
  });

  it('a ref that is no branch, tag or commit', () => {
    // A ref starting with "-" would be read by git as an option: the schema refuses it.
    expect(
      problemsOf({
        name: 'x',
        sources: [{ id: 'a', kind: 'git', url: 'https://h.org/r.git', ref: '--upload-pack=x' }],
      }),
    ).toEqual([
      {
        path: 'sources[0].ref',
        message: 'has the wrong form (got "--upload-pack=x")',
        fix: expect.stringContaining('use a branch ("main")'),
      },
    ]);
  });

  it('a release date: python sources only, as YYYY, YYYY-MM or YYYY-MM-DD', () => {
    expect(problemsOf({ name: 'x', sources: [{ ...ok, releaseDate: '2022-12' }] })).toEqual([]);
    const problems = problemsOf({
      name: 'x',
      sources: [
        { ...ok, releaseDate: 'Dec 2022' },
        { id: 'p', kind: 'path', path: '.', releaseDate: '2022' },
      ],
    });
    expect(problems.map((p) => p.path)).toEqual(['sources[0].releaseDate', 'sources[1].releaseDate']);
    expect(problems[0].fix).toContain('YYYY-MM');
    expect(problems[1].message).toContain('only applies to python sources');
  });

  it('environment and requirements: a bad version, requirement or name names its field and the fix', () => {
    const problems = problemsOf({
      name: 'x',
      environment: {
        torch: 'latest',
        torchvision: true,
        requirements: ['not a requirement!', 'numpy>=1.20,<2', 'cv ; sys_platform == "linux"', 'x[a,b]~=1.0'],
        pyton: '/usr/bin/python3',
      },
      sources: [{ ...ok, requirements: { add: ['einops'], drop: ['-bad-'] } }],
    });
    expect(problems.map((p) => p.path)).toEqual([
      'sources[0].requirements.drop[0]',
      'environment.pyton',
      'environment.torch',
      'environment.torchvision',
      'environment.requirements[0]',
    ]);
    expect(problems[1].fix).toBe('did you mean "python"? rename it');
    expect(problems[2].fix).toContain('"2.14.1"');
    expect(problems[3].message).toBe('is none of the allowed forms (got true)');
    expect(problemsOf({ name: 'x', environment: { python: '/no/such/python3' }, sources: [ok] })).toEqual([
      expect.objectContaining({ path: 'environment.python', message: 'interpreter /no/such/python3 does not exist' }),
    ]);
  });

  it('a field of another source kind, a missing folder and an escaping importRoot', () => {
    const problems = problemsOf({
      name: 'x',
      sources: [
        { ...ok, url: 'https://h.org/r.git' },
        { id: 'p', kind: 'path', path: 'no/such/folder', importRoot: '../up' },
      ],
    });
    expect(problems.map((p) => p.path)).toEqual(['sources[0].url', 'sources[1].importRoot', 'sources[1].path']);
    expect(problems[0]).toMatchObject({
      message: 'only applies to git sources, but this source is kind "python"',
      fix: 'remove "url", or set "kind": "git"',
    });
    expect(problems[2].message).toMatch(/no\/such\/folder does not exist \(relative paths resolve against /);
  });

  it('nested sections: enum, quoted keys and wrong types', () => {
    const problems = problemsOf({
      name: 'x',
      sources: [ok],
      validate: {
        device: 'gpu',
        overrides: { 'torchvision.ops.MLP': { inputs: [{ shape: [1, 'x'], dtype: 'float' }] } },
      },
      dedup: { lexicalThreshold: 1.5 },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        {
          path: 'validate.device',
          message: 'must be one of "auto", "cpu", "cuda" (got "gpu")',
          fix: 'use "auto", "cpu" or "cuda"',
        },
        {
          path: 'validate.overrides["torchvision.ops.MLP"].inputs[0].shape[1]',
          message: 'must be an integer (got "x")',
          fix: 'use a list of whole numbers such as [1, 3, 224, 224]',
        },
        {
          path: 'dedup.lexicalThreshold',
          message: 'must be <= 1 (got 1.5)',
          fix: 'use a number above 0 and at most 1, e.g. 0.9 (0 would call every pair of blocks a duplicate)',
        },
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('all problems at once, in one error message', () => {
    const dir = join(tempDir('nnb-cfg-'), 'c.json');
    writeFileSync(dir, JSON.stringify({ sources: [{ id: 'Bad Id', kind: 'svn' }] }));
    let message = '';
    try {
      loadConfig(dir);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('has 3 problems');
    expect(message).toContain('name: is missing');
    expect(message).toContain('sources[0].id: has the wrong form (got "Bad Id")\n    fix: use a lowercase slug');
    expect(message).toContain('sources[0].kind: must be one of "git", "python", "path" (got "svn")');
  });

  it('invalid JSON reports the line', () => {
    const problems = problemsOf(null, '{\n  "name": "x",\n  "sources": [],\n}\n');
    expect(problems).toHaveLength(1);
    expect(problems[0].path).toBe('(file)');
    expect(problems[0].message).toMatch(/is not valid JSON at line 4/);
  });
});

describe('resolved config', () => {
  it('fills defaults and resolves paths against the project root (parent of content/)', () => {
    const root = tempDir('nnb-cfg-');
    mkdirSync(join(root, 'content'));
    mkdirSync(join(root, 'models'));
    writeFileSync(
      join(root, 'content', 'corpus.json'),
      JSON.stringify({
        name: 'x',
        sources: [
          { id: 'm', kind: 'path', path: 'models' },
          { id: 'g', kind: 'git', url: 'file:///r', ref: 'main', priority: 2 },
        ],
      }),
    );
    const c = loadConfig(join(root, 'content', 'corpus.json'));
    expect(c.projectRoot).toBe(root);
    expect(c.cacheDir).toBe(join(root, '.nnblocks'));
    expect(c.maxFileBytes).toBe(1024 * 1024);
    expect(c.sources[0]).toEqual({
      id: 'm',
      kind: 'path',
      path: join(root, 'models'),
      include: ['**/*.py'],
      exclude: [],
      configs: ['configs/**/*.py'],
      symbols: [],
      resolveAcross: true,
      priority: 1,
      requirements: { add: [], drop: [] },
    });
    expect(c.sources[1]).toMatchObject({ kind: 'git', priority: 2, include: ['**/*.py'] });
    // No `environment`: the managed default, today's torch from pip.
    expect(c.environment).toEqual({
      torch: 'torch==2.14.1',
      torchvision: 'torchvision==0.29.1',
      requirements: [],
      install: true,
    });
  });

  it('environment: versions become pins, specifiers stay, another torch lets pip pick torchvision', () => {
    const env = (environment: object) =>
      resolveConfig({ name: 'x', sources: [ok], environment }, join(tempDir('nnb-cfg-'), 'c.json')).environment;
    expect(env({ torch: '2.9.1', torchvision: '0.24.1' })).toMatchObject({
      torch: 'torch==2.9.1',
      torchvision: 'torchvision==0.24.1',
    });
    expect(env({ torch: '>=2.1,<3' })).toMatchObject({ torch: 'torch>=2.1,<3', torchvision: 'torchvision' });
    expect(env({ torchvision: false, requirements: ['einops>=0.6'], install: false })).toMatchObject({
      torchvision: null,
      requirements: ['einops>=0.6'],
      install: false,
    });
  });

  it('outside a content/ folder the config folder is the project root', () => {
    const root = tempDir('nnb-cfg-');
    writeFileSync(join(root, 'my.json'), JSON.stringify({ name: 'x', cacheDir: 'cache', sources: [ok] }));
    expect(loadConfig(join(root, 'my.json')).cacheDir).toBe(join(root, 'cache'));
  });

  it('the shipped configs load', () => {
    const def = loadConfig('content/corpus.json');
    expect(def.sources).toEqual([
      expect.objectContaining({
        id: 'torchvision',
        kind: 'python',
        distribution: 'torchvision',
        include: ['torchvision/**/*.py'],
      }),
    ]);
    // The paper's 22 repositories, pinned: a git source at a commit, an installed distribution at a version (the
    // base's torch and torchvision, or `name==version` in environment.requirements for what the layer installs).
    const paper = loadConfig('content/corpus.paper.json');
    expect(paper.sources).toHaveLength(22);
    const pins = new Set(['torch', 'torchvision', ...paper.environment.requirements.map((r) => r.split('==')[0])]);
    for (const s of paper.sources) {
      if (s.kind === 'git') expect(s.ref, s.id).toMatch(/^[0-9a-f]{40}$/);
      else expect(s.kind === 'python' && pins.has(s.distribution), s.id).toBe(true);
    }
    expect(paper.environment.requirements.every((r) => /^[A-Za-z0-9._-]+==[0-9.]+$/.test(r))).toBe(true);
    expect(paper.sources.map((s) => s.id)).toEqual(
      expect.arrayContaining([
        'torchvision',
        'timm',
        'transformers',
        'mmdetection',
        'detectron2',
        'yolov5',
        'pyg',
        'mmcv',
      ]),
    );
  });

  it('every field in the schema has a description and a fix hint, for editors and error messages', () => {
    const schema = JSON.parse(readFileSync('content/corpus.schema.json', 'utf8'));
    const missing: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.properties) {
        for (const [k, v] of Object.entries(n.properties as Record<string, Record<string, unknown>>)) {
          const target = v.$ref ? schema.$defs[(v.$ref as string).split('/').pop()!] : v;
          if (!target.description) missing.push(`${at}.${k}: description`);
          if (!target['x-fix'] && !target.properties) missing.push(`${at}.${k}: x-fix`);
        }
      }
      for (const [k, v] of Object.entries(n)) if (typeof v === 'object' && k !== 'if') visit(v, `${at}/${k}`);
    };
    visit(schema, '#');
    expect(missing).toEqual([]);
  });
});
