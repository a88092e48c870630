# Error-guided input repair (docs/validate.md, "Recipes"): a forward that fails on a width the block states in its
# own error message is tried again at that width. torch names the width it wanted in common errors, each a block
# reading its input with a layer deeper than the first one the probes read (probe_shapes): a convolution
# ("expected input[2, 4, 32, 32] to have 8 channels, but got 4 channels instead": an mmseg decode head whose first
# registered layer is its classifier), a matrix product ("mat1 and mat2 shapes cannot be multiplied (2x1024 and
# 12544x1024)": a box head's flattened 256 x 7 x 7), a normalisation layer's statistics or weight, and a broadcast
# ("The size of tensor a (32) must match the size of tensor b (16) at non-singleton dimension 3": a positional table
# of fixed length). Only the inputs' shapes change: the block's construction stays the candidate's, and the repaired
# input still has to pass forward and backward. An `assert` on the inputs is read where it failed (asserted.py).
import copy, math, re

# Repairs in a row from one input candidate: each fixes one width, and a block may state several (a channel count,
# then a sequence length).
MAX_REPAIRS = 3

_CONV = re.compile(r"expected input\[([\d, ]+)\] to have (\d+) channels, but got (\d+) channels")
_MATMUL = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")
# Normalisation layers name their width too: a batch norm's running statistics, a group norm's weight, a layer
# norm's normalized shape (alike on the meta device).
_RUNNING = re.compile(r"running_mean should contain (\d+) elements not (\d+)")
_GROUP = re.compile(r"but got weight of (?:shape|size) \[(\d+)\] and input of (?:shape|size) \[([\d, ]+)\]")
_LAYER = re.compile(r"Given normalized_shape=\[(\d+)\], expected input with shape \[[^\]]*\], but got input of "
                    r"size ?(?:torch\.Size\(\[|\[)([\d, ]+)\]")
# The same two on the meta device, where the candidate's twin refuses inputs before a real forward (twins.refusal).
_META_MATMUL = re.compile(r"must have same reduction dim, but got \[(\d+), (\d+)\] X \[(\d+), (\d+)\]")
_META_BROADCAST = re.compile(r"broadcast a dimension of length (\d+) at -(\d+)! .*broadcastable to \[([\d, ]+)\]")
_BROADCAST = re.compile(r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton "
                        r"dimension (\d+)")
# A shape unpacked into more or fewer names than the input has axes (`B, N, C = x.shape` on [2, 16]): no width is
# named, only the rank the names want. Inputs of the rank got take the rank wanted (repair.ranked); with too many
# axes (`n, c = score.size()` on an image), every input of more than the rank wanted drops its trailing axes.
_UNPACK_SHORT = re.compile(r"not enough values to unpack \(expected (\d+), got (\d+)\)")
_UNPACK_LONG = re.compile(r"too many values to unpack \(expected (\d+)\)")
# A permute given more or fewer axes than its tensor has: torch names both ranks ("input.dim() = 3 is not equal to
# len(dims) = 4": a BERT layer's `view(B, N, heads, d).permute(0, 2, 1, 3)` of a [2, 16] row, which made 3 axes of
# it where 4 were meant). The permuted tensor is the input reshaped, so every input is short (or long) by the same
# count: it takes as many axes more (repair.ranked), or drops as many trailing ones.
_PERMUTE = re.compile(r"input\.dim\(\) = (\d+) is not equal to len\(dims\) = (\d+)")
# Side of an axis a rank repair adds (here and in asserted.py): enough for the 2 x 2 pools and 3 x 3 kernels of small
# blocks.
ADDED_SIDE = 16
# Elements above which a repaired input is not drawn (8 MB of float32): a flattened RoI of 256 x 7 x 7 is 12,544
# features, fine at a batch of 2; the same width as the last axis of a probe image is not.
MAX_ELEMENTS = 1 << 21


def repaired(specs, exc):
    """`specs` (a list of the replay protocol's input specs) with the width `exc` says the block wanted, or None when
    its message names none, or no floating input has the width it got. Only plain tensor specs change (`shape`,
    `list` of one shape); literals, boxes, integer indices, levels and dicts are left as they are."""
    if isinstance(exc, AssertionError):
        from . import asserted  # here, not at the top: asserted takes this module's figures

        return asserted.repaired(specs, exc)
    msg = str(exc)
    if m := _CONV.search(msg):
        ndim, want, got = len(_shape(m[1])), int(m[2]), int(m[3])
        return _changed(specs, lambda s: _at(s, 1, got, want) if len(s) == ndim else None)
    if m := _MATMUL.search(msg) or _META_MATMUL.search(msg):
        got, want = int(m[2]), int(m[3])
        return _changed(specs, lambda s: _at(s, len(s) - 1, got, want))
    if m := _BROADCAST.search(msg):
        a, b, dim = int(m[1]), int(m[2]), int(m[3])
        # Which side is the input's the message doesn't say: an input holding one of them at that dimension takes the
        # other (a, the left operand, first).
        return _changed(specs, lambda s: _at(s, dim, a, b)) or _changed(specs, lambda s: _at(s, dim, b, a))
    if m := _RUNNING.search(msg):
        got, want = int(m[1]), int(m[2])
        return _changed(specs, lambda s: _at(s, 1, got, want))
    if m := _GROUP.search(msg):
        want, shape = int(m[1]), _shape(m[2])
        return _changed(specs, lambda s: _at(s, 1, shape[1], want) if len(s) == len(shape) > 1 else None)
    if m := _LAYER.search(msg):
        want, shape = int(m[1]), _shape(m[2])
        return _changed(specs, lambda s: _at(s, len(s) - 1, shape[-1], want) if len(s) == len(shape) else None)
    if m := _UNPACK_SHORT.search(msg):
        want, got = int(m[1]), int(m[2])
        return _changed(specs, lambda s: _capped(ranked(s, want)) if len(s) == got and 2 <= got < want <= 5 else None)
    if m := _UNPACK_LONG.search(msg):
        want = int(m[1])
        return _changed(specs, lambda s: s[:want] if len(s) > want >= 2 else None)
    if m := _PERMUTE.search(msg):
        return _changed(specs, lambda s: _reranked(s, len(s) + int(m[2]) - int(m[1])))
    if m := _META_BROADCAST.search(msg):
        want, back, shape = int(m[1]), int(m[2]), _shape(m[3])
        if not 0 < back <= len(shape):
            return None
        return _changed(specs, lambda s: _at(s, len(s) - back, shape[-back], want))
    return None


def ranked(shape, rank):
    """`shape` grown to `rank` axes: a [B, C] row becomes a sequence of ADDED_SIDE tokens of C features ([B, 16, C],
    as `B, N, C = x.shape` reads it); a longer shape gets axes of ADDED_SIDE at its end ([B, C, L] -> [B, C, L, 16])."""
    if len(shape) == 2:
        shape = [shape[0], ADDED_SIDE, shape[1]]
    return shape + [ADDED_SIDE] * (rank - len(shape))


def _reranked(shape, rank):
    """`shape` at `rank` axes (2 to 5), grown as `ranked` grows it or cut at its end; None when that is its rank."""
    if rank == len(shape) or not 2 <= rank <= 5:
        return None
    return _capped(ranked(shape, rank)) if rank > len(shape) else shape[:rank]


def _capped(shape):
    return shape if math.prod(shape) <= MAX_ELEMENTS else None


def _shape(text):
    """A shape as torch prints it, without its brackets (`2, 4, 5, 5`), as ints."""
    return [int(x) for x in text.split(",")]


def _at(shape, i, got, want):
    if 0 <= i < len(shape) and shape[i] == got and want > 0:
        new = shape[:i] + [want] + shape[i + 1:]
        return new if math.prod(new) <= MAX_ELEMENTS else None
    return None


def _changed(specs, fix):
    """A copy of `specs` with `fix` applied to the shape of each plain floating tensor spec (None: unchanged); None
    when none changed, or when an integer input indexes into another's axis (`high` above a 0/1 mask's 2: PyG's
    `edge_index` below the node count): the floating input's new shape would no longer agree with those indices,
    and a native op may crash on that rather than raise (GraphUNet's sparse adjacency)."""
    if any(isinstance(s, dict) and s.get("dtype") == "int64" and (s.get("high") or 0) > 2 for s in specs):
        return None
    out, changed = copy.deepcopy(specs), False
    for s in out:
        plain = isinstance(s, dict) and isinstance(s.get("shape"), list) and not set(s) - {"shape", "dtype", "list"}
        if not plain or not str(s.get("dtype", "")).startswith("float"):
            continue
        new = fix(s["shape"])
        if new is not None:
            s["shape"], changed = new, True
    return out if changed else None
