// The runner's failure classes as a table: each row runs a real Python snippet (real imports of a fixture
// package, a real broken shared object, real torch errors), hands what it raised to nnblocks_runner.classify, and
// checks the class and detail. The rows for `timeout`, `crashed` and a kernel kill come from real child processes
// and the runner's `death` rule. One row at least per class in FAILURE_CLASSES.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAILURE_CLASSES, type FailureClass } from '../../pipeline/contract/runner-record.ts';
import { testPython } from '../helpers/python.ts';
import { writeTree } from '../helpers/tree.ts';

const RUNNER_DIR = fileURLToPath(new URL('../../pipeline/validate/python/', import.meta.url));

interface Row {
  cls: FailureClass;
  stage: 'parse' | 'compile' | 'import' | 'build' | 'forward' | 'backward';
  /** Python run with the fixture package importable; it must raise. */
  code: string;
  detail: string | null;
  /** Violations the audit hook recorded before the exception, as (kind, detail). */
  violations?: [string, string][];
  /** The corpus's top-level packages (the job's own blocked ones are among them, see `Corpus.of`). */
  corpus?: string[];
  /** Extension modules the corpus's setup.py files declare. */
  native?: string[];
  why: string;
}

const ROWS: Row[] = [
  // syntax
  { cls: 'syntax', stage: 'parse', code: 'import ast; ast.parse("def f(:\\n")', detail: null, why: 'the file itself' },
  { cls: 'syntax', stage: 'import', code: 'import bad_syntax', detail: null, why: 'a file it imports' },
  // compile
  {
    cls: 'compile',
    stage: 'compile',
    code: 'import ast; compile(ast.parse("return 1"), "m.py", "exec")',
    detail: null,
    why: 'parses, but `return` outside a function is a compile error (SyntaxError raised by compile)',
  },
  { cls: 'compile', stage: 'import', code: 'import raises_on_import', detail: null, why: 'its body raises' },
  // missing-module: a module the corpus provides, or a submodule of an installed distribution
  {
    cls: 'missing-module',
    stage: 'import',
    code: 'import corpuspkg_q.layers',
    detail: 'corpuspkg_q',
    corpus: ['corpuspkg_q', 'otherpkg_q'],
    why: "a package of the corpus (another source's): the resolver should have inlined it, our fault, never blocked",
  },
  {
    cls: 'missing-module',
    stage: 'import',
    code: 'import json.no_such_submodule_q',
    detail: 'json.no_such_submodule_q',
    why: 'a submodule missing from an installed distribution (a version mismatch, `torch._six`): not blocked',
  },
  {
    cls: 'missing-module',
    stage: 'import',
    code: 'import fixturepkg.box_ops',
    detail: 'fixturepkg.box_ops',
    why: 'a missing pure-Python submodule is not a native extension, whatever its name',
  },
  {
    cls: 'missing-module',
    stage: 'import',
    code: [
      'from nnblocks_runner.containment import Blocker',
      'b = Blocker(["upstream_pkg"]); b.install()',
      'try:',
      '    import upstream_pkg.layers',
      'finally:',
      '    b.remove()',
    ].join('\n'),
    detail: 'upstream_pkg.layers',
    corpus: ['upstream_pkg'],
    why: 'the block leans on its blocked upstream package: the parent is refused first, the detail names what was asked',
  },
  // missing-dependency: not installed and not in the corpus, so the block is blocked (see the distribution table)
  {
    cls: 'missing-dependency',
    stage: 'import',
    code: 'import not_installed_xyz',
    detail: 'not_installed_xyz',
    corpus: ['corpuspkg_q'],
    why: 'ModuleNotFoundError.name names a top-level module that is neither installed nor in the corpus',
  },
  {
    cls: 'missing-dependency',
    stage: 'forward',
    code: 'from cv2_q_absent.dnn import blobFromImage',
    detail: 'cv2_q_absent',
    why: 'a lazy import in forward: the top-level module is what has to be installed',
  },
  {
    cls: 'missing-dependency',
    stage: 'forward',
    code: "raise ImportError(\"'radius_graph' requires 'pyg-lib-q>=0.6.0'\")",
    detail: 'pyg_lib_q',
    why: "PyG's own ImportError names the distribution it needs, not installed: blocked, as a missing import would be",
  },
  {
    cls: 'missing-module',
    stage: 'build',
    code: 'raise ImportError(\'TIMMBackbone requires timmq, please install it by `pip install "timmq"`\')',
    detail: 'timmq',
    corpus: ['timmq'],
    why: 'mmpretrain asks for timm, which the corpus provides (a git source): our failure, never blocked',
  },
  {
    cls: 'missing-module',
    stage: 'build',
    code: 'raise ImportError("Please install InplaceABN: \'pip install git+https://github.com/x/inplace_abn.git\'")',
    detail: null,
    why: 'a `pip install git+` URL names no distribution: nothing to be blocked by',
  },
  // unresolved-name
  {
    cls: 'unresolved-name',
    stage: 'build',
    code: 'undefined_global_q + 1',
    detail: 'undefined_global_q',
    why: 'NameError.name',
  },
  {
    cls: 'unresolved-name',
    stage: 'import',
    code: 'from fixturepkg import not_there',
    detail: 'not_there',
    why: 'cannot import name: the module exists, the name does not',
  },
  {
    cls: 'unresolved-name',
    stage: 'import',
    code: 'import fixturepkg; fixturepkg.missing_attr',
    detail: 'missing_attr',
    why: 'AttributeError while importing: a module attribute that is not there',
  },
  // native-extension
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'import fixturepkg._C',
    detail: 'fixturepkg._C',
    why: 'detectron2._C style: was missing-module when only the message was looked at',
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'from fixturepkg import _C',
    detail: 'fixturepkg._C',
    why: 'torchvision style `from . import _C`: was unresolved-name (the "_C." marker never matched a lower-cased message)',
  },
  {
    cls: 'native-extension',
    stage: 'build',
    code: [
      'try:',
      '    from fixturepkg import _C',
      'except ImportError:',
      '    pass',
      "raise ImportError(\"Cannot import 'fixturepkg._C', therefore 'DeformConv' is not available.\")",
    ].join('\n'),
    detail: 'fixturepkg._C',
    why: "detectron2's dummy class for a missing `_C` raises its own ImportError with no `name`: was missing-module",
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'import fixturepkg._ext',
    detail: 'fixturepkg._ext',
    why: 'mmcv._ext',
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'import fused_layer_norm_cuda',
    detail: 'fused_layer_norm_cuda',
    why: 'a top-level CUDA extension module (apex)',
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: [
      'from nnblocks_runner.containment import Blocker',
      'b = Blocker(["upstream_pkg"]); b.install()',
      'try:',
      '    import upstream_pkg._ext',
      'finally:',
      '    b.remove()',
    ].join('\n'),
    detail: 'upstream_pkg._ext',
    corpus: ['upstream_pkg'],
    why: 'mmcv._ext with mmcv blocked: the refused parent was `mmcv`, missing-module, before the Blocker named what was asked',
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'import MultiScaleDeformableAttention',
    detail: 'MultiScaleDeformableAttention',
    native: ['MultiScaleDeformableAttention'],
    why: "a top-level extension a corpus setup.py declares (CUDAExtension): was missing-module; pip can't bring it",
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: [
      'try:',
      '    import MultiScaleDeformableAttention',
      'except ModuleNotFoundError:',
      '    raise ModuleNotFoundError("Please compile the CUDA op with the following commands: `sh make.sh`")',
    ].join('\n'),
    detail: 'MultiScaleDeformableAttention',
    native: ['MultiScaleDeformableAttention'],
    why: "mask2former re-raises the declared extension's error with instructions and no `name`: the chain names it",
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'import deformpkg_q.ops.ms_deform',
    detail: 'deformpkg_q',
    native: ['deformpkg_q'],
    corpus: ['deformpkg_q'],
    why: 'a declared extension wins over the corpus package of the same name (a repository that builds its own ops)',
  },
  {
    cls: 'native-extension',
    stage: 'import',
    code: 'import brokenext',
    detail: 'brokenext',
    why: 'a shared object that does not load (ImportError.path ends in .so)',
  },
  {
    cls: 'native-extension',
    stage: 'forward',
    code: 'import torch; torch.ops.nnb_missing_ns.some_op',
    detail: null,
    why: 'a custom operator that was never registered (torch.ops namespace)',
  },
  // needs-arguments
  {
    cls: 'needs-arguments',
    stage: 'build',
    code: 'class B:\n    def __init__(self, backbone): pass\nB()',
    detail: null,
    why: 'a TypeError while building: no arguments found',
  },
  // forward-error
  {
    cls: 'forward-error',
    stage: 'forward',
    code: 'import torch; torch.zeros(2, 3) @ torch.zeros(4, 5)',
    detail: null,
    why: 'shapes do not fit',
  },
  // backward-error
  {
    cls: 'backward-error',
    stage: 'backward',
    code: 'import torch; torch.zeros(2).sum().backward()',
    detail: null,
    why: 'nothing requires a gradient',
  },
  // environment: not the block's failure (and never cached)
  {
    cls: 'environment',
    stage: 'import',
    code: 'import pwd; pwd.getpwuid(4242424)',
    detail: "the sandbox's user has no account entry (getpwuid)",
    why: 'torch 2.x asks getpass.getuser() for its caches: a sandbox without an account entry fails at import',
  },
  // memory
  { cls: 'memory', stage: 'build', code: 'bytearray(1 << 62)', detail: null, why: 'MemoryError' },
  {
    cls: 'memory',
    stage: 'forward',
    code: 'import torch; torch.empty(1 << 60)',
    detail: null,
    why: "torch's allocator: RuntimeError can't allocate memory",
  },
  // sandbox-violation
  {
    cls: 'sandbox-violation',
    stage: 'build',
    code: 'raise ValueError("swallowed the refusal, then failed")',
    detail: 'network: socket.connect 127.0.0.1',
    violations: [['network', 'socket.connect 127.0.0.1']],
    why: 'a recorded violation wins over whatever was raised after it',
  },
  {
    cls: 'sandbox-violation',
    stage: 'build',
    code: 'import errno; raise OSError(errno.EROFS, "Read-only file system", "/usr/lib/x")',
    detail: "[Errno 30] Read-only file system: '/usr/lib/x'",
    why: 'the kernel sandbox refused a write',
  },
];

const HARNESS = `
import errno, json, os, signal, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from nnblocks_runner.classify import Corpus, absent_imports, classify
from nnblocks_runner.protocol import Tail
from nnblocks_runner.supervise import death
out = []
for row in json.load(sys.stdin):
    try:
        exec(row["code"], {})
        out.append("did not raise")
    except BaseException as exc:
        corpus = Corpus(frozenset(row.get("corpus") or ()), frozenset(row.get("native") or ()))
        out.append(list(classify(exc, row["stage"], [tuple(v) for v in row.get("violations") or []], corpus)))

def status_of(body):
    pid = os.fork()
    if pid == 0:
        body()
        os._exit(0)
    return os.waitpid(pid, 0)[1]

job = {"timeoutMs": 1000}
deaths = {
    "exit": death(job, status_of(lambda: os._exit(3)), False, Tail()),
    "segv": death(job, status_of(lambda: os.kill(os.getpid(), signal.SIGSEGV)), False, Tail()),
    "xcpu": death(job, status_of(lambda: os.kill(os.getpid(), signal.SIGXCPU)), False, Tail()),
    "kill": death(job, status_of(lambda: os.kill(os.getpid(), signal.SIGKILL)), False, Tail()),
    "deadline": death(job, status_of(lambda: os.kill(os.getpid(), signal.SIGKILL)), True, Tail()),
}
import ast
SOURCE = """
import os, cv2_q_absent
from scipy_q_absent import ndimage
from . import sibling
import corpuspkg_q.layers
if os.name:
    import einops_q_absent
try:
    import guarded_q_absent
except ImportError:
    pass
def later():
    import lazy_q_absent
"""
corpus = Corpus.of({"blocked": ["own_q"], "corpus": {"packages": ["corpuspkg_q"], "native": ["Ext_q"]}})
extra = {"absent": absent_imports(ast.parse(SOURCE), corpus), "packages": sorted(corpus.packages),
         "native": sorted(corpus.native)}
print(json.dumps({"rows": out, "deaths": deaths, "extra": extra}))
`;

function run(): {
  rows: [string, string | null][];
  deaths: Record<string, [string, string, string | null]>;
  extra: { absent: string[]; packages: string[]; native: string[] };
} {
  const suffix = '.cpython-311-x86_64-linux-gnu.so';
  const fixtures = writeTree({
    'fixturepkg/__init__.py': '',
    'bad_syntax.py': 'def broken(:\n    pass\n',
    'raises_on_import.py': 'raise ValueError("configuration missing")\n',
    [`brokenext${suffix}`]: 'not an ELF file\n',
  });
  const out = execFileSync(testPython(), ['-I', '-B', '-c', HARNESS, RUNNER_DIR, fixtures], {
    input: JSON.stringify(ROWS),
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

describe('failure classes (nnblocks_runner.classify)', () => {
  const result = run();

  it.each(ROWS.map((row, i) => [row.cls, row.why, i] as const))('%s: %s', (cls, _why, i) => {
    expect(result.rows[i]).toEqual([cls, ROWS[i].detail]);
  });

  it('a child that died without a result: exit, signal, CPU limit, kernel kill, deadline', () => {
    const d = result.deaths;
    expect(d.exit.slice(0, 2)).toEqual(['crashed', 'exited with code 3']);
    expect(d.segv).toEqual(['crashed', 'killed by SIGSEGV', 'killed by SIGSEGV']);
    expect(d.xcpu[0]).toBe('timeout');
    expect(d.kill[0]).toBe('memory'); // SIGKILL we did not send: the OOM killer
    expect(d.deadline.slice(0, 2)).toEqual(['timeout', 'killed after the 1000 ms wall-clock limit']);
  });

  it('names every absent distribution the file imports unconditionally, not only the first', () => {
    // Module level only: not under `if` (a branch that may never run: mmcv's `if TORCH_VERSION == 'parrots'`), not
    // under `try` (guarded), not in functions (lazy), not relative, not the corpus.
    expect(result.extra.absent).toEqual(['cv2_q_absent', 'scipy_q_absent']);
  });

  it("takes the job's corpus: its packages, its own blocked packages among them, and declared extensions", () => {
    expect(result.extra.packages).toEqual(['corpuspkg_q', 'own_q']);
    expect(result.extra.native).toEqual(['Ext_q']);
  });

  it('has a row for every failure class', () => {
    // protocol-error is decided in TypeScript (a record that fails its schema): test/validate/record-check.test.ts.
    const covered = new Set<string>([...ROWS.map((r) => r.cls), 'timeout', 'crashed', 'protocol-error']);
    expect(FAILURE_CLASSES.filter((c) => !covered.has(c))).toEqual([]);
  });
});
