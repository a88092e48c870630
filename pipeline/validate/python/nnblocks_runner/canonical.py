# Canonical figures of a block (docs/validate.md, "Canonical configurations", "MACs at builder configurations"): the
# parameter counts, output shapes and MACs of the models its source's zero-argument builders make, each built without
# random initialisation within a short share of the block's time, shapes and MACs taken on torch's meta device.
# The figures are labelled with the builder's name; the recipe search (search.py) orders builder candidates by them.
import contextlib, copy, gc

import torch

from . import flops
from .measure import count, no_grad, shape_of, tensors
from .replay import _manual_seed, build, placed
from .shares import CANONICAL_BUILD_S, CANONICAL_MACS_S, budgeted, monotonic

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

    def keep(t, *args, **kwargs):
        return t

    try:
        for owner, name, _ in saved:
            setattr(owner, name, keep)
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def canonical(cls, builders, seed, deadline, usage_inputs=()):
    """Parameter counts of the block at its source's builder configurations (`resnet50`: 25,557,032), each built
    fresh within a short share, without random initialisation, and dropped; with the output shapes at a default
    input where one runs (default_output). A builder that fails, runs long or builds another class is left out:
    these are figures about this block, labelled with the builder's name.

    Then, while the share lasts, the MACs of each configuration that has shapes, at the same input (canonical_macs),
    on the meta-device module kept for it (no storage: moving to meta freed its parameters). A second pass, so that
    counting costs no configuration its count or shapes on a slow machine: they are exactly what they were without."""
    out, kept = [], []
    for c in builders[:MAX_CANONICAL]:
        left = deadline - monotonic()
        if left <= 0:
            break
        try:
            with without_init():
                m = budgeted(min(CANONICAL_BUILD_S, left), lambda: make(cls, c, seed))
            fig = {"builder": c["builder"], "params": count(m, "_parameters")}
            if "config" in c:
                fig["config"] = c["config"]
            m, shapes = budgeted(min(CANONICAL_BUILD_S, max(deadline - monotonic(), 0.5)), lambda: default_output(m, usage_inputs))
            if shapes:
                fig.update(shapes)
                kept.append((fig, m))
            out.append(fig)
        except BaseException:
            pass
        m = None
        gc.collect()
    for fig, m in kept:
        n = canonical_macs(m, fig["input"], deadline)
        if n is not None:
            fig["macs"] = n
    return out


def make(cls, c, seed):
    """The model of one configuration: a builder's (replay.build, `resnet50()`), or a config file's, the class called
    with the dict's keys as they are (nested dicts stay dicts, which OpenMMLab classes build from; a copy, since
    they pop keys). A builder that returns another class is refused by build; so is a config's of another class."""
    if "config" not in c:
        return build(cls, c["kwargs"], seed, "cpu", c["refs"], c["builder"])
    _manual_seed(seed)
    m = cls(**copy.deepcopy(c["kwargs"]))
    if type(m) is not cls:
        raise TypeError(f"{c['config']} built a {type(m).__name__}, not a {cls.__name__}")
    return placed(m, "cpu")


def canonical_macs(m, shape, deadline):
    """MACs of meta-device `m` at the input its output shapes were taken at (flops.macs), or None: no counter (torch
    < 2.1), no time left in the canonical share, slower than CANONICAL_MACS_S, or any error."""
    seconds = min(CANONICAL_MACS_S, deadline - monotonic())
    if not flops.AVAILABLE or seconds <= 0:
        return None
    try:
        return budgeted(seconds, lambda: flops.macs(m, shape))
    except BaseException:
        return None


# Inputs a builder's model is first tried at for its output shapes: an image classifier's 224 pixels, Inception's 299,
# a video model's 16 frames of 112 pixels. The corpus's own literal inputs (`model(torch.randn(1, 3, 640, 640))`)
# come first.
DEFAULT_INPUTS = ([1, 3, 224, 224], [1, 3, 299, 299], [1, 3, 16, 112, 112])
MAX_OUTPUTS = 8


def default_output(m, usage_inputs):
    """(`m` on the meta device, {"input", "outputs"} or None): the output shapes of `m` at the first default input it
    takes. Computed on torch's meta device, which propagates shapes without arithmetic (a ResNet-50 at 224 pixels in
    milliseconds, where this CPU would take seconds); a model whose forward needs real values (a detector's NMS) gets
    none. The moved module comes back for the MACs at the same input."""
    m = placed(m, "meta")
    tried = [u[0]["shape"] for u in usage_inputs if len(u) == 1 and set(u[0]) == {"shape", "dtype"}]
    for shape in [*tried, *DEFAULT_INPUTS]:
        try:
            with no_grad():
                outs = tensors(m(_empty(shape, device="meta")))
        except Exception:
            continue
        if outs:
            return m, {"input": list(shape), "outputs": [shape_of(t) for t in outs[:MAX_OUTPUTS]]}
    return m, None
