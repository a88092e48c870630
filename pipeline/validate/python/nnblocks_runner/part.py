# Composite recipes (docs/validate.md, "Recipes", origin `part`): a block that only a bigger model builds with the
# right arguments (a detector's RegionProposalNetwork, MaxViT's MaxVitBlock, RAFT's UpdateBlock) is validated as
# the part of the model a zero-argument builder of its source makes. The block is the first submodule, in
# `named_modules()` order, whose class is exactly the block's; its forward inputs are what the model's own forward
# passes it, taken with a forward pre-hook while the model runs on its own input. The recipe is replayable from
# the record alone: build the model with the builder, take the submodule at `path`, run the model on the recorded
# inputs until it calls the submodule, call the submodule on what it was given.
import ast, copy, re

import torch

from .forward_source import forward_def
from .measure import count, grad_enabled, is_floating, is_leaf, make_differentiable, no_grad, tensors

from .shares import monotonic

_deepcopy = copy.deepcopy  # taken before any block is imported (see measure.py)
# nn.Module's own `forward`, which only raises: a model whose class keeps it (ultralytics' SAMModel, whose
# predictors call its parts one by one) can't be run to reach a part, however big it is to build.
_NO_FORWARD = torch.nn.Module.forward

# An attribute path as `named_modules()` writes it: identifiers and ModuleList/Sequential indices
# (`backbone.body.layer1.0`). The catalog holds a path to the same rule (contract.ts PART_PATH_PATTERN); a part
# whose path is anything else (a ModuleDict key with spaces) is passed over for the next one.
PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}(\.([A-Za-z_][A-Za-z0-9_]{0,99}|[0-9]{1,6})){0,31}")
PATH_CHARS = 200
# Part candidates sized before any is tried, and tried at most (the TypeScript side offers up to 3).
MAX_PARTS = 3
SIZE_BUILD_S = 3.0  # at most, per parent built without initialisation to be sized


class Captured(BaseException):
    """Raised by the capture hook once the part's arguments are in hand: the rest of the parent's forward is not
    needed (a detector's heads after its backbone). A BaseException, so upstream `except Exception` can't eat it."""


class Part:
    """The block `sub` at `path` inside `parent` (a model a builder made), called as the parent calls it.

    `part(*inputs)` runs the parent's forward on `inputs` in eval mode without gradients until it calls `sub`,
    keeps the arguments (positional and keyword) of that first call, and calls `sub` on a deep copy of them, in
    `sub`'s own mode, with gradients as the caller has them. It quacks like a module where the search needs it to
    (`to`, `eval`, `train`), so a part goes through the same build, forward and backward steps as a block."""

    def __init__(self, parent, path, sub):
        self.parent, self.path, self.sub = parent, path, sub

    def to(self, device):
        self.parent.to(device)  # moves `sub` too: it is one of the parent's modules
        return self

    def eval(self):
        return self.train(False)

    def train(self, mode=True):
        # The parent only feeds the part: it always runs in eval mode (a detector in training wants targets);
        # the part itself is trained for the backward check, like any block.
        self.parent.eval()
        self.sub.train(mode)
        return self

    def capture(self, inputs):
        """(args, kwargs) of the parent's first call of `sub` when the parent runs on `inputs`."""
        seen = []

        def grab(module, args, kwargs=None):
            seen.append((args, kwargs or {}))
            raise Captured()

        remove = attach(self.sub, grab)
        try:
            with no_grad():
                self.parent(*inputs)
        except Captured:
            pass
        except Exception:
            if not seen:  # the parent failed before it reached the part: this input does not feed it
                raise
        finally:
            remove()
        if not seen:
            raise RuntimeError(f"the model's forward never called its {type(self.sub).__name__} at {self.path}")
        return seen[0]

    def __call__(self, *inputs):
        args, kwargs = _deepcopy(self.capture(inputs))
        if grad_enabled() and self.sub.training:
            for t in tensors([list(args), kwargs]):
                if is_floating(t) and is_leaf(t):
                    make_differentiable(t)  # so a parameter-free part still back-propagates to its input
        return self.sub(*args, **kwargs)


def attach(sub, hook):
    """Registers `hook(module, args, kwargs)` to run before `sub`'s forward; returns the function removing it.
    torch 2.x pre-hooks see keyword arguments (`with_kwargs=True`); torch 1.x's see positional ones only, so there
    the call is caught at `sub.forward` itself, through an instance attribute that shadows the class's method."""
    try:
        handle = sub.register_forward_pre_hook(hook, with_kwargs=True)
        return handle.remove
    except TypeError:
        pass

    def forward(*args, **kwargs):
        hook(sub, args, kwargs)

    object.__setattr__(sub, "forward", forward)
    return lambda: sub.__dict__.pop("forward", None)


def runs_nothing(cls):
    """Whether `cls`'s forward can reach no part: nn.Module's own, or one whose body (past its docstring) is a
    single `raise` (ultralytics' SAM2Model: "Please use the corresponding methods in SAM2VideoPredictor")."""
    if getattr(cls, "forward", _NO_FORWARD) is _NO_FORWARD:
        return True
    fn = forward_def(cls)
    body = fn.body if fn else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def part_of(model, cls, path, builder):
    """The Part of `model` (what `builder()` built) that is a `cls`: the one at `path`, or, with no path yet, the
    first submodule in `named_modules()` order whose class is exactly `cls` (a subclass is another block) and
    whose path follows PATH."""
    if runs_nothing(type(model)):
        raise TypeError(f"{builder}() built a {type(model).__name__}, whose forward reaches no part (it only raises)")
    if path is None:
        path = next((name for name, mod in model.named_modules()
                     if type(mod) is cls and len(name) <= PATH_CHARS and PATH.fullmatch(name)), None)
        if path is None:
            raise TypeError(f"{builder}() built a {type(model).__name__} that holds no {cls.__name__}")
    sub = model.get_submodule(path)
    if type(sub) is not cls:
        raise TypeError(f"{builder}() holds a {type(sub).__name__} at {path}, not a {cls.__name__}")
    return Part(model, path, sub)


def block_of(m):
    """The block a search result measures: the part itself for a Part, else the module."""
    return m.sub if isinstance(m, Part) else m


def feeder(m):
    """The module whose forward signature and layers say what to feed: a part's parent, else the module."""
    return m.parent if isinstance(m, Part) else m


def one_image(specs):
    """A parent's input with one image where it takes a list of them (a detector's `images: List[Tensor]`): the
    part sees what one image gives, at half the cost of the two the probes give (an SSD's VGG at 300 pixels)."""
    return [{**s, "list": 1} if "list" in s and len(s["shape"]) == 3 and not set(s) - {"shape", "dtype", "list"} else s
            for s in specs]


def smallest_first(cls, cands, build, quiet, budgeted, deadline_s):
    """Part candidates holding a `cls`, smallest parent first, at most MAX_PARTS: each parent is built once
    without random initialisation (`quiet`, a context manager), counted and dropped, within `deadline_s` seconds
    of the clock `budgeted` keeps. A parent that holds no exact `cls`, or fails to build, is left out; one not
    sized in time keeps its place after the sized ones."""
    if len(cands) <= 1:
        return list(cands)  # nothing to order: its real build says whether it holds one
    stop = monotonic() + deadline_s
    sized, unsized = [], []
    for i, c in enumerate(cands):
        left = stop - monotonic()
        try:
            if left <= 0:
                raise TimeoutError("no time left to size it")
            with quiet():
                m = budgeted(min(SIZE_BUILD_S, left), lambda: build(c))
            sized.append((count(m.parent, "_parameters"), i, c))
        except TypeError:
            pass  # it holds no such part (or its builder is not what it was said to be): not a candidate
        except BaseException:
            unsized.append(c)  # too slow to size, or failed: its real build says which
        m = None
    ordered = [c for _, _, c in sorted(sized, key=lambda x: x[:2])] + unsized
    return ordered[:MAX_PARTS]
