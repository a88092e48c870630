// What a generated Python script does, read by CPython's own parser (`ast`): the modules it imports, every name and
// attribute it uses, its string constants, and what it hands to importlib. The replay tests compare these with what
// the script should do, so a value that slipped out of its literal shows up as a name or a call of its own.
import { execFileSync } from 'node:child_process';
import { testPython } from '../../helpers/python.ts';

export interface PythonAudit {
  /** null when the text parses; the SyntaxError otherwise. */
  error: string | null;
  imports: string[];
  names: string[];
  attributes: string[];
  strings: string[];
  /** The source of each `importlib.import_module(...)` argument. */
  importModule: string[];
}

const AUDIT = `
import ast, json, sys
src = sys.stdin.read()
try:
    tree = ast.parse(src)
except SyntaxError as e:
    print(json.dumps({"error": str(e)}))
    sys.exit(0)
names, attrs, strings, imports, dyn = set(), set(), [], [], []
for n in ast.walk(tree):
    if isinstance(n, ast.Name):
        names.add(n.id)
    elif isinstance(n, ast.Attribute):
        attrs.add(n.attr)
    elif isinstance(n, ast.Constant) and isinstance(n.value, str):
        strings.append(n.value)
    elif isinstance(n, (ast.Import, ast.ImportFrom)):
        imports += [a.name for a in n.names]
    if isinstance(n, ast.Call) and ast.unparse(n.func) == "importlib.import_module":
        dyn += [ast.unparse(a) for a in n.args]
print(json.dumps({"error": None, "imports": sorted(imports), "names": sorted(names), "attributes": sorted(attrs),
                  "strings": strings, "importModule": dyn}))
`;

export function auditPython(source: string): PythonAudit {
  return JSON.parse(
    execFileSync(testPython(), ['-I', '-c', AUDIT], { input: source, encoding: 'utf8' }),
  ) as PythonAudit;
}

/** Everything a replay script may name: its own variables, builtins it calls, the modules it imports. */
export const REPLAY_NAMES = [
  'Block',
  'FILL_MIN',
  'POOL',
  'POOLS',
  '_',
  'a',
  'abs',
  'all',
  'attrs',
  'b',
  'bytes',
  'c',
  'calls',
  'contextlib',
  'd',
  'defaults',
  'delattr',
  'depth',
  'device',
  'dict',
  'dtype',
  'entry',
  'fill',
  'fill_args',
  'float',
  'g',
  'getattr',
  'given',
  'got',
  'grads',
  'i',
  'importlib',
  'int',
  'isinstance',
  'json',
  'k',
  'kw',
  'kwargs',
  'leaves',
  'len',
  'list',
  'm',
  'math',
  'max',
  'measured',
  'min',
  'model',
  'module',
  'n',
  'name',
  'names',
  'near',
  'next',
  'norm',
  'normal',
  'normal_',
  'offset',
  'open',
  'out',
  'outs',
  'p',
  'pool',
  'print',
  'projected',
  'put',
  'r',
  'range',
  'recorded',
  's',
  'same',
  'saved',
  'scale',
  'seed',
  'sensitivity',
  'set',
  'setattr',
  'shape',
  'shift',
  'start',
  'str',
  'sum',
  'sys',
  't',
  'takes',
  'tensors',
  'tol',
  'torch',
  'tuple',
  'type',
  'u',
  'uniform',
  'uniform_',
  'unwrapped',
  'v',
  'values',
  'w',
  'want',
  'want_dtype',
  'want_p',
  'want_s',
  'want_shape',
  'was',
  'weights',
  'wrt',
  'x',
  'zip',
];
export const REPLAY_ATTRIBUTES = [
  'Generator',
  'Module',
  'Parameter',
  'Tensor',
  '__dict__',
  'abs',
  'add_',
  'autograd',
  'bfloat16',
  'contextmanager',
  'copy_',
  'cos',
  'cpu',
  'detach',
  'device',
  'double',
  'dtype',
  'empty',
  'enable_grad',
  'eval',
  'float',
  'float16',
  'float32',
  'float64',
  'get',
  'grad',
  'import_module',
  'insert',
  'is_floating_point',
  'is_grad_enabled',
  'isclose',
  'isfinite',
  'isnan',
  'item',
  'items',
  'load',
  'log1p',
  'manual_seed',
  'mul_',
  'nn',
  'no_grad',
  'norm',
  'normal_',
  'numel',
  'parameters',
  'path',
  'pi',
  'rand',
  'randint',
  'randn',
  'replace',
  'requires_grad',
  'requires_grad_',
  'shape',
  'sqrt',
  'sum',
  'to',
  'type',
  'uniform_',
  'values',
  'view',
];
