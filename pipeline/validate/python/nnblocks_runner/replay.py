# The replay protocol (docs/validate.md, "Replay protocol"): how a recipe turns into inputs, a built module, a
# forward and a backward pass, and how outputs are summarised. A reader replaying a published recipe does exactly
# this, so every function here is deterministic given the recipe's seed. The torch functions it draws inputs and
# seeds with are taken when the runner starts, before any block is imported (as measure.py's): a block that replaces
# `torch.randn` or `torch.manual_seed` changes its own forward, never the recipe's inputs.
import importlib, sys

import torch

from . import infer
from .fill import Fill
from .measure import (backward_of, clear_grad, enable_grad, finite, grad_of, is_floating, make_differentiable, no_grad,
                      plain, projection_gradient, requires_grad, tensors, tensors_of)
from .part import block_of, part_of
from .protocol import error_text

_Generator, _manual_seed, _randn, _randint, _rand, _cat, _arange, _to = (
    torch.Generator, torch.manual_seed, torch.randn, torch.randint, torch.rand, torch.cat, torch.arange,
    torch.Tensor.to)
_DTYPES = {name: value for name, value in vars(torch).items() if isinstance(value, torch.dtype)}


def make_inputs(specs, seed, device):
    """One CPU generator seeded once, drawn in order, spec by spec (docs/validate.md, "Replay protocol").

    A spec with `value` draws nothing: it is passed as it is (literal). Otherwise one draw per tensor: `randn` for
    floating dtypes, `randint(0, high)` for integer ones, `boxes_of` for a `boxes` spec; `list: n` draws n in turn
    and passes them as one list argument, `keys` a dict of them in key order, `levels` one of each shape in order
    (a feature pyramid) as one list argument."""
    g = _Generator().manual_seed(seed)
    out = []
    for s in specs:
        if "value" in s:
            out.append(literal(s["value"]))
            continue
        dtype = _DTYPES.get(s["dtype"]) or getattr(torch, s["dtype"])  # an unknown name fails as it always did
        if "boxes" in s:
            draw = lambda shape: _to(boxes_of(shape, s["boxes"], s.get("high", 2), g, dtype), device)
        elif dtype.is_floating_point:
            draw = lambda shape: _to(_randn(shape, generator=g, dtype=dtype), device)
        else:
            draw = lambda shape: _to(_randint(0, s.get("high", 2), shape, generator=g, dtype=dtype), device)
        out.append(arranged(s, draw))
    return out


def arranged(spec, draw):
    """One argument of `spec` from `draw(shape)`: a dict of draws in key order (`keys`), a list of `list` draws, a
    list of one draw per shape of `levels`, or one."""
    if "keys" in spec:
        return {k: draw(spec["shape"]) for k in spec["keys"]}
    if "levels" in spec:
        return [draw(shape) for shape in spec["levels"]]
    return [draw(spec["shape"]) for _ in range(spec["list"])] if "list" in spec else draw(spec["shape"])


def literal(value):
    """A `value` as the forward gets it: an int; a list of names; a list of int lists as a list of tuples (image
    sizes, `List[Tuple[int, int]]`); `{"tuple": [8, 8]}` as a tuple of ints (`size: Tuple[int, int]`). A new list on
    every call: forwards append to lists they are given (torchvision's LastLevelMaxPool: `names.append("pool")`), and
    the recipe must not change under them."""
    if isinstance(value, dict):
        return tuple(int(i) for i in value["tuple"])
    if isinstance(value, list):
        return [tuple(int(i) for i in v) if isinstance(v, list) else str(v) for v in value]
    return int(value)


def boxes_of(shape, side, images, g, dtype):
    """Boxes valid inside a side x side image: [K, 4] rows (x1, y1, x2, y2), or [K, 5] rows with the image index
    first, row i on image i % images. One draw, `torch.rand((K, 4))`: the top-left corner in the top-left half of
    the image, each side at least 1 and the bottom-right corner inside the image (x2 > x1, y2 > y1)."""
    if len(shape) != 2 or shape[1] not in (4, 5) or side < 2:
        raise ValueError(f"a boxes input is [K, 4] or [K, 5] inside an image of side >= 2, not {shape} in {side}")
    k, half = shape[0], side / 2
    u = _rand((k, 4), generator=g, dtype=dtype)
    top_left = u[:, :2] * half
    b = _cat([top_left, top_left + 1 + u[:, 2:] * (half - 1)], 1)
    if shape[1] == 5:
        b = _cat([_to(_arange(k) % images, dtype)[:, None], b], 1)
    return b


def build(cls, kwargs, seed, device, refs=(), builder=None, calls=(), part=None, home=None):
    """Names in `refs` are dotted names resolved first (relative to `cls`'s module when they start with a dot, so
    fidelity resolves them in the original package); then seed, construct (through `builder`, a function of the
    block's own module such as `resnet50`, when given), move, eval. A builder that returns something other than
    the block's class built another block: not this one's recipe.

    With `part` ({"path": ...}), `builder` makes a bigger model and the block is its part at `path` (found on the
    first build when None): a `Part` is returned. The builder is looked up in the block's own module (where the
    assembled module holds it), or in module `home` when given (fidelity: the original package's builder module).
    The seed comes before the calls: an instance a call builds (a wrapped model, a sibling part) is initialised
    from it too, the same in the block's run, the original's and a reader's replay. Large tensors take their
    initial values from the fill (fill.py) while the calls and the constructor run."""
    _manual_seed(seed)
    with Fill(seed):
        kwargs = infer.resolve_refs(kwargs, refs, cls, calls)
        if builder is None:
            m = cls(**kwargs)
        else:
            where = importlib.import_module(home) if home else sys.modules[cls.__module__]
            m = getattr(where, builder)(**kwargs)
    if builder is not None:
        if part is not None:
            return part_of(m, cls, part.get("path"), builder).to(device).eval()
        if type(m) is not cls:
            raise TypeError(f"{builder}() built a {type(m).__name__}, not a {cls.__name__}")
    return placed(m, device)


def placed(m, device):
    """`m` moved to `device`, in eval mode. Not `m.to(device).eval()`: an override of `train` that returns nothing
    (mmpretrain's `def train(self, mode=True): super().train(mode); self._freeze_stages()`) makes `eval()` None."""
    m = m.to(device)
    m.eval()
    return m


_object_dict = object.__getattribute__  # taken before any block is imported (see measure.py)


def output_tensors(value):
    """The tensors of an output (measure.tensors: tuples, lists, dicts). When there are none, objects count too: the
    tensors of their attributes, in the order they were set (a detector's transform returns an `ImageList`, with
    `tensors` and `image_sizes`, and its targets). Attributes are read from each instance's own `__dict__`, calling
    no method of it; at most 5 levels deep, as measure.tensors."""
    return tensors(value) or tensors(unwrapped(value, 0))


def unwrapped(value, depth):
    """`value` with every object (not a module, class or tensor) replaced by the list of its attribute values."""
    if depth > 5 or isinstance(value, (torch.Tensor, torch.nn.Module, type, str, bytes, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [unwrapped(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: unwrapped(v, depth + 1) for k, v in value.items()}
    try:
        attrs = _object_dict(value, "__dict__")
    except AttributeError:
        return value
    return [unwrapped(v, depth + 1) for v in attrs.values()] if type(attrs) is dict else value


def forward(m, specs, seed, device):
    """Eval-mode forward without gradients; the output tensors on the CPU. No tensor out is a failure."""
    with no_grad():
        out = output_tensors(m(*make_inputs(specs, seed, device)))
    if not out:
        raise TypeError("forward returned no tensor")
    return [plain(t) for t in out]


def sensitivity(make, specs, seed, device):
    """For outputs that are all zeros, which Σ|x| and the projection can't tell from any other block's: how their
    projection moves with the block's parameters and floating inputs, Σ|∂P/∂θ| + Σ|∂P/∂x| (measure.py
    `projection_gradient`). The replay protocol once more, with gradients: `make()` seeds and builds (`build`), inputs
    are drawn afresh, the forward runs in eval mode with gradients on. ViT's head is zero-initialised, so its
    logits are 0 whatever its encoder computed; ∂P/∂W of the head is the encoder's features, which are not."""
    m = make()
    inputs = make_inputs(specs, seed, device)
    leaves = [x for x in tensors(inputs) if is_floating(x)]
    for x in leaves:
        make_differentiable(x)
    with enable_grad():
        outs = [t for t in output_tensors(m(*inputs)) if is_floating(t) and requires_grad(t)]
    wrt = [p for p in tensors_of(block_of(m), "_parameters") if requires_grad(p)] + leaves
    return projection_gradient(outs, wrt) if outs and wrt else 0.0


def backward(m, specs, seed, device):
    """Training-mode forward, sum of floating outputs, backward; counts parameters with and without a gradient.

    When the training-mode forward itself raises (a detector that wants targets, an auxiliary head that wants a
    larger input), the same backward runs in eval mode instead and the record says so (`mode: eval`, with the
    training-mode error): differentiability is still checked, honestly labelled."""
    try:
        return {**gradients(m, specs, seed, device, train=True), "mode": "train"}
    except BaseException as exc:
        # Not for what stops the attempt rather than fails it: memory, a refused escape, an exit, the search's
        # time share running out (a BaseException): the eval-mode try must not run on, or hide it behind the
        # training-mode error.
        if isinstance(exc, (MemoryError, PermissionError)) or not isinstance(exc, Exception):
            raise
        try:
            for p in tensors_of(block_of(m), "_parameters"):
                clear_grad(p)  # the module's own zero_grad may be the block's
            out = gradients(m, specs, seed, device, train=False)
        except Exception:
            raise exc
        return {**out, "mode": "eval", "trainError": error_text(exc)[:300]}


def gradients(m, specs, seed, device, train):
    """One backward in `train` mode: what the record says of it (measure.py's references do the judging: the loss,
    the autograd engine, reading gradients, isfinite)."""
    m.train(train)
    inputs = make_inputs(specs, seed, device)
    for x in tensors(inputs):
        if is_floating(x):
            make_differentiable(x)  # so parameter-free blocks still back-propagate to their input
    outs = [t for t in output_tensors(m(*inputs)) if is_floating(t) and requires_grad(t)]
    params = [p for p in tensors_of(block_of(m), "_parameters") if requires_grad(p)]
    if not outs:
        if params:
            raise RuntimeError("no floating output depends on the parameters")
        return {"withGrad": 0, "without": 0}
    backward_of(outs)
    with_grad = [p for p in params if grad_of(p) is not None]
    bad = sum(1 for p in with_grad if not finite(grad_of(p)))
    if bad:
        raise FloatingPointError(f"{bad} parameters got non-finite gradients")
    return {"withGrad": len(with_grad), "without": len(params) - len(with_grad)}
