# Assertion-guided input repair (docs/validate.md, "Recipes"): a forward that fails an `assert` on its inputs says in
# that assert what it wanted, though its AssertionError usually has no message at all. The assert is read where it
# failed (the innermost frame of the traceback, the block's own code in this child), its first false condition is
# evaluated piece by piece in that frame, and the input it names is changed to satisfy it:
#   assert pred.size() == target.size()          # a loss: the target takes the prediction's shape
#   assert x.dim() == 4  /  x.ndim == 3          # the input takes that rank
#   assert x.shape[1] == self.in_channels        # that axis takes the value the block holds
#   assert len(inputs) == len(self.in_channels)  # a list input takes that length
#   assert isinstance(inputs, (list, tuple))     # the input becomes a list of one
# An input is named by what the frame holds: a tensor whose shape and dtype are one plain spec's (every spec of that
# shape changes: a prediction and a target of one shape stay alike). Nothing read here leaves the child: the
# assert's text and values only choose the next input, and the repaired input still has to pass forward and backward.
import ast, copy, math

import torch

from .repair import ADDED_SIDE, MAX_ELEMENTS
from .sources import file_tree, inner_statements


def repaired(specs, exc):
    """`specs` changed as the assert that raised `exc` asks, or None when the assert is not one of the forms above,
    names no input, or already holds."""
    found = failing_assert(exc)
    if found is None:
        return None
    frame, test = found
    for cond in conjuncts(test):
        held = holds(cond, frame)
        if held is None:
            return None  # a condition that can't be read again: which one failed is not known
        if not held:
            return fix(specs, cond, frame)
    return None


def failing_assert(exc):
    """(frame, test) of the `assert` statement `exc` was raised by: the innermost traceback frame's line, read from
    its file; None when that line is no assert (an explicit `raise AssertionError`, a frame without source)."""
    tb = getattr(exc, "__traceback__", None)
    if not isinstance(exc, AssertionError) or tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    frame, line = tb.tb_frame, tb.tb_lineno
    tree = file_tree(frame.f_code.co_filename)
    node = _statement_at(tree.body, line) if tree is not None else None
    return (frame, node.test) if isinstance(node, ast.Assert) else None


def _statement_at(body, line):
    """The innermost statement of `body` holding `line`, descending only into the statements that hold it (a file
    of a whole emitted package is tens of thousands of nodes; the path to one line is a few dozen)."""
    found = None
    while body:
        node = next((n for n in body if n.lineno <= line <= (n.end_lineno or n.lineno)), None)
        if node is None:
            break
        found = node
        body = inner_statements(node)
    return found


def conjuncts(test):
    """`a and b and c` as [a, b, c]; any other test as [test]."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for v in test.values for c in conjuncts(v)]
    return [test]


_UNKNOWN = object()


def holds(node, frame):
    """Whether condition `node` holds in `frame`; None when it can't be evaluated or has no truth value."""
    value = evaluate(node, frame)
    try:
        return None if value is _UNKNOWN else bool(value)
    except Exception:
        return None


def evaluate(node, frame):
    """The value of expression `node` in `frame` (its globals, a copy of its locals), or _UNKNOWN when it raises."""
    try:
        code = compile(ast.Expression(body=node), "<assert>", "eval")
        return eval(code, frame.f_globals, dict(frame.f_locals))
    except Exception:
        return _UNKNOWN


def fix(specs, cond, frame):
    if isinstance(cond, ast.Call) and isinstance(cond.func, ast.Name) and cond.func.id == "isinstance" and len(cond.args) == 2:
        kinds = evaluate(cond.args[1], frame)
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        if list in kinds:
            return _changed(specs, evaluate(cond.args[0], frame), lambda s: {**s, "list": 1})
        return None
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], (ast.Eq, ast.Is))):
        return None
    left, right = cond.left, cond.comparators[0]
    return _compared(specs, left, right, frame) or _compared(specs, right, left, frame)


def _compared(specs, side, other, frame):
    """The fix making expression `side` (naming an input) equal `other`'s value in `frame`, or None."""
    want = evaluate(other, frame)
    if want is _UNKNOWN:
        return None
    if isinstance(want, torch.Size) or (isinstance(want, (tuple, list)) and want and all(isinstance(i, int) for i in want)):
        # `pred.size() == target.size()`: the side whose input comes later takes the other's shape
        x = _shape_of(side)
        got = evaluate(x, frame) if x is not None else _UNKNOWN
        if isinstance(got, torch.Tensor) and len(want) > 0:
            return _changed(specs, got, lambda s: {**s, "shape": [int(i) for i in want]}, later_than=evaluate(other_tensor(other), frame))
        return None
    if isinstance(want, bool) or not isinstance(want, int) or want <= 0:
        return None
    # `x.dim() == 4`, `x.ndim == 4`, `len(x.shape) == 4`
    if (x := _rank_of(side)) is not None:
        return _changed(specs, evaluate(x, frame), lambda s: {**s, "shape": _ranked(s["shape"], want)})
    # `x.shape[1] == c`, `x.size(1) == c`, `x.size()[1] == c`
    if (axis := _axis_of(side)) is not None:
        x, i = axis
        i = evaluate(i, frame)
        if isinstance(i, int) and not isinstance(i, bool):
            return _changed(specs, evaluate(x, frame), lambda s: _at(s, i, want))
        return None
    # `len(inputs) == n`: a list input of n; a tensor's first axis
    if isinstance(side, ast.Call) and _is_name(side.func, "len") and len(side.args) == 1:
        got = evaluate(side.args[0], frame)
        if isinstance(got, (list, tuple)) and got and isinstance(got[0], torch.Tensor):
            return _changed(specs, got[0], lambda s: {**s, "list": want} if "list" in s else None, listed=True)
        return _changed(specs, got, lambda s: _at(s, 0, want))
    return None


def other_tensor(node):
    """The tensor expression of a shape expression (`target` of `target.size()`), else the node itself."""
    return _shape_of(node) or node


def _shape_of(node):
    """`x` of `x.shape` / `x.size()`; None otherwise."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and not node.args and not node.keywords:
        return node.func.value
    return None


def _rank_of(node):
    """`x` of `x.dim()`, `x.ndim`, `x.ndimension()`, `len(x.shape)`, `len(x.size())`; None otherwise."""
    if isinstance(node, ast.Attribute) and node.attr == "ndim":
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("dim", "ndimension") and not node.args:
        return node.func.value
    if isinstance(node, ast.Call) and _is_name(node.func, "len") and len(node.args) == 1:
        return _shape_of(node.args[0])
    return None


def _axis_of(node):
    """(x, index node) of `x.shape[i]`, `x.size()[i]`, `x.size(i)`; None otherwise."""
    if isinstance(node, ast.Subscript) and (x := _shape_of(node.value)) is not None and not isinstance(node.slice, ast.Slice):
        return x, node.slice
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and len(node.args) == 1:
        return node.func.value, node.args[0]
    return None


def _is_name(node, name):
    return isinstance(node, ast.Name) and node.id == name


def _ranked(shape, rank):
    """`shape` with trailing axes dropped, or axes of ADDED_SIDE added, to `rank` axes."""
    return shape[:rank] if len(shape) >= rank else shape + [ADDED_SIDE] * (rank - len(shape))


def _at(spec, i, want):
    shape = spec["shape"]
    if not -len(shape) <= i < len(shape):
        return None
    shape = list(shape)
    shape[i] = want
    return {**spec, "shape": shape}


def _plain(s):
    return isinstance(s, dict) and isinstance(s.get("shape"), list) and not set(s) - {"shape", "dtype", "high", "list"}


def _matches(s, tensor, listed):
    return (_plain(s) and ("list" in s) == listed and s["shape"] == list(tensor.shape)
            and s.get("dtype", "float32") == str(tensor.dtype).removeprefix("torch."))


def _changed(specs, tensor, change, later_than=None, listed=False):
    """A copy of `specs` with `change` applied to every plain spec `tensor` matches (its shape and dtype; `listed`:
    the element of a list spec), or None when none matches or nothing changed. With `later_than` (the tensor of the
    other side of a shape comparison), only when the first spec it matches comes before `tensor`'s: the later input
    takes the earlier one's shape, never the reverse."""
    if not isinstance(tensor, torch.Tensor):
        return None
    hits = [i for i, s in enumerate(specs) if _matches(s, tensor, listed)]
    if not hits:
        return None
    if isinstance(later_than, torch.Tensor):
        before = [i for i, s in enumerate(specs) if _matches(s, later_than, False)]
        if not before or before[0] >= hits[0]:
            return None
    out, changed = copy.deepcopy(specs), False
    for i in hits:
        new = change(out[i])
        if new is None or new == out[i]:
            continue
        shape = new["shape"]
        if math.prod(shape) * new.get("list", 1) > MAX_ELEMENTS or min(shape, default=1) <= 0:
            continue
        out[i], changed = new, True
    return out if changed else None
