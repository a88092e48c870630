# Canonical figures of a block (docs/validate.md, "Canonical configurations", "MACs at builder configurations"): the
# parameter counts, output shapes and MACs of the models its source's zero-argument builders make, each built on
# torch's meta device where it can be (else on the CPU, without random initialisation) within a short share of the
# block's time, its shapes and MACs taken from one counted forward on the meta device.
# The figures are labelled with the builder's name; the recipe search (search.py) orders builder candidates by them.
import contextlib, copy, gc

import torch

from . import flops
from .classify import is_memory
from .measure import count, no_grad, shape_of, tensors
from .replay import _manual_seed, build, placed
from .shares import CANONICAL_BUILD_S, CANONICAL_MACS_S, OverBudget, budgeted, monotonic

MAX_CANONICAL = 8
_empty = torch.empty  # taken before any block is imported (see measure.py)


# Random fills a count never reads: skipped while builder configurations are counted (vgg16's 138 M parameters take
# a second to initialise and nothing to allocate). Only the count comes out of these builds.
INIT_TENSOR_METHODS = ("normal_", "uniform_", "random_", "exponential_", "geometric_", "log_normal_", "cauchy_",
                       "bernoulli_", "erfinv_")


@contextlib.contextmanager
def without_init():
    """Makes torch.nn.init's fills and the Tensor random fills no-ops for the duration; restores them after."""
    init_names = [n for n in dir(torch.nn.init) if n.endswith("_") and not n.startswith("_")]
    saved = [(torch.nn.init, n, getattr(torch.nn.init, n)) for n in init_names]
    saved += [(torch.Tensor, n, getattr(torch.Tensor, n)) for n in INIT_TENSOR_METHODS if hasattr(torch.Tensor, n)]

    def keep(*args, **kwargs):
        # By keyword too: under a torch-function mode (`with torch.device("meta")`), torch.nn.init's fills call
        # themselves again through handle_torch_function as `constant_(tensor=t, val=0.0)`.
        return args[0] if args else kwargs.get("tensor")

    try:
        for owner, name, _ in saved:
            setattr(owner, name, keep)
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def canonical(cls, builders, seed, deadline, usage_inputs=()):
    """Parameter counts of the block at its source's builder configurations (`resnet50`: 25,557,032), each built
    fresh within a short share, without random initialisation, and dropped; with the output shapes and MACs at a
    default input where one runs (default_output). A builder that fails, runs long or builds another class is left
    out: these are figures about this block, labelled with the builder's name."""
    out = []
    for c in builders[:MAX_CANONICAL]:
        left = deadline - monotonic()
        if left <= 0:
            break
        m, device = None, "cpu"
        try:
            with without_init():
                m, device = budgeted(min(CANONICAL_BUILD_S, left), lambda: make(cls, c, seed))
            fig = {"builder": c["builder"], "params": count(m, "_parameters")}
            if "config" in c:
                fig["config"] = c["config"]
            m = placed(m, "meta")
            shapes = default_output(m, usage_inputs, monotonic() + min(CANONICAL_BUILD_S, max(deadline - monotonic(), 0.5)))
            if shapes:
                fig.update(shapes)
            out.append(fig)
        except BaseException as exc:
            is_memory(exc)  # a count left out for memory is noted: under the shared tier the block runs again alone
        m = None
        if device != "meta":
            # Only a model built on the CPU holds memory a reference cycle could keep: a full collection walks every
            # object the block's imports made (some 50 ms in an OpenMMLab child), eight times a block.
            gc.collect()
    return out


# torch >= 2.0 makes `torch.device` a context manager: tensors a constructor creates without a device go to the meta
# device, which allocates nothing and fills nothing (timm's vit_huge: 2.7 s on the CPU, 0.2 s there).
_META = hasattr(torch.device("meta"), "__enter__")


def make(cls, c, seed):
    """(model, the device it was built on) of one configuration, built on the meta device where torch can and the
    constructor allows it, else on the CPU (a constructor that reads a value, `torch.linspace(...).item()`, can't run
    on meta): a builder's (replay.build, `resnet50()`), or a config file's, the class called with the dict's keys as
    they are (nested dicts stay dicts, which OpenMMLab classes build from; a copy, since they pop keys). A builder
    that returns another class is refused by build; so is a config's of another class."""
    if _META:
        try:
            with torch.device("meta"):
                return made(cls, c, seed, "meta"), "meta"
        except Exception:
            pass  # what the meta build made holds no memory
    return made(cls, c, seed, "cpu"), "cpu"


def made(cls, c, seed, device):
    if "config" not in c:
        return build(cls, c["kwargs"], seed, device, c["refs"], c["builder"])
    _manual_seed(seed)
    m = cls(**copy.deepcopy(c["kwargs"]))
    if type(m) is not cls:
        raise TypeError(f"{c['config']} built a {type(m).__name__}, not a {cls.__name__}")
    return placed(m, device)


# Inputs a builder's model is first tried at for its output shapes: an image classifier's 224 pixels, Inception's 299,
# a video model's 16 frames of 112 pixels. The corpus's own literal inputs (`model(torch.randn(1, 3, 640, 640))`)
# come first.
DEFAULT_INPUTS = ([1, 3, 224, 224], [1, 3, 299, 299], [1, 3, 16, 112, 112])
MAX_OUTPUTS = 8


def default_output(m, usage_inputs, until):
    """{"input", "outputs", "macs"?} or None: the output shapes of `m` (on the meta device) at the first default input
    it takes, and its MACs there (flops.counted), before `until`. On the meta device shapes propagate without
    arithmetic (a ResNet-50 at 224 pixels in milliseconds, where this CPU would take seconds); a model whose forward
    needs real values (a detector's NMS) gets none. The forward is counted once, within CANONICAL_MACS_S: a counted
    forward that fails or runs long (a block may lie to the counter, or pop it) gets its shapes from a plain forward
    at the same input, and no MACs."""
    tried = [u[0]["shape"] for u in usage_inputs if len(u) == 1 and set(u[0]) == {"shape", "dtype"}]
    for shape in [*tried, *DEFAULT_INPUTS]:
        if until - monotonic() <= 0:
            return None
        result, macs = None, None
        if flops.AVAILABLE:
            try:
                result, macs = budgeted(min(CANONICAL_MACS_S, until - monotonic()), lambda: flops.counted(m, shape))
            except (Exception, OverBudget):
                pass  # the same forward, uncounted, says whether the input fits
        if result is None:
            try:
                result = budgeted(max(until - monotonic(), 0.01), lambda: plain(m, shape))
            except OverBudget:
                return None
            except Exception:
                continue
        outs = tensors(result)
        if outs:
            fig = {"input": list(shape), "outputs": [shape_of(t) for t in outs[:MAX_OUTPUTS]]}
            return {**fig, "macs": macs} if macs is not None else fig
    return None


def plain(m, shape):
    with no_grad():
        return m(_empty(shape, device="meta"))
