// The "Reproduce locally" script (src/lib/replay.ts): strings become Python literals CPython reads back unchanged,
// a recipe with any value out of its rules gets no script at all, and the hostile fixture's script, run for real
// against a stand-in block, builds it with exactly the recorded kwargs and runs nothing else.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { PYTHON_KEYWORDS, TORCH_DTYPES, type TorchDtype } from '../../pipeline/contract/vocabulary.ts';
import { pyLiteral, pyStr } from '../../src/lib/py-literal.ts';
import { replayScript } from '../../src/lib/replay.ts';
import { testPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tree.ts';
import { FORGED, HOSTILE_KWARG_VALUE, makeCatalog } from './fixtures/make-catalog.ts';
import { auditPython, REPLAY_ATTRIBUTES, REPLAY_NAMES } from './helpers/python-audit.ts';

const catalog = makeCatalog({ dir: join(tempDir('nnb-replay-'), 'catalog'), blocks: 20 });
const read = (slug: string): BlockSpec =>
  JSON.parse(readFileSync(join(catalog.dir, 'blocks', `${slug}.json`), 'utf8')) as BlockSpec;
const python = (code: string, input = '') =>
  execFileSync(testPython(), ['-I', '-c', code], { input, encoding: 'utf8' }).trim();

describe('Python literals', () => {
  it('writes strings CPython reads back unchanged, in printable ASCII only', () => {
    const nasty = [
      HOSTILE_KWARG_VALUE,
      "'''",
      '"""',
      '\\',
      '\\N{BULLET}',
      'tab\there\r\nnull\u0000',
      '\u202e\u2066bidi\u2069',
      'emoji 🙂 and lone \ud800',
      'f"{__import__(\'os\')}"',
    ];
    const literals = nasty.map(pyStr);
    for (const l of literals) expect(l, l).toMatch(/^'[\x20-\x7e]*'$/);
    const back = python(
      'import ast, json, sys\nprint(json.dumps([ast.literal_eval(l) for l in json.load(sys.stdin)]))',
      JSON.stringify(literals),
    );
    expect(JSON.parse(back)).toEqual(nasty);
  });

  it('writes None, booleans, numbers, lists as lists and tuples as tuples; refuses anything else', () => {
    const v = [null, true, false, 0, -1.5, 1e21, 5e-7, [1], [[1, 2], ['a']]];
    expect(pyLiteral(v)).toBe("[None, True, False, 0, -1.5, 1e+21, 5e-7, [1], [[1, 2], ['a']]]");
    expect(python(`import ast\nprint(ast.literal_eval(${JSON.stringify(pyLiteral(v))}))`)).toBe(
      "[None, True, False, 0, -1.5, 1e+21, 5e-07, [1], [[1, 2], ['a']]]",
    );
    // A recipe's tuple (RecipeValue) is the only tuple: Swin's `window_size=[4, 4]` ran as a list, and a tuple
    // there fails (`'tuple' object has no attribute 'copy'`).
    expect(pyLiteral({ tuple: [8, [1, 2]] })).toBe('(8, [1, 2])');
    expect(pyLiteral([{ tuple: [8] }, { tuple: [] }])).toBe('[(8,), ()]');
    expect(pyLiteral({ tuple: [8], call: 'os.system' })).toBeNull();
    expect(pyLiteral({ __class__: 'os' })).toBeNull();
    expect(pyLiteral([[[[[1]]]]])).toBeNull(); // deeper than RUN_LIMITS.literalDepth
    expect(pyLiteral('x'.repeat(201))).toBeNull();
  });

  it('knows the keywords CPython knows', () => {
    expect(JSON.parse(python('import keyword, json\nprint(json.dumps(keyword.kwlist))'))).toEqual([...PYTHON_KEYWORDS]);
  });
});

describe('replay script', () => {
  it('is refused, whole, when any one recipe value breaks its rule', () => {
    expect(replayScript(read(catalog.forgeable.slug))).toBeDefined();
    const edits: [string, (s: BlockSpec) => void][] = [
      ['kwarg name', (s) => s.validation!.recipe!.kwargs.push({ name: FORGED.kwargName, value: 1 })],
      ['keyword', (s) => s.validation!.recipe!.kwargs.push({ name: 'lambda', value: 1 })],
      ['dtype', (s) => (s.validation!.recipe!.inputs[0].dtype = FORGED.dtype)],
      ['output dtype', (s) => (s.validation!.outputs[0].dtype = FORGED.dtype)],
      ['checksum', (s) => (s.validation!.outputs[0].checksum = FORGED.checksum)],
      ['projection', (s) => (s.validation!.outputs[0].projection = FORGED.checksum)],
      ['ref', (s) => (s.validation!.recipe!.refs = [FORGED.ref])],
      [
        'ref target',
        (s) => (s.validation!.recipe!.kwargs.push({ name: 'n', value: 'os; x' }), (s.validation!.recipe!.refs = ['n'])),
      ],
      ['seed', (s) => Object.assign(s.validation!.recipe!, { seed: FORGED.seed })],
      ['shape', (s) => Object.assign(s.validation!.recipe!.inputs[0], { shape: ['2); import os'] })],
      ['high', (s) => Object.assign(s.validation!.recipe!.inputs[0], { high: '2); import os' })],
      ['device', (s) => (s.validation!.device = FORGED.device)],
      ['value', (s) => s.validation!.recipe!.kwargs.push({ name: 'v', value: { toString: 'x' } as never })],
      ['dict key', (s) => Object.assign(s.validation!.recipe!.inputs[0], { keys: ["0'): import os #"] })],
      ['empty keys', (s) => Object.assign(s.validation!.recipe!.inputs[0], { keys: [] })],
      ['int input', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: '2; import os' })],
      ['negative int input', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: -1 })],
      ['name that is code', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: ["a'); import os #"] })],
      ['mixed literal', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: ['a', 1] })],
      ['nested too deep', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: [[[1]]] })],
      ['long size', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: [[1, 2, 3, 4, 5]] })],
      ['many names', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: Array(17).fill('a') })],
      ['literal object', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: { toString: 'x' } })],
      [
        'tuple of an object',
        (s) => s.validation!.recipe!.kwargs.push({ name: 't', value: { tuple: [{ x: 1 }] } as never }),
      ],
      ['tuple input of names', (s) => Object.assign(s.validation!.recipe!.inputs[0], { value: { tuple: ['a'] } })],
      [
        'nested call target',
        (s) =>
          (s.validation!.recipe!.calls = [
            { name: 't', target: '.T', kwargs: [{ name: 'n', value: { call: 'os; x', kwargs: [] } as never }] },
          ]),
      ],
      [
        'nested call kwarg',
        (s) =>
          (s.validation!.recipe!.calls = [
            {
              name: 't',
              target: '.T',
              kwargs: [{ name: 'n', value: { call: '.U', kwargs: [{ name: 'lambda', value: 1 }] } }],
            },
          ]),
      ],
      ['boxes side', (s) => Object.assign(s.validation!.recipe!.inputs[0], { shape: [4, 5], boxes: '32); import os' })],
      ['boxes shape', (s) => Object.assign(s.validation!.recipe!.inputs[0], { shape: [4, 6], boxes: 32 })],
    ];
    for (const [what, edit] of edits) {
      const spec = read(catalog.forgeable.slug);
      edit(spec);
      expect(replayScript(spec), what).toBeUndefined();
    }
  });

  it('writes the hostile recipe as literals and resolved refs only', () => {
    const script = replayScript(read(catalog.hostile.slug))!;
    expect(script).toMatch(/^[\x20-\x7e\n]*$/);
    const a = auditPython(script);
    expect(a.error).toBeNull();
    expect(a.imports).toEqual(['contextlib', 'importlib', 'json', 'math', 'sys', 'torch']);
    expect(a.names.filter((n) => !/^x\d+$/.test(n))).toEqual(REPLAY_NAMES.filter((n) => a.names.includes(n)));
    const dtypes: readonly string[] = TORCH_DTYPES;
    expect(a.attributes.filter((n) => !REPLAY_ATTRIBUTES.includes(n) && !dtypes.includes(n))).toEqual([]);
    expect(a.strings).toContain(HOSTILE_KWARG_VALUE);
    expect(a.importModule).toEqual(["entry['module']", "'torch.nn'"]);
  });

  it('builds the block with exactly the recorded kwargs when run, and runs nothing else', () => {
    const spec = read(catalog.hostile.slug);
    const dir = tempDir('nnb-replay-run-');
    mkdirSync(join(dir, 'blocks', 'pkg'), { recursive: true });
    // A stand-in for the extracted block: it records what it was built with and returns a tensor.
    writeFileSync(
      join(dir, 'blocks', 'pkg', 'standin.py'),
      [
        'import json, torch',
        'class Helper: pass',
        'class Block(torch.nn.Module):',
        '    def __init__(self, **kw):',
        '        super().__init__()',
        '        seen = {k: (v.__module__ + "." + v.__qualname__ if isinstance(v, type) else v) for k, v in kw.items()}',
        '        open("built.json", "w").write(json.dumps(seen))',
        '    def forward(self, x):',
        '        return x * 2',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'blocks', 'manifest.json'),
      JSON.stringify({
        blocks: [{ id: spec.id, importRoot: join(dir, 'blocks'), module: 'pkg.standin', className: 'Block' }],
      }),
    );
    // The stand-in's outputs are not the recorded ones: the script says so and fails (a replay checks, not just runs).
    const run = (s: BlockSpec) =>
      spawnSync(testPython(), ['-I', '-c', replayScript(s)!], { cwd: dir, encoding: 'utf8' });
    const wrong = run(spec);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('AssertionError');
    expect(wrong.stdout).not.toContain('replayed:');
    // With the stand-in's own outputs recorded, the same script passes.
    const got = JSON.parse(
      python(
        'import ast, json, sys\nprint(json.dumps(ast.literal_eval(sys.stdin.read().split("outputs: ", 1)[1].splitlines()[0])))',
        wrong.stdout,
      ),
    ) as [number[], string, number, number][];
    // The stand-in's outputs with a projection off by a tenth of its value: its Σ|x| matches, and the script fails
    // on the projection.
    spec.validation!.outputs = got.map(([shape, dtype, checksum, projection]) => ({
      shape,
      dtype: dtype as TorchDtype,
      checksum: String(checksum),
      projection: String(projection * 1.1),
    }));
    const moved = run(spec);
    expect(moved.status).toBe(1);
    expect(moved.stderr).toContain("AssertionError: ('projection'");
    spec.validation!.outputs = got.map(([shape, dtype, checksum, projection]) => ({
      shape,
      dtype: dtype as TorchDtype,
      checksum: String(checksum),
      projection: String(projection),
    }));
    const right = run(spec);
    expect(right.stderr).toBe('');
    expect(right.status).toBe(0);
    const out = right.stdout;
    expect(out).toContain('replayed: outputs match the recorded checksums');
    expect(out).not.toContain('uid=');
    expect(JSON.parse(readFileSync(join(dir, 'built.json'), 'utf8'))).toEqual({
      dim: 64,
      label: HOSTILE_KWARG_VALUE,
      norm_layer: 'torch.nn.modules.normalization.LayerNorm',
      block: 'pkg.standin.Helper',
    });
  });

  it('draws dict, boxes, literal and pyramid inputs exactly as the runner does (same seed, same tensors, same values)', () => {
    const spec = read(catalog.forgeable.slug);
    spec.validation!.recipe!.inputs = [
      { shape: [2, 4, 3, 3], dtype: 'float32', keys: ['0', 'high'] },
      { shape: [], dtype: 'int64', value: 2 },
      { shape: [6, 5], dtype: 'float32', boxes: 32, high: 2 },
      { shape: [3, 4], dtype: 'float64', boxes: 7, list: 2 },
      { shape: [], dtype: 'int64', value: ['p2', 'pool'] },
      {
        shape: [],
        dtype: 'int64',
        value: [
          [32, 24],
          [16, 16],
        ],
      },
      {
        shape: [2, 3, 8, 8],
        dtype: 'float32',
        levels: [
          [2, 3, 8, 8],
          [2, 5, 4, 4],
        ],
      },
    ];
    const script = replayScript(spec)!;
    expect(script).toContain(
      "x0 = {k: torch.randn((2, 4, 3, 3), generator=g, dtype=torch.float32).to(device) for k in ['0', 'high']}",
    );
    expect(script).toContain('x1 = 2');
    expect(script).toContain('x2 = boxes_of((6, 5), 32, 2, torch.float32).to(device)');
    expect(script).toContain("x4 = ['p2', 'pool']");
    expect(script).toContain('x5 = [(32, 24), (16, 16)]');
    expect(script).toContain(
      'x6 = [torch.randn(shape, generator=g, dtype=torch.float32).to(device) for shape in [(2, 3, 8, 8), (2, 5, 4, 4)]]',
    );
    // The runner's make_inputs on the same specs and seed: the same dict (key order, values), the same boxes, and
    // literals of the same Python types (lists stay lists, image sizes become tuples).
    const runner = join(import.meta.dirname, '..', '..', 'pipeline', 'validate', 'python');
    const lines = script.split('\n');
    const from = lines.findIndex((l) => l.startsWith('g = '));
    const draws = lines.slice(
      from,
      lines.findIndex((l) => l.startsWith('with torch.no_grad')),
    );
    const code = [
      'import json, sys, torch',
      `sys.path.insert(0, ${JSON.stringify(runner)})`,
      'from nnblocks_runner.replay import make_inputs',
      "device = 'cpu'",
      ...draws,
      `ours = make_inputs(json.loads(sys.argv[1]), ${spec.validation!.recipe!.seed}, "cpu")`,
      'same = list(ours[0]) == list(x0) and all(torch.equal(ours[0][k], x0[k]) for k in x0) and ours[1] == x1',
      'same = same and torch.equal(ours[2], x2) and all(torch.equal(a, b) for a, b in zip(ours[3], x3, strict=True))',
      'same = same and ours[4] == x4 and type(x4) is list and ours[5] == x5 and type(x5[0]) is tuple',
      'same = same and [t.shape for t in x6] == [(2, 3, 8, 8), (2, 5, 4, 4)]',
      'same = same and all(torch.equal(a, b) for a, b in zip(ours[6], x6, strict=True))',
      // The boxes hold: image indices 0, 1, 0...; x2 > x1, y2 > y1; inside the image.
      'b = x2',
      'same = same and b[:, 0].tolist() == [0, 1, 0, 1, 0, 1] and bool((b[:, 3] > b[:, 1]).all() and (b[:, 4] > b[:, 2]).all())',
      'same = same and bool((b[:, 1:] >= 0).all() and (b[:, 1:] <= 32).all()) and all(bool((t <= 7).all()) for t in x3)',
      'print(json.dumps(same))',
    ].join('\n');
    const out = execFileSync(testPython(), ['-c', code, JSON.stringify(spec.validation!.recipe!.inputs)], {
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim())).toBe(true);
  });

  it('builds with lists as lists and tuples as tuples, as the runner built it', () => {
    const spec = read(catalog.forgeable.slug);
    spec.validation!.recipe!.kwargs = [
      { name: 'window_size', value: [4, 4] },
      { name: 'size', value: { tuple: [8, 8] } },
      { name: 'nested', value: [{ tuple: [1] }, [2]] },
    ];
    spec.validation!.outputs = [];
    const script = replayScript(spec)!;
    expect(script).toContain("'window_size': [4, 4],");
    expect(script).toContain("'size': (8, 8),");
    expect(script).toContain("'nested': [(1,), [2]],");
    const dir = tempDir('nnb-replay-types-');
    mkdirSync(join(dir, 'blocks', 'pkg'), { recursive: true });
    // Swin's `ShiftedWindowAttention` copies its window: `self.window_size.copy()` needs the list it was given.
    writeFileSync(
      join(dir, 'blocks', 'pkg', 'standin.py'),
      [
        'import json, torch',
        'class Block(torch.nn.Module):',
        '    def __init__(self, window_size, size, nested):',
        '        super().__init__()',
        '        window_size.copy()',
        '        kinds = [type(window_size), type(size), type(nested), type(nested[0]), type(nested[1])]',
        '        open("built.json", "w").write(json.dumps([k.__name__ for k in kinds]))',
        '    def forward(self, x):',
        '        return x',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'blocks', 'manifest.json'),
      JSON.stringify({
        blocks: [{ id: spec.id, importRoot: join(dir, 'blocks'), module: 'pkg.standin', className: 'Block' }],
      }),
    );
    const res = spawnSync(testPython(), ['-I', '-c', script], { cwd: dir, encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(JSON.parse(readFileSync(join(dir, 'built.json'), 'utf8'))).toEqual([
      'list',
      'tuple',
      'list',
      'tuple',
      'list',
    ]);
  });

  it("measures each output's projection as the runner does (measure.py `projection`)", () => {
    const script = replayScript(read(catalog.forgeable.slug))!;
    const lines = script.split('\n');
    const measured = lines.slice(
      lines.findIndex((l) => l.startsWith('def measured')),
      lines.findIndex((l) => l.startsWith('def near')),
    );
    const runner = join(import.meta.dirname, '..', '..', 'pipeline', 'validate', 'python');
    const code = [
      'import json, sys, torch',
      `sys.path.insert(0, ${JSON.stringify(runner)})`,
      'from nnblocks_runner.measure import output_record',
      ...measured,
      'g = torch.Generator().manual_seed(3)',
      'ts = [torch.randn(2, 64, 14, 14, generator=g), torch.randn(3, 5, generator=g, dtype=torch.float64) * 1e-12,',
      '      torch.zeros(0, 4), torch.zeros(2, 3), torch.randint(0, 9, (4, 4), generator=g)]',
      'rows = [(measured(t)[2:4], output_record(t)) for t in ts]',
      "print(json.dumps([[s, p, r['checksum'], r['projection']] for (s, p), r in rows]))",
    ].join('\n');
    const rows = JSON.parse(python(code)) as number[][];
    for (const [s, p, checksum, projection] of rows) {
      expect(s).toBe(checksum);
      expect(p).toBe(projection);
    }
    // Not ≈ 0 where Σ|x| is: a 1e-12 output projects to its own scale, not to 0.
    expect(Math.abs(rows[1][1])).toBeGreaterThan(1e-14);
    expect(rows[0][1]).not.toBe(0);
  });

  it('checks the sensitivity of outputs that are all zeros, as the runner measures it', () => {
    const spec = read(catalog.forgeable.slug);
    Object.assign(spec.validation!.recipe!, {
      kwargs: [{ name: 'width', value: 4 }],
      refs: [],
      inputs: [{ shape: [2, 3], dtype: 'float32' }],
    });
    spec.validation!.outputs = [{ shape: [2, 2], dtype: 'float32', checksum: '0', projection: '0' }];
    const dir = tempDir('nnb-replay-zeros-');
    mkdirSync(join(dir, 'blocks', 'pkg'), { recursive: true });
    // ViT's shape of the problem: a zero-initialised head makes the output 0 whatever the body computes.
    writeFileSync(
      join(dir, 'blocks', 'pkg', 'standin.py'),
      [
        'import torch',
        'class Block(torch.nn.Module):',
        '    def __init__(self, width):',
        '        super().__init__()',
        '        self.body = torch.nn.Linear(3, width)',
        '        self.head = torch.nn.Linear(width, 2)',
        '        torch.nn.init.zeros_(self.head.weight)',
        '        torch.nn.init.zeros_(self.head.bias)',
        '    def forward(self, x):',
        '        return self.head(self.body(x).relu())',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'blocks', 'manifest.json'),
      JSON.stringify({
        blocks: [{ id: spec.id, importRoot: join(dir, 'blocks'), module: 'pkg.standin', className: 'Block' }],
      }),
    );
    const runner = join(import.meta.dirname, '..', '..', 'pipeline', 'validate', 'python');
    const measured = python(
      [
        'import json, sys',
        `sys.path[:0] = [${JSON.stringify(runner)}, ${JSON.stringify(join(dir, 'blocks'))}]`,
        'from nnblocks_runner.replay import build, sensitivity',
        'from pkg.standin import Block',
        `specs, seed = [{"shape": [2, 3], "dtype": "float32"}], ${spec.validation!.recipe!.seed}`,
        "print(sensitivity(lambda: build(Block, {'width': 4}, seed, 'cpu'), specs, seed, 'cpu'))",
      ].join('\n'),
    );
    expect(Number(measured)).toBeGreaterThan(0);
    const run = (sensitivity: string) => {
      spec.validation!.sensitivity = sensitivity;
      return spawnSync(testPython(), ['-I', '-c', replayScript(spec)!], { cwd: dir, encoding: 'utf8' });
    };
    const right = run(measured);
    expect(right.stderr).toBe('');
    expect(right.stdout).toContain('replayed: the zero outputs move with the parameters as recorded');
    const wrong = run(String(Number(measured) * 1.01));
    expect(wrong.stderr).toContain("AssertionError: ('sensitivity'");
    const a = auditPython(replayScript(spec)!);
    expect(a.imports).toEqual(['contextlib', 'importlib', 'json', 'math', 'sys', 'torch']);
    expect(a.names.filter((n) => !/^x\d+$/.test(n))).toEqual(REPLAY_NAMES.filter((n) => a.names.includes(n)));
    const dtypes: readonly string[] = TORCH_DTYPES;
    expect(a.attributes.filter((n) => !REPLAY_ATTRIBUTES.includes(n) && !dtypes.includes(n))).toEqual([]);
  });

  it("replays a part: the builder's model, the submodule at its path, fed what the model passes it", () => {
    const spec = read(catalog.forgeable.slug);
    Object.assign(spec.validation!.recipe!, {
      origin: 'part',
      builder: 'net',
      builderModule: 'pkg.standin',
      path: 'body.1',
      kwargs: [{ name: 'width', value: 4 }],
      refs: [],
      inputs: [{ shape: [2, 3], dtype: 'float32' }],
    });
    // No outputs recorded, so no checksum check: the run below compares the part's output with the runner's itself.
    spec.validation!.outputs = [];
    const script = replayScript(spec)!;
    expect(script).toContain("    model = getattr(module, 'net')(**kwargs)\nmodel = model.to(device)\nmodel.eval()");
    expect(script).toContain("block = model.get_submodule('body.1')");
    // Forged: a path that is code, a path on a recipe that is no part's, a part without its path.
    for (const [what, over] of [
      ['path', { path: "body'); import os #" }],
      ['origin', { origin: 'inference' }],
      ['no path', { path: undefined }],
      ['no builder', { builder: undefined }],
    ] as const) {
      const forged = read(catalog.forgeable.slug);
      Object.assign(forged.validation!.recipe!, { ...spec.validation!.recipe!, ...over });
      expect(replayScript(forged), what).toBeUndefined();
    }
    // Run for real on a stand-in: the model calls its part with a keyword; the script's output is the runner's.
    const dir = tempDir('nnb-replay-part-');
    mkdirSync(join(dir, 'blocks', 'pkg'), { recursive: true });
    writeFileSync(
      join(dir, 'blocks', 'pkg', 'standin.py'),
      [
        'import torch',
        'class Block(torch.nn.Module):',
        '    def __init__(self, width):',
        '        super().__init__()',
        '        self.fc = torch.nn.Linear(width, 2)',
        '    def forward(self, x, *, scale):',
        '        return self.fc(x) * scale',
        'class Net(torch.nn.Module):',
        '    def __init__(self, width):',
        '        super().__init__()',
        '        self.body = torch.nn.ModuleList([torch.nn.Linear(3, width), Block(width)])',
        '    def forward(self, x):',
        '        return self.body[1](self.body[0](x).relu(), scale=3.0) + 1',
        'def net(width=8):',
        '    return Net(width)',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'blocks', 'manifest.json'),
      JSON.stringify({
        blocks: [{ id: spec.id, importRoot: join(dir, 'blocks'), module: 'pkg.standin', className: 'Block' }],
      }),
    );
    const runner = join(import.meta.dirname, '..', '..', 'pipeline', 'validate', 'python');
    const code = [
      script,
      'import json',
      `sys.path.insert(0, ${JSON.stringify(runner)})`,
      'from nnblocks_runner.replay import build, forward',
      'r = json.loads(sys.argv[1])',
      "ours = forward(build(Block, {'width': 4}, r['seed'], 'cpu', (), 'net', (), {'path': 'body.1'}), r['inputs'], r['seed'], 'cpu')",
      'print(json.dumps([out.tolist(), ours[0].tolist()]))',
    ].join('\n');
    const recipe = { seed: spec.validation!.recipe!.seed, inputs: spec.validation!.recipe!.inputs };
    const res = execFileSync(testPython(), ['-I', '-c', code, JSON.stringify(recipe)], { cwd: dir, encoding: 'utf8' });
    const [replayed, fromRunner] = JSON.parse(res.trim()) as number[][][];
    expect(replayed).toHaveLength(2);
    expect(replayed).toEqual(fromRunner);
  });
});
