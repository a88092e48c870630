# Multiply-accumulates (MACs) of one forward, counted by torch's own FLOP counter (`torch.utils.flop_counter`,
# torch >= 2.1) on the meta device: shapes propagate without arithmetic, and the counter's formulas read only
# shapes, so a ResNet-50 at 224 pixels is counted in tens of milliseconds. torch 1.13 has no counter: AVAILABLE is
# False and nothing is counted (the catalog field is simply absent).
#
# What is counted: the counter's formulas, i.e. matrix multiplications and convolutions (mm, addmm, bmm, baddbmm,
# convolution, scaled-dot-product attention...), at 2 FLOPs per multiply-add. Elementwise ops, normalisation,
# activations and pooling count zero. We publish the count halved, as MACs: the convention of torchvision's
# published `_ops` figures (named GFLOPS there, multiply-accumulates in fact: resnet50 4.089, which is this count).
#
# What a block can do to a TorchDispatchMode, and what holds anyway (docs/validate.md, "Canonical configurations"):
# - Replace `torch.utils.flop_counter`'s names, or register formulas of its own into the global `flop_registry`
#   (`register_flop_formula`), before we count: the class, its enter/exit/total methods and a copy of the formula
#   table are taken when the runner starts, before any block is imported, as measure.py does for its references.
# - Its forward runs inside the mode, so it can reach the mode (`_get_current_dispatch_mode()`), pop it, change its
#   counts or run ops where it doesn't look: it lies about its own figure, as it can about its own outputs. It runs
#   in its own forked child: no other block's figure moves.
# - Raise, or leave the mode stack unbalanced: any exception means no figure, and the stack is cut back to what it
#   was, so the later stages don't run under a stale counter (or a mode of the block's own left on top of it).
# - Run long: the caller caps the count (canonical.default_output); absurd totals are refused here and in TypeScript.
import torch

from .warm import triton_held


def _import_counter():
    """`torch.utils.flop_counter`, imported with triton held off (warm.triton_held). The module imports triton only to
    recognise triton kernels, which never run on the meta device, and triton maps 188 MB of address space
    (libtriton.so): every block's child would inherit it, a fifth of what torch 2.x's CUDA wheels leave a block under
    the 4 GiB limit (their import alone maps 3.2 GiB). Raises ImportError under torch < 2.1."""
    with triton_held("torch.utils.flop_counter"):
        from torch.utils import flop_counter
    return flop_counter


try:
    _flop_counter = _import_counter()
    from torch.utils._python_dispatch import TorchDispatchMode as _Mode
    _FORMULAS = dict(_flop_counter.flop_registry)
    _enter, _exit = _Mode.__enter__, _Mode.__exit__
    _decompose = torch._ops.OpOverload.decompose
    _HigherOrder = torch._ops.HigherOrderOperator
    _DEVICE = torch.ops.prim.device.default
    AVAILABLE = True
except Exception:  # torch < 2.1: no torch.utils.flop_counter
    AVAILABLE = False


if AVAILABLE:
    # The ops FlopCounterMode leaves to the tensor's own sizes and strides policy (NJT's); never counted.
    _QUERIES = frozenset(getattr(torch.ops.aten, name).default for name in (
        "sym_is_contiguous", "is_contiguous", "is_strides_like_format", "is_non_overlapping_and_dense", "size",
        "sym_size", "stride", "sym_stride", "storage_offset", "sym_storage_offset", "numel", "sym_numel", "dim")
        if hasattr(torch.ops.aten, name)) | {torch.ops.aten.is_contiguous.memory_format, torch.ops.prim.layout.default}

    class _Counting(_Mode):
        """FlopCounterMode's count, without its module tracker: the same formulas (the table as torch shipped it),
        the same rule for an op without one (decomposed where torch can, its parts counted), one total. The tracker
        keeps a count per module through hooks on every module's forward, which a total never reads: they were 10 to
        17% of a counted forward on the meta device (resnet50: 47 ms counted, 39 ms here, 29 ms uncounted), and on
        935 builder configurations of the paper corpus the counted forwards were 134 of canonical's 234 s. The
        tracker also refused models that hand a view of a parameter to a submodule (timm's CaiT, its class token:
        "Expected gradient function to be set"), which got their shapes from a second, uncounted forward and no
        MACs. A higher-order operator (`torch.cond`) raises: no figure rather than a guess."""

        def __init__(self):
            super().__init__()
            self.flops = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func in _QUERIES:
                return NotImplemented
            if isinstance(func, _HigherOrder):
                raise NotImplementedError(f"no MACs through {func}")
            # As FlopCounterMode tests it: the table's keys are packets (`aten.mm`), `func` an overload of one, so
            # every op is offered to its decomposition first.
            if func not in _FORMULAS and func is not _DEVICE:
                with self:
                    r = _decompose(func, *args, **kwargs)
                    if r is not NotImplemented:
                        return r
            out = func(*args, **kwargs)
            formula = _FORMULAS.get(func._overloadpacket)
            if formula is not None:
                self.flops += formula(*args, **kwargs, out_val=out)
            return out


# The user dispatch-mode stack (torch >= 2.1); without them the stack is not cut back, and counting still works.
_stack_len = getattr(torch._C, "_len_torch_dispatch_stack", None)
_pop_mode = getattr(torch._C, "_pop_torch_dispatch_stack", None)

_empty, _no_grad, _type, _int = torch.empty, torch.no_grad, type, int

# The largest figure published: integers above 2**53 - 1 are not exact in JSON readers (the catalog's readers are
# JavaScript), and no model at a default input comes near (vit_h_14 at 224 pixels: 1.7e11).
MACS_MAX = 2**53 - 1


def macs(m, shape):
    """MACs of one forward of `m` (a module on the meta device) at a float input of `shape`; None when torch has no
    counter or the total is not a plausible count. Raises what the forward raises."""
    return counted(m, shape)[1] if AVAILABLE else None


def counted(m, shape):
    """(output, MACs or None) of one forward of meta-device `m` at a float input of `shape`, under the counter (torch
    has one: AVAILABLE; the caller checks): the canonical figures take a configuration's output shapes and its
    MACs from the same forward. Raises what the forward raises."""
    counter = _Counting()
    depth = _stack_len() if _stack_len and _pop_mode else None
    try:
        with _no_grad():
            _enter(counter)
            try:
                out = m(_empty(shape, device="meta"))
            finally:
                _exit(counter, None, None, None)
    finally:
        while depth is not None and _stack_len() > depth:  # a mode the block pushed and left, or ours
            _pop_mode(None)
    flops = counter.flops
    if _type(flops) is not _int or not 0 <= flops <= 2 * MACS_MAX:
        return out, None
    return out, flops // 2  # every formula counts 2 FLOPs per multiply-add
