// Declared requirements read as data (pipeline/sources/requirements.ts): each format and idiom as a small fixture
// tree, the names it must yield and why; which files count; de-duplication; the install filter. Hostile trees are
// in requirements-hostile.test.ts, PEP 508 and markers in requirements-pep508.test.ts, real repositories in
// requirements-mirrors.test.ts.
import { describe, expect, it } from 'vitest';
import { declaredRequirements, isRuntimeFile, requirementsToInstall } from '../../pipeline/sources/requirements.ts';
import { py, writeTree, type Tree } from '../helpers/tree.ts';

/** The names `tree` declares, and the diagnostics' codes. */
function names(tree: Tree, opts = {}) {
  const r = declaredRequirements(writeTree(tree), opts);
  return { names: r.requirements.map((x) => x.name), codes: r.diagnostics.map((d) => d.code), ...r };
}

describe('pyproject.toml', () => {
  it('reads [project].dependencies: comments, multi-line, both quote styles; not optional-dependencies', () => {
    const r = names({
      'pyproject.toml': py`
        [build-system]
        requires = ["setuptools"]   # build time: not read

        [project]
        name = "demo"
        description = """a [fake] "table"
        dependencies = ['not', 'this']"""
        authors = [{ name = "A, B" }, { name = 'C]' }]
        dependencies = [
          "numpy>=1.20",   # a comment
          'PyYAML',        # literal string
          "einops ; python_version >= '3.8'",
          # "commented-out",
        ]

        [project.optional-dependencies]
        dev = ["pytest"]
      `,
    });
    // The multi-line string and the inline tables with `]`, `,` and quotes inside must not end the reading early.
    expect(r.names).toEqual(['numpy', 'pyyaml', 'einops']);
    expect(r.requirements[0]).toEqual({
      name: 'numpy',
      spec: 'numpy>=1.20',
      from: 'pyproject.toml',
      line: 10,
      specifier: '>=1.20',
    });
    expect(r.diagnostics).toEqual([]);
  });

  it('follows [tool.setuptools.dynamic] dependencies files when dependencies are dynamic', () => {
    const r = names({
      'pyproject.toml': py`
        [project]
        name = "demo"
        dynamic = ["dependencies", "version"]
        [tool.setuptools.dynamic]
        dependencies = { file = ["reqs/base.txt"] }
      `,
      'reqs/base.txt': 'scipy\n',
    });
    expect(r.names).toEqual(['scipy']);
  });

  it('invalid TOML is a diagnostic with its line, not an exception', () => {
    const r = names({ 'pyproject.toml': '[project]\ndependencies = ["numpy",\nname = \n' });
    expect(r.names).toEqual([]);
    expect(r.diagnostics[0]).toMatchObject({ code: 'requirements-metadata-unreadable', path: 'pyproject.toml' });
  });

  it('poetry dependencies are reported as a format not read', () => {
    expect(names({ 'pyproject.toml': '[tool.poetry.dependencies]\nnumpy = "^1.2"\n' }).codes).toEqual([
      'requirements-format-unread',
    ]);
  });
});

describe('setup.cfg', () => {
  it('reads [options] install_requires: continuation lines, comments, markers; not extras_require', () => {
    const r = names({
      'setup.cfg': py`
        [metadata]
        name = demo
        [options]
        packages = find:
        install_requires =
            numpy>=1.20
            # a comment line
            requests  # an inline comment
            pywin32; sys_platform == "win32"
        python_requires = >=3.8
        [options.extras_require]
        dev = pytest
      `,
    });
    // pywin32's marker is false on Linux: dropped, as pip would.
    expect(r.names).toEqual(['numpy', 'requests']);
    expect(r.requirements[0]).toMatchObject({ from: 'setup.cfg', line: 6 });
  });

  it('a one-line value splits at `;` (setuptools rule); `file:` names requirements files', () => {
    expect(names({ 'setup.cfg': '[options]\ninstall_requires = numpy; scipy\n' }).names).toEqual(['numpy', 'scipy']);
    const r = names({
      'setup.cfg': '[options]\ninstall_requires = file: requirements/base.txt, requirements/gpu.txt\n',
      'requirements/base.txt': 'rich\n',
      'requirements/gpu.txt': 'pynvml\n',
    });
    expect(r.names).toEqual(['rich', 'pynvml']);
  });
});

describe('setup.py, read statically', () => {
  // Each case: a setup.py, what it must yield, and why.
  const cases: [string, string, string[], string[]?][] = [
    ['a literal list', `setup(name='x', install_requires=['numpy>=1.20', "scipy"])`, ['numpy', 'scipy']],
    ['a tuple, concatenated strings, `+` of lists', `setup(install_requires=('a' 'b',) + ['c'])`, ['ab', 'c']],
    ['setuptools.setup', `import setuptools\nsetuptools.setup(install_requires=['rich'])`, ['rich']],
    ['a name assigned a list', `REQS = ['rich']\nsetup(install_requires=REQS)`, ['rich']],
    [
      'appended and extended before setup() (not after)',
      `r = ['a']\nr.append('b')\nr += ['c']\nr.extend(['d'])\nsetup(install_requires=r)\nr.append('late')`,
      ['a', 'b', 'c', 'd'],
    ],
    [
      'inside `if __name__ == "__main__":`',
      `if __name__ == '__main__':\n    setup(install_requires=['rich'])`,
      ['rich'],
    ],
    [
      'a local variable of the function calling setup()',
      `def main():\n    deps = ['rich']\n    setup(install_requires=deps)\nmain()`,
      ['rich'],
    ],
    ['a string, one requirement a line', `setup(install_requires="numpy\\nscipy")`, ['numpy', 'scipy']],
    ['an f-string is not a literal', `setup(install_requires=[f"numpy{V}"])`, [], ['requirements-not-static']],
    ['a computed list is reported, never run', `setup(install_requires=get_deps())`, [], ['requirements-not-static']],
    ['setup(**kwargs) is reported', `kw = {}\nsetup(**kw)`, [], ['requirements-not-static']],
    ['a name never assigned', `setup(install_requires=deps)`, [], ['requirements-not-static']],
    ['names chasing each other stop', `a = b\nb = a\nsetup(install_requires=a)`, [], ['requirements-not-static']],
  ];
  it.each(cases)('%s', (_why, code, expected, codes = []) => {
    const r = names({ 'setup.py': `from setuptools import setup\n${code}\n` });
    expect(r.names).toEqual(expected);
    expect(r.codes).toEqual(codes);
  });

  // The requirements-file idioms: setup.py names a file with a literal path, and that file is read.
  const files: Tree = { 'requirements/runtime.txt': 'addict\n', 'requirements.txt': 'numpy\n', 'deps.txt': 'rich\n' };
  const idioms: [string, string, string[]][] = [
    [
      "OpenMMLab's parse_requirements with a path",
      `def parse_requirements(fname='requirements.txt', with_version=True):\n    pass\nsetup(install_requires=parse_requirements('deps.txt'))`,
      ['rich'],
    ],
    [
      "OpenMMLab's parse_requirements() with its default, assigned first (mmengine)",
      `def parse_requirements(fname='requirements/runtime.txt', with_version=True):\n    pass\ninstall_requires = parse_requirements()\nsetup(install_requires=install_requires)`,
      ['addict'],
    ],
    [
      'a keyword argument',
      `def fetch_requirements(path):\n    pass\nsetup(install_requires=fetch_requirements(path='deps.txt'))`,
      ['rich'],
    ],
    [
      'a helper with no argument whose body opens a literal path',
      `def reqs():\n    with open('deps.txt') as f:\n        return f.read().splitlines()\nsetup(install_requires=reqs())`,
      ['rich'],
    ],
    ['open().read().splitlines()', `setup(install_requires=open('deps.txt').read().splitlines())`, ['rich']],
    [
      'a comprehension over open()',
      `setup(install_requires=[l.strip() for l in open("deps.txt", "r") if l.strip()])`,
      ['rich'],
    ],
    [
      'with open(...) as f at module level',
      `with open('deps.txt', encoding='ascii') as f:\n    reqs = f.read().splitlines()\nsetup(install_requires=reqs)`,
      ['rich'],
    ],
    [
      'os.path.join(here, ...) with here = dirname(__file__)',
      `import os\nhere = os.path.abspath(os.path.dirname(__file__))\nwith open(os.path.join(here, 'requirements', 'runtime.txt')) as f:\n    reqs = f.read().splitlines()\nsetup(install_requires=reqs)`,
      ['addict'],
    ],
    [
      'Path(__file__).parent / name',
      `from pathlib import Path\nsetup(install_requires=(Path(__file__).parent / 'deps.txt').read_text().splitlines())`,
      ['rich'],
    ],
    [
      'a file opened to write is not what is read',
      `with open('out.txt', 'w') as g:\n    g.write('x')\nwith open('deps.txt', mode='rt') as f:\n    reqs = [l for l in f]\nsetup(install_requires=reqs)`,
      ['rich'],
    ],
    ['a path held in a name', `REQ = 'deps.txt'\nsetup(install_requires=open(REQ).read().splitlines())`, ['rich']],
  ];
  it.each(idioms)('%s', (_why, code, expected) => {
    // deps.txt is not a conventional file; requirements.txt and requirements/runtime.txt are turned off by `files`
    const r = names({ 'setup.py': `from setuptools import setup\n${code}\n`, ...files }, { files: [] });
    expect(r.names).toEqual(expected);
    expect(r.diagnostics).toEqual([]);
  });

  it('a file appended a computed value (mmcv) keeps what it read and reports the rest', () => {
    const r = names(
      {
        'setup.py': py`
          def parse_requirements(fname='requirements/runtime.txt'):
              pass
          install_requires = parse_requirements()
          try:
              import cv2
          except ImportError:
              for main, secondary in [('opencv-python-headless>=3', 'opencv-python>=3')]:
                  install_requires.append(choose_requirement(main, secondary))
          setup(install_requires=install_requires, extras_require={'all': parse_requirements('requirements.txt')})
        `,
        ...files,
      },
      { files: [] },
    );
    // extras_require is optional: requirements.txt (numpy) is not read.
    expect(r.names).toEqual(['addict']);
    expect(r.diagnostics).toMatchObject([
      { code: 'requirements-not-static', path: 'setup.py', span: { startLine: 8 }, severity: 'warning' },
    ]);
  });

  it('a name assigned in both branches of an if: the last before setup() is read, with a note', () => {
    const r = names(
      {
        'setup.py': py`
          if LITE:
              reqs = ['opencv-python-headless']
          else:
              reqs = ['opencv-python']
          setup(install_requires=reqs)
        `,
      },
      { files: [] },
    );
    expect(r.names).toEqual(['opencv-python']);
    expect(r.codes).toEqual(['requirements-conditional']);
  });

  it('a file setup.py names but the tree lacks is a warning', () => {
    const r = names({ 'setup.py': `setup(install_requires=open('nope.txt').readlines())\n` });
    expect(r.diagnostics).toMatchObject([
      { code: 'requirements-file-missing', path: 'setup.py', span: { startLine: 1 } },
    ]);
  });

  it('a syntax error elsewhere in setup.py does not stop the reading', () => {
    expect(names({ 'setup.py': `def broken(:\n  pass\nsetup(install_requires=['rich'])\n` }).names).toEqual(['rich']);
  });
});

describe('requirements files', () => {
  it("pip's format: comments, continuations, blank lines, hashes, options and URLs skipped with a reason", () => {
    const r = names({
      'requirements.txt': [
        '# a comment',
        '',
        'numpy>=1.20 \\',
        '    ,<2  # continued',
        'requests==2.31.0 --hash=sha256:0123abcd \\',
        '    --hash=sha256:4567ef',
        '--index-url https://evil.example/simple',
        '--extra-index-url=https://evil.example/simple',
        '-f https://evil.example/wheels',
        '-e git+https://github.com/a/b.git#egg=b',
        '.',
        './local/pkg',
        'git+https://github.com/cocodataset/cocoapi.git#subdirectory=PythonAPI&egg=pycocotools',
        'https://example.com/x-1.0-py3-none-any.whl',
        'mypkg @ https://example.com/mypkg.zip',
        '-c constraints.txt',
        'scipy  # trailing comment',
        'pkg#notacomment',
        '',
      ].join('\r\n'),
    });
    expect(r.names).toEqual(['numpy', 'requests', 'scipy']);
    expect(r.requirements[0]).toMatchObject({ spec: 'numpy>=1.20     ,<2', specifier: '>=1.20,<2', line: 3 });
    expect(r.requirements[1]).toMatchObject({ spec: 'requests==2.31.0', line: 5 });
    const skipped = r.diagnostics.filter((d) => d.code === 'requirement-skipped');
    expect(skipped.map((d) => d.span?.startLine)).toEqual([7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    expect(skipped[6].message).toContain('it would install pycocotools');
    // `pkg#notacomment` is one token: not a PEP 508 name, so a diagnostic with its line.
    expect(r.diagnostics.find((d) => d.code === 'requirement-invalid')).toMatchObject({
      path: 'requirements.txt',
      span: { startLine: 18 },
    });
    expect(r.diagnostics.every((d) => d.stage === 'sources')).toBe(true);
  });

  it('a UTF-8 byte-order mark does not spoil the first name', () => {
    expect(names({ 'requirements.txt': '\uFEFFnumpy\n' }).names).toEqual(['numpy']);
  });

  it('-r includes relative to the including file; test/docs/build/optional files not followed', () => {
    const r = names({
      'requirements.txt':
        '-r requirements/runtime.txt\n-r requirements/tests.txt\n--requirement=requirements/docs.txt\n',
      'requirements/runtime.txt': 'addict\n-r more/extra-runtime.txt\n-rmore/gpu.txt\n',
      'requirements/more/extra-runtime.txt': 'rich\n',
      'requirements/more/gpu.txt': 'pynvml\n',
      'requirements/tests.txt': 'pytest\n',
      'requirements/docs.txt': 'sphinx\n',
    });
    // extra-runtime.txt has the word `extra`: not followed. runtime.txt is read once although reached twice.
    expect(r.names).toEqual(['addict', 'pynvml']);
    expect(r.diagnostics.filter((d) => d.code === 'requirements-include-not-runtime').map((d) => d.message)).toEqual([
      expect.stringContaining('requirements/more/extra-runtime.txt'),
      expect.stringContaining('requirements/tests.txt'),
      expect.stringContaining('requirements/docs.txt'),
    ]);
  });

  it('conventional files are read when present; opts.files replaces them', () => {
    const tree = { 'requirements.txt': 'numpy\n', 'requirements/runtime.txt': 'rich\n', 'reqs/base.txt': 'scipy\n' };
    expect(names(tree).names).toEqual(['numpy', 'rich']);
    expect(names(tree, { files: ['reqs/base.txt'] }).names).toEqual(['scipy']);
    // a file the caller names that is missing is reported; a conventional one that is missing is not
    expect(names({}, { files: ['nope.txt'] }).codes).toEqual(['requirements-file-missing']);
    expect(names({}).diagnostics).toEqual([]);
  });

  it('malformed lines are diagnostics with file and line, capped per file', () => {
    const r = names({ 'requirements.txt': 'numpy>=\nfoo bar\n' + 'x!!\n'.repeat(40) + 'rich\n' });
    expect(r.names).toEqual(['rich']);
    const invalid = r.diagnostics.filter((d) => d.code === 'requirement-invalid');
    expect(invalid).toHaveLength(21);
    expect(invalid[0]).toMatchObject({ path: 'requirements.txt', span: { startLine: 1 } });
    expect(invalid[0].message).toContain('requirements.txt:1');
    expect(invalid[20].message).toMatch(/^22 more malformed/);
  });
});

describe('which included files count', () => {
  it.each([
    ['requirements/runtime.txt', true],
    ['requirements/runtime_lite.txt', true],
    ['requirements.txt', true],
    ['requirements/base.txt', true],
    ['requirements/tests.txt', false],
    ['requirements-dev.txt', false],
    ['dev-requirements.txt', false],
    ['requirements/docs_extra.txt', false],
    ['requirements/readthedocs.txt', false],
    ['requirements/mminstall.txt', false],
    ['requirements/build.txt', false],
    ['requirements/optional.txt', false],
    ['docs/requirements.txt', false],
    ['ci/requirements.txt', false],
    ['requirements/lint.txt', false],
  ])('%s → %s', (path, runtime) => expect(isRuntimeFile(path)).toBe(runtime));
});

describe('one record per name', () => {
  it('first declaration kept; clauses joined (PEP 440-equal ones once); extras united; later ones in `also`', () => {
    const r = names({
      'pyproject.toml': '[project]\ndependencies = ["matplotlib>=3.3.0", "Pillow[tiff]"]\n',
      'requirements.txt': 'matplotlib>=3.3\nmatplotlib<4\npillow[JPEG]>=9\n',
    });
    expect(r.requirements).toEqual([
      {
        name: 'matplotlib',
        spec: 'matplotlib>=3.3.0',
        from: 'pyproject.toml',
        line: 2,
        specifier: '>=3.3.0,<4',
        also: [
          { spec: 'matplotlib>=3.3', from: 'requirements.txt', line: 1 },
          { spec: 'matplotlib<4', from: 'requirements.txt', line: 2 },
        ],
      },
      {
        name: 'pillow',
        spec: 'Pillow[tiff]',
        from: 'pyproject.toml',
        line: 2,
        extras: ['jpeg', 'tiff'],
        specifier: '>=9',
        also: [{ spec: 'pillow[JPEG]>=9', from: 'requirements.txt', line: 3 }],
      },
    ]);
  });

  it('a marker that cannot be decided is kept and recorded, unless another declaration is unconditional', () => {
    const r = names({ 'requirements.txt': 'a; platform_release >= "5"\nb; platform_release >= "5"\nb\n' });
    expect(r.requirements.map((x) => [x.name, x.marker])).toEqual([
      ['a', 'platform_release >= "5"'],
      ['b', undefined],
    ]);
    expect(r.codes).toEqual(['requirement-marker-unknown', 'requirement-marker-unknown']);
  });
});

describe('requirementsToInstall', () => {
  it('drops the torch family and what the corpus provides, with the reason', () => {
    const r = names({
      'requirements.txt':
        'torch>=1.8\ntorchvision\ntriton\nnvidia-cudnn-cu12\nmmengine>=0.3\nsegment_anything\nnumpy\n',
    });
    const { kept, dropped } = requirementsToInstall(r.requirements, ['MMEngine', 'segment_anything']);
    expect(kept.map((k) => k.name)).toEqual(['numpy']);
    expect(dropped.map((d) => [d.requirement.name, d.reason, d.detail])).toEqual([
      ['torch', 'torch-family', 'torch'],
      ['torchvision', 'torch-family', 'torchvision'],
      ['triton', 'torch-family', 'triton'],
      ['nvidia-cudnn-cu12', 'torch-family', 'nvidia-*'],
      ['mmengine', 'provided-by-corpus', 'MMEngine'],
      ['segment-anything', 'provided-by-corpus', 'segment_anything'],
    ]);
  });
});

// The block page offers `pip install git+<url>@<commit>` only for a checkout pip can install from its top.
describe('installable', () => {
  it.each<[string, Tree, boolean]>([
    ['a setup.py', { 'setup.py': 'from setuptools import setup\nsetup()\n' }, true],
    ['a pyproject.toml with [project]', { 'pyproject.toml': '[project]\nname = "x"\n' }, true],
    ['a pyproject.toml with [build-system]', { 'pyproject.toml': '[build-system]\nrequires = ["setuptools"]\n' }, true],
    ['a pyproject.toml that only configures tools', { 'pyproject.toml': '[tool.black]\nline-length = 99\n' }, false],
    ['an unreadable pyproject.toml', { 'pyproject.toml': '[project\n' }, false],
    [
      'a setup.cfg alone (pip finds neither setup.py nor pyproject.toml)',
      { 'setup.cfg': '[metadata]\nname = x\n' },
      false,
    ],
    ['a research repository: requirements.txt and scripts', { 'requirements.txt': 'torch\n', 'main.py': '' }, false],
    ['a setup.py below the top', { 'pkg/setup.py': 'setup()\n' }, false],
  ])('%s', (_, tree, installable) => {
    expect(declaredRequirements(writeTree(tree)).installable).toBe(installable);
  });
});
