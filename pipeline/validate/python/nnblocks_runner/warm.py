# What every block's child would otherwise import for itself, imported once in the worker before any fork
# (docs/validate.md, "The warm worker").
#
# torch wraps many of its functions in `torch._disable_dynamo`, whose first call imports torch._dynamo: entering the
# FLOP counter (canonical figures, too_costly), torch.utils.checkpoint, parts of nn.functional. With it come sympy
# and torch.fx's symbolic shapes, about 900 modules and 1-2 s on torch 2.14. A forked child starts from the worker's
# modules, so each block that touched one of those functions paid the import again: py-spy on the children of a
# paper-corpus run put it at 47% of their time (1,669 of 3,550 s). Imported here, every child inherits it.
#
# triton is held off while torch._dynamo imports (a None entry in sys.modules makes `import triton` fail), as flops.py
# does for the counter: dynamo imports it only to know whether it could compile GPU kernels, which a run with
# TORCHDYNAMO_DISABLE never does, and triton maps 188 MB of address space that every child would inherit.
#
# Python's `platform.uname().processor` runs `uname -p` in a subprocess the first time it is asked (3.9+), which a
# block's sandbox refuses: h5py asks at import, so every transformers model (whose weight loaders import h5py) was a
# sandbox violation. Asked here once, the answer is cached in the worker and every child inherits it.
import contextlib, logging, platform, sys

# Modules to import, in order; a torch without one (1.13 has no torch._dynamo) skips it.
MODULES = ("torch._dynamo", "torch.fx.experimental.symbolic_shapes")


@contextlib.contextmanager
def triton_held(*loggers):
    """`import triton` fails while this holds (unless triton was already imported), and the named loggers keep
    quiet (torch warns that triton is missing); torch's remembered answer to "is triton installed" is cleared after,
    since nothing asked while it was held."""
    held = "triton" not in sys.modules
    logs = [(log, log.level) for log in map(logging.getLogger, loggers)]
    if held:
        sys.modules["triton"] = None
    for log, _ in logs:
        log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        if held and "triton" in sys.modules and sys.modules["triton"] is None:
            del sys.modules["triton"]
        for log, level in logs:
            log.setLevel(level)
        clear = getattr(getattr(sys.modules.get("torch.utils._triton"), "has_triton_package", None), "cache_clear", None)
        if clear is not None:
            clear()


def platform_answers():
    """Caches what `platform` answers through a subprocess (the processor), so that no child asks again."""
    try:
        _ = platform.uname().processor
    except Exception:
        pass


def warm():
    """Imports MODULES with triton held off; returns the names that imported. Never raises: a module that fails to
    import here is imported (or fails) in the block's child as before."""
    platform_answers()
    done = []
    with triton_held("torch._dynamo", "torch.utils.flop_counter"):
        for name in MODULES:
            try:
                __import__(name)
                done.append(name)
            except Exception:
                pass
    return done
