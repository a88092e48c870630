# Failure classes: an exception raised in a stage -> (class, detail), decided by the exception's type and the module
# it names (`ImportError.name`), in one ordered table. Message text is a last resort, and always compared in lower
# case on both sides (a mixed-case marker such as "_C." can never match a lower-cased message).
# The classes are FAILURE_CLASSES in pipeline/validate/types.ts; docs/validate.md ("Failure classes") explains them.
import errno, re

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


def import_target(exc):
    """The module an ImportError is about: `pkg.X` for `from pkg import X`, else `exc.name`."""
    name, member = getattr(exc, "name", None), imported_name(exc)
    return f"{name}.{member}" if name and member else member or name


def is_native_import(exc):
    target = import_target(exc) or ""
    path = getattr(exc, "path", None) or ""
    return (bool(NATIVE_MODULE.fullmatch(target.rsplit(".", 1)[-1])) or path.endswith(".so")
            or any(m in str(exc).lower() for m in NATIVE_TEXT))


def is_memory(exc):
    return isinstance(exc, MemoryError) or type(exc).__name__ == "OutOfMemoryError" or any(
        m in str(exc).lower() for m in MEMORY_TEXT)


# (id, applies(exc, stage), (class, detail) of exc). First match wins; `violation` is checked before the table.
RULES = (
    ("memory", lambda e, s: is_memory(e), lambda e: ("memory", None)),
    ("import:native", lambda e, s: isinstance(e, ImportError) and is_native_import(e),
     lambda e: ("native-extension", import_target(e))),
    ("import:missing", lambda e, s: isinstance(e, ModuleNotFoundError), lambda e: ("missing-module", e.name)),
    ("import:name", lambda e, s: isinstance(e, ImportError) and imported_name(e) is not None,
     lambda e: ("unresolved-name", imported_name(e))),
    ("import:other", lambda e, s: isinstance(e, ImportError), lambda e: ("missing-module", e.name)),
    ("name", lambda e, s: isinstance(e, NameError), lambda e: ("unresolved-name", getattr(e, "name", None) or str(e))),
    ("native:text", lambda e, s: any(m in str(e).lower() for m in NATIVE_TEXT), lambda e: ("native-extension", None)),
    ("denied", lambda e, s: isinstance(e, OSError) and e.errno in DENIED, lambda e: ("sandbox-violation", str(e))),
    ("syntax", lambda e, s: isinstance(e, SyntaxError) and s != "compile", lambda e: ("syntax", None)),
    ("attribute:import", lambda e, s: isinstance(e, AttributeError) and s == "import",
     lambda e: ("unresolved-name", getattr(e, "name", None))),
)


def classify(exc, stage, violations=()):
    """(failure class, detail) for `exc` raised in `stage`; `violations` are the (kind, detail) pairs the audit
    hook recorded in this child: any of them makes the block a sandbox violation, whatever was raised after."""
    if violations or isinstance(exc, Violation):
        kind, detail = violations[0] if violations else ("sandbox", str(exc))
        return "sandbox-violation", f"{kind}: {detail}"
    for _, applies, result in RULES:
        if applies(exc, stage):
            return result(exc)
    return BY_STAGE[stage], None
