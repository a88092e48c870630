# Failure classes: an exception raised in a stage -> (class, detail), decided by the exception's type and the module
# it names (`ImportError.name`), in one ordered table. Message text is a last resort, and always compared in lower
# case on both sides (a mixed-case marker such as "_C." can never match a lower-cased message).
# The classes are FAILURE_CLASSES in pipeline/validate/types.ts; docs/validate.md ("Failure classes") explains them.
# An import that fails is our fault or upstream's, and the class says which: a module of the corpus itself
# (`missing-module`: the resolver should have inlined it), a distribution that is not installed here
# (`missing-dependency`: the block is blocked, not broken), or a compiled extension (`native-extension`).
import ast, errno, importlib.util, re
from typing import FrozenSet, NamedTuple

from .containment import Violation

# The last part of a module name that is a compiled extension: `torchvision._C`, `detectron2._C`, `mmcv._ext`,
# `apex.amp_C`, `fused_layer_norm_cuda`, `deform_conv_cpp`. A pure-Python `box_ops` or `ext_utils` is not one.
NATIVE_MODULE = re.compile(r"_?C(_\w+)?|_ext|\w+_(C|ext|cuda|cpp)")
# Loader and dispatcher messages that only a compiled extension produces.
NATIVE_TEXT = ("undefined symbol", "cannot open shared object", ".so:", "torch.ops", "no such operator", "cpp_extension",
               "could not run '", "not compiled with cuda", "cuda extension", "_opnamespace",
               "custom c++ ops")  # torchvision: "Couldn't load custom C++ ops"
MEMORY_TEXT = ("out of memory", "can't allocate memory", "std::bad_alloc", "cannot allocate memory")
DENIED = (errno.EROFS, errno.EACCES, errno.EPERM, errno.ECONNREFUSED, errno.ENETUNREACH)
BY_STAGE = {"parse": "syntax", "compile": "compile", "import": "compile", "build": "needs-arguments",
            "forward": "forward-error", "backward": "backward-error"}


def imported_name(exc):
    """`X` of "cannot import name 'X' from 'pkg'", or None (Python 3.12 also has it as `exc.name_from`)."""
    m = re.search(r"cannot import name '([^']+)'", str(exc))
    return m.group(1) if m else None


def reported_module(exc):
    """`M` of "Cannot import 'M', therefore 'DeformConv' is not available": the ImportError a library raises
    itself, with no `name`, for a module it failed to import earlier (detectron2's dummy classes for `_C`)."""
    m = re.match(r"cannot import '([A-Za-z_][\w.]*)'", str(exc), re.IGNORECASE)
    return m.group(1) if m else None


def import_target(exc):
    """The module an ImportError is about: `pkg.X` for `from pkg import X`, else `exc.name`, else the module a
    library's own message names (`reported_module`)."""
    name, member = getattr(exc, "name", None), imported_name(exc)
    return f"{name}.{member}" if name and member else member or name or reported_module(exc)


def is_native_import(exc):
    target = import_target(exc) or ""
    path = getattr(exc, "path", None) or ""
    return (bool(NATIVE_MODULE.fullmatch(target.rsplit(".", 1)[-1])) or path.endswith(".so")
            or any(m in str(exc).lower() for m in NATIVE_TEXT))


# Whether this child met a memory error anywhere, classified or swallowed (canonical counts, fidelity): set by
# `is_memory`. Under the shared memory tier such a block is stopped and runs again alone under the full limit
# (stages.run_block; docs/validate.md, "Memory tiers"), so no record depends on which tier it ran under.
MEMORY_MET = []


def is_memory(exc):
    hit = isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError" or any(
        m in str(exc).lower() for m in MEMORY_TEXT)
    if hit:
        MEMORY_MET.append(type(exc).__name__)
    return hit


class Corpus(NamedTuple):
    """What classification knows of the corpus (the job's `corpus`, from the TypeScript side): the top-level
    packages its sources provide (blocked ones included), and the extension modules their setup.py files declare
    (`CUDAExtension("MultiScaleDeformableAttention", ...)`), read as text and never run."""
    packages: FrozenSet[str] = frozenset()
    native: FrozenSet[str] = frozenset()

    @staticmethod
    def of(job):
        c = job.get("corpus") or {}
        packages = set(c.get("packages") or ()) | set(job.get("blocked") or ())
        return Corpus(frozenset(packages), frozenset(c.get("native") or ()))


NO_CORPUS = Corpus()
# A top-level module name we may look up and publish: an ASCII identifier (record-check.ts holds the same rule).
MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def top(name):
    return (name or "").split(".")[0]


# A library's own ImportError about a distribution it needs, named in quotes or after `pip install`:
#   "'radius_graph' requires 'pyg-lib>=0.6.0'" (PyG), "TIMMBackbone requires timm, please install it by
#   `pip install "timm"`" (mmpretrain). A `pip install git+https://...` names a URL, not a distribution.
NEEDED_DIST = re.compile(r"""requires ['"`]([A-Za-z][\w.-]{0,99})|pip install ['"`]?([A-Za-z][\w.-]{0,99})(?![\w+:/])""")
# Nameless ImportErrors followed down their chain (`raise ImportError("compile it")` in an `except ImportError`).
MAX_CHAIN = 4


def unchained(exc):
    """The ImportError a nameless one was raised while handling: mask2former re-raises the missing
    `MultiScaleDeformableAttention` as ModuleNotFoundError("Please compile ... `sh make.sh`"), whose `name` is None;
    the one it handled names the module."""
    for _ in range(MAX_CHAIN):
        inner = exc.__cause__ or exc.__context__
        if not (isinstance(exc, ImportError) and import_target(exc) is None and isinstance(inner, ImportError)):
            break
        exc = inner
    return exc


def needs(exc, test):
    """Whether a nameless ImportError asks for a distribution whose module passes `test`."""
    found = needed_distribution(exc)
    return found is not None and bool(MODULE_NAME.fullmatch(found[1])) and test(found[1])


def needed_distribution(exc):
    """(distribution, its module) that a nameless ImportError's message asks for, or None: the module is the name
    lower-cased with `-` and `.` as `_` (`pyg-lib` -> `pyg_lib`), as most distributions name theirs. The record
    names the module, as for any missing dependency (the catalog maps modules to distributions)."""
    if not isinstance(exc, ImportError) or import_target(exc) is not None:
        return None
    m = NEEDED_DIST.search(str(exc))
    if not m:
        return None
    dist = m.group(1) or m.group(2)
    return dist, re.sub(r"[-.]", "_", dist.lower())


def is_declared_native(exc, corpus):
    """`import MultiScaleDeformableAttention`: a module a corpus setup.py builds as an extension, or a submodule."""
    target = import_target(exc) or ""
    return any(target == n or target.startswith(n + ".") for n in corpus.native)


def installed(name):
    """Whether a top-level module can be found here (the sandbox's Python, /usr only). find_spec searches the path;
    it does not run the module. A finder that raises (a block's own hook) counts as not found."""
    try:
        return importlib.util.find_spec(name) is not None
    except BaseException:
        return False


def is_absent_dependency(exc, corpus):
    """A ModuleNotFoundError for a top-level module that no corpus source provides and that is not installed.
    `torch._six` (a submodule of an installed distribution that moved) is not one: that stays missing-module."""
    name = getattr(exc, "name", None)
    t = top(name)
    return (isinstance(exc, ModuleNotFoundError) and bool(MODULE_NAME.fullmatch(t)) and t not in corpus.packages
            and not installed(t))


def absent_imports(tree, corpus):
    """Top-level modules the file imports unconditionally (module level; not under `if`, whose branch may never
    run, nor under `try`) that are neither in the corpus nor installed, in order of first import: every
    distribution a blocked block needs, not just the first one the import tripped on.
    `import cv2` / `from scipy import ndimage` -> ["cv2", "scipy"]; `if TORCH_VERSION == "parrots": import parrots`
    is left out (mmcv and mmengine guard an alternative framework like that)."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = [top(a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [top(node.module)]
        else:
            continue
        for t in names:
            if t not in found and MODULE_NAME.fullmatch(t) and t not in corpus.packages and not installed(t):
                found.append(t)
    return found


def native_statement(exc, tree, path, corpus=NO_CORPUS):
    """`from detectron2 import _C` with `detectron2` refused or absent: the error names only `detectron2`, imported
    first; the statement that failed (the block file's line in the traceback) says `detectron2._C` was asked for.
    Returns a ModuleNotFoundError naming that compiled extension (caused by `exc`), or `exc` when the statement asked
    for none. `import mmcv._ext` needs no help: the Blocker names what was asked (containment.requested_module)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return exc
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None:
        return exc
    for node in ast.walk(tree):
        if (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and (node.module == exc.name or node.module.startswith(exc.name + "."))
                and node.lineno <= line <= (node.end_lineno or node.lineno)):
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                if NATIVE_MODULE.fullmatch(alias.name) or any(target == n or target.startswith(n + ".") for n in corpus.native):
                    err = ModuleNotFoundError(f"No module named '{target}' (needed by the statement that failed)", name=target)
                    err.__cause__ = exc
                    return err
    return exc


def with_absent_imports(detail, tree, corpus):
    """The detail of `missing-dependency` (top-level module names, comma-separated, the one that failed first)
    completed with the file's other absent imports: at most 16 names (record-check.ts refuses more)."""
    names = detail.split(", ")
    names += [n for n in absent_imports(tree, corpus) if n not in names]
    return ", ".join(names[:16])


# (id, applies(exc, stage, corpus), (class, detail) of exc). First match wins; `violation` is checked before the
# table. The order is the point: a compiled extension before any missing module, the corpus's own packages before
# "not installed" (a corpus package is never installed in the sandbox, and missing it is our resolver's fault).
RULES = (
    # The environment, not the block: the sandbox's user has no account entry (torch 2.x asks getpass.getuser() for
    # its cache folders). The sandbox provides one; should it ever be missing, no block is blamed, and the record is
    # not cached (validate.ts).
    ("environment:account", lambda e, s, c: isinstance(e, KeyError) and "getpwuid" in str(e).lower(),
     lambda e: ("environment", "the sandbox's user has no account entry (getpwuid)")),
    ("memory", lambda e, s, c: is_memory(e), lambda e: ("memory", None)),
    ("import:native", lambda e, s, c: isinstance(e, ImportError) and (is_native_import(e) or is_declared_native(e, c)),
     lambda e: ("native-extension", import_target(e))),
    # A library's message naming the distribution it needs: the corpus's own (mmpretrain's TIMMBackbone asking for
    # timm) is missing-module, one not installed here missing-dependency; an installed one (a version too old) is
    # left to the rules below.
    ("import:needs-corpus", lambda e, s, c: needs(e, lambda m: m in c.packages),
     lambda e: ("missing-module", needed_distribution(e)[1])),
    ("import:needs-absent", lambda e, s, c: needs(e, lambda m: not installed(m)),
     lambda e: ("missing-dependency", needed_distribution(e)[1])),
    ("import:corpus", lambda e, s, c: isinstance(e, ModuleNotFoundError) and top(e.name) in c.packages,
     lambda e: ("missing-module", e.name)),
    ("import:absent", lambda e, s, c: is_absent_dependency(e, c), lambda e: ("missing-dependency", top(e.name))),
    ("import:missing", lambda e, s, c: isinstance(e, ModuleNotFoundError), lambda e: ("missing-module", e.name)),
    ("import:name", lambda e, s, c: isinstance(e, ImportError) and imported_name(e) is not None,
     lambda e: ("unresolved-name", imported_name(e))),
    ("import:other", lambda e, s, c: isinstance(e, ImportError), lambda e: ("missing-module", e.name)),
    ("name", lambda e, s, c: isinstance(e, NameError), lambda e: ("unresolved-name", getattr(e, "name", None) or str(e))),
    ("native:text", lambda e, s, c: any(m in str(e).lower() for m in NATIVE_TEXT), lambda e: ("native-extension", None)),
    ("denied", lambda e, s, c: isinstance(e, OSError) and e.errno in DENIED, lambda e: ("sandbox-violation", str(e))),
    ("syntax", lambda e, s, c: isinstance(e, SyntaxError) and s != "compile", lambda e: ("syntax", None)),
    ("attribute:import", lambda e, s, c: isinstance(e, AttributeError) and s == "import",
     lambda e: ("unresolved-name", getattr(e, "name", None))),
)


def classify(exc, stage, violations=(), corpus=NO_CORPUS):
    """(failure class, detail) for `exc` raised in `stage`; `violations` are the (kind, detail) pairs the audit
    hook recorded in this child: any of them makes the block a sandbox violation, whatever was raised after.
    `corpus` tells the corpus's own packages and declared extensions apart from distributions not installed."""
    if violations or isinstance(exc, Violation):
        kind, detail = violations[0] if violations else ("sandbox", str(exc))
        return "sandbox-violation", f"{kind}: {detail}"
    exc = unchained(exc)
    for _, applies, result in RULES:
        if applies(exc, stage, corpus):
            return result(exc)
    return BY_STAGE[stage], None
