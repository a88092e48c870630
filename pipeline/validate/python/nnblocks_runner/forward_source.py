# nnblocks validate: what a block's forward source says about its arguments, for input inference (inputs.py): the
# string keys a dict argument is read with, and the width (channels or features) each tensor argument needs where
# the code feeds it to a layer. The source is parsed with `ast`, never run; a forward without source (a C extension,
# exec'd code) says nothing, and inference keeps its probe shapes.
import ast, functools, re

import torch

from .sources import function_tree

# Dict keys and names an input may carry: the recipe's pattern (record-check.ts refuses anything else).
SAFE_NAME = re.compile(r"^[A-Za-z0-9_]{1,32}$")
# Constructor arguments that say a width: `hidden_size`, `context_dim`, `in_channels_corr` is not one (no suffix).
WIDTH_KWARG = re.compile(r"^(.+?)_(size|dim|channels|chans|features|planes)$")
MAX_DEPTH = 3  # submodules followed into, `RecurrentBlock -> ConvGRU`


@functools.lru_cache(maxsize=512)
def forward_def(cls):
    """The ast.FunctionDef of the forward the MRO finds for `cls`, or None when its source can't be read."""
    try:
        tree = function_tree(cls.forward)
    except AttributeError:
        return None
    if tree is None:
        return None
    fn = tree.body[0] if tree.body else None
    return fn if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def params_of(fn):
    """The forward's positional parameter names, `self` left out."""
    return [a.arg for a in fn.args.posonlyargs + fn.args.args][1:]


def in_order(node):
    """Nodes under `node` in source order (ast.walk is breadth-first)."""
    nodes = [n for n in ast.walk(node) if hasattr(n, "lineno")]
    return sorted(nodes, key=lambda n: (n.lineno, n.col_offset))


def subscript_keys(cls, name):
    """The safe string keys the forward reads argument `name` with, in order of first read; [] when none.

    e.g. `low = input["low"]; high = input["high"]` (torchvision's LRASPPHead) -> ["low", "high"]. A key that is
    not a short name (`x["a b"]`, `x[f"{i}"]`) is left out: it could not be published in a recipe."""
    fn = forward_def(cls)
    keys = []
    for node in in_order(fn) if fn else ():
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            k = node.slice
            if isinstance(k, ast.Constant) and isinstance(k.value, str) and SAFE_NAME.match(k.value) and k.value not in keys:
                keys.append(k.value)
    return keys[:16]


# ---------------------------------------------------------------- per-argument widths
# A width is (axis, n): the size an argument needs along `axis`, 1 for channels (convolutions, batch norms), -1 for
# features (linear layers, layer norms).

def first_width(sub):
    """The width the first width-bearing layer of `sub` takes, in registration order; None when it has none."""
    nn = torch.nn
    for x in list(sub.modules())[:50]:
        if isinstance(x, nn.modules.conv._ConvNd):
            return (1, x.in_channels)
        if isinstance(x, nn.modules.batchnorm._BatchNorm):
            return (1, x.num_features)
        if isinstance(x, nn.GroupNorm):
            return (1, x.num_channels)
        if isinstance(x, nn.Linear):
            return (-1, x.in_features)
        if isinstance(x, nn.LayerNorm):
            return (-1, x.normalized_shape[-1])
    return None


def submodule(m, func):
    """The module a call's callee denotes, for `self.a`, `self.a.b`, `self.a[0]`; else None."""
    if isinstance(func, ast.Name):
        return m if func.id == "self" else None
    try:
        if isinstance(func, ast.Attribute):
            owner = submodule(m, func.value)
            target = getattr(owner, func.attr, None) if owner is not None else None
        elif isinstance(func, ast.Subscript) and isinstance(func.slice, ast.Constant) and isinstance(func.slice.value, int):
            owner = submodule(m, func.value)
            target = owner[func.slice.value] if isinstance(owner, (torch.nn.Sequential, torch.nn.ModuleList)) else None
        else:
            return None
    except Exception:  # an attribute of upstream code may raise anything
        return None
    return target if isinstance(target, torch.nn.Module) else None


def cat_parts(node):
    """The parts and axis of `torch.cat([a, b], dim=1)` / `torch.cat((a, b), 1)`, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name))):
        return None
    if (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) not in ("cat", "concat", "concatenate"):
        return None
    if not node.args or not isinstance(node.args[0], (ast.List, ast.Tuple)):
        return None
    dim = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg in ("dim", "axis")), None)
    if isinstance(dim, ast.UnaryOp) and isinstance(dim.op, ast.USub) and isinstance(dim.operand, ast.Constant):
        axis = -dim.operand.value
    else:
        axis = dim.value if isinstance(dim, ast.Constant) else None
    return (node.args[0].elts, axis) if axis in (1, -1) else None


def named_width(arg, names):
    """The width a constructor argument or attribute names for argument `arg`: `hidden_size` for `h` (its initial,
    when no other width name shares it) or for `hidden_state` (its first word); else None. `names` maps names to
    ints: the recipe's kwargs, then the module's own int attributes."""
    stems = {}
    for k, v in names.items():
        m = WIDTH_KWARG.match(k)
        if m and isinstance(v, int) and not isinstance(v, bool) and v > 0:
            stems.setdefault(m.group(1), v)
    if arg in stems:
        return stems[arg]
    first = arg.split("_")[0]
    hits = [v for s, v in stems.items() if s.split("_")[0] == first]
    if not hits and len(arg) == 1:
        hits = [v for s, v in stems.items() if s[0] == arg]
    return hits[0] if len(hits) == 1 else None


def arg_widths(m, names, depth=0):
    """Per forward parameter, the width (axis, n) the code says it needs: read where the forward hands it to a layer.

    1. Straight to a submodule: `self.convflow1(flow)` -> flow takes what that submodule's forward says of its own
       first parameter (followed up to MAX_DEPTH submodules deep: `self.convgru1(h, x)` takes ConvGRU's widths for
       h and x), else what its first width-bearing layer takes (a Conv2d's in_channels).
    2. Concatenated, then handed to one: `hx = torch.cat([h, x], dim=1); self.convz(hx)` -> the layer's width is
       split: parameters known from rule 1 or named by a width argument (`named_width`: hidden_size for `h`) keep
       theirs, and the one left, if exactly one, gets the rest.
    A parameter re-bound in the forward (`h = self.gru(h, x)`) counts only before it is."""
    fn = forward_def(type(m)) if depth <= MAX_DEPTH else None
    if fn is None:
        return {}
    params = params_of(fn)
    # The module's own int attributes (`self.hidden_size`) before what the caller knew: they describe this module.
    names = {**names, **{k: v for k, v in vars(m).items() if type(v) is int and not k.startswith("_")}}
    out, cats, splits, rebound = {}, {}, [], set()
    live = lambda e: isinstance(e, ast.Name) and e.id in params and e.id not in rebound

    for stmt in statements(fn.body):
        value = getattr(stmt, "value", None) if isinstance(stmt, SIMPLE) else None
        for node in in_order(value) if value is not None else ():
            sub = submodule(m, node.func) if isinstance(node, ast.Call) else None
            if sub is None or sub is m:
                continue
            inner = forward_def(type(sub))
            widths = arg_widths(sub, names, depth + 1) if inner is not None else {}
            sub_params = params_of(inner) if inner is not None else []
            for i, a in enumerate(node.args):
                w = widths.get(sub_params[i]) if i < len(sub_params) else None
                w = w if w is not None or i > 0 else first_width(sub)
                parts = cat_parts(a) or (cats.get(a.id) if isinstance(a, ast.Name) and a.id not in params else None)
                if w is None:
                    continue
                if live(a):
                    out.setdefault(a.id, w)
                elif parts and parts[1] == w[0] and all(live(e) for e in parts[0]):
                    splits.append(([e.id for e in parts[0]], w))
        for name in bound_names(stmt):
            if name in params:
                rebound.add(name)
            else:
                cats.pop(name, None)
        parts = cat_parts(value) if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
        if parts and isinstance(stmt.targets[0], ast.Name):
            cats[stmt.targets[0].id] = parts
    for parts, (axis, total) in splits:
        known = {p: out[p][1] if p in out else named_width(p, names) for p in parts}
        unknown = [p for p, v in known.items() if v is None]
        if len(unknown) == 1 and total - sum(v for v in known.values() if v) > 0:
            for p, v in known.items():
                out.setdefault(p, (axis, v if v is not None else total - sum(x for x in known.values() if x)))
    return out


# Statements whose `value` is read for calls; compound ones (if, for, with...) are entered by `statements`.
SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return)


def bound_names(stmt):
    """Names a statement binds: `x = ...`, `x: T = ...`, `x += ...`, `for x in ...`, `with ... as x`."""
    targets = (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For))
               else [i.optional_vars for i in stmt.items if i.optional_vars] if isinstance(stmt, ast.With) else [])
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def statements(body, m=None):
    """Statements in source order, those nested in if/for/while/with/try bodies included. With the built module `m`,
    an `if` whose test the module settles (`if self.use_conv:`, `truth`) gives only the branch it takes."""
    for stmt in body:
        yield stmt
        settled = truth(m, stmt.test) if m is not None and isinstance(stmt, ast.If) else None
        fields = ("body", "orelse", "finalbody") if settled is None else ("body",) if settled else ("orelse",)
        for field in fields:
            yield from statements(getattr(stmt, field, None) or [], m)
        for h in getattr(stmt, "handlers", None) or []:
            yield from statements(h.body, m)


# ---------------------------------------------------------------- the rank of an input
# `B, N, C = x.shape` says x has three axes, and what each is: the unpacked names' roles.
SIDE_NAMES = {"h", "w", "height", "width", "hp", "wp", "hh", "ww"}
WIDTH_NAMES = {"c", "ch", "chs", "channels", "dim", "dims", "d", "embed_dim", "embed_dims", "cin", "c_in", "in_channels",
               "num_channels", "features", "num_features", "e"}
TOKEN_NAMES = {"n", "l", "seq_len", "seq_length", "num_tokens", "hw", "t", "s", "length", "num_patches", "np"}


def role(name, axis):
    """What an unpacked shape name says its axis is: "batch" (the first), "side", "width", "tokens", or None."""
    n = name.lower()
    if axis == 0:
        return "batch"
    return "side" if n in SIDE_NAMES else "width" if n in WIDTH_NAMES else "tokens" if n in TOKEN_NAMES else None


def shape_read(node):
    """The name `node` reads the whole shape of: `x.shape`, `x.size()`; else None."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func if isinstance(node.func, ast.Attribute) and node.func.attr == "size" else None
    elif not (isinstance(node, ast.Attribute) and node.attr == "shape"):
        return None
    return node.value.id if node is not None and isinstance(node.value, ast.Name) else None


def truth(m, test):
    """The value of an `if` test on the built module: `self.a`, `not self.a`, `self.a is None`, `self.a is not
    None`; None when the code says otherwise (both branches are then read)."""
    try:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            t = truth(m, test.operand)
            return None if t is None else not t
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
            value = attribute(m, test.left)
            return None if value is MISSING else (value is None) == isinstance(test.ops[0], ast.Is)
        value = attribute(m, test)
        return None if value is MISSING or not isinstance(value, (bool, int, type(None), str, torch.nn.Module)) else bool(value)
    except Exception:  # an attribute of upstream code may raise anything
        return None


MISSING = object()


def attribute(m, node):
    """The value of `self.a` on the built module; MISSING for anything else."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return getattr(m, node.attr, MISSING)
    return MISSING


def leads_to(node, name):
    """Whether a call's first argument is `name`, or a call whose first argument leads to it (`self.norm(x)`)."""
    if isinstance(node, ast.Name):
        return node.id == name
    return isinstance(node, ast.Call) and bool(node.args) and leads_to(node.args[0], name)


def shape_names(m, name, depth=0):
    """(module, names) of the first unpacking of argument `name`'s whole shape the forward of `m` does before it
    re-binds the argument: `B, N, C = x.shape` -> (m, ("B", "N", "C")); `_, _, H, W = x.size()` too. Where the
    forward hands the argument on first (`self.attn(x)`, `self.attn(self.norm(x))`, `for blk in self.blocks: x =
    blk(x)`: the first of them; an nn.Sequential's forward is read so), that submodule's forward says it, up to
    MAX_DEPTH deep; a re-binding by an identity or a dropout keeps the argument. An `if` on a module attribute
    takes its branch (`if self.use_conv:`). None when the code says nothing (a starred target, a slice
    `x.shape[:2]` and a shape kept whole say no rank)."""
    fn = forward_def(type(m)) if depth <= MAX_DEPTH else None
    if fn is None:
        return None
    loops = {}  # `for block in self.blocks:` -> block is the first of self.blocks
    for stmt in statements(fn.body, m):
        if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
            seq = submodule(m, stmt.iter)
            if isinstance(seq, (torch.nn.ModuleList, torch.nn.Sequential)) and len(seq):
                loops[stmt.target.id] = seq[0]
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], (ast.Tuple, ast.List)):
            elts = stmt.targets[0].elts
            if shape_read(stmt.value) == name and elts and all(isinstance(e, ast.Name) for e in elts):
                return m, tuple(e.id for e in elts)
        value = getattr(stmt, "value", None) if isinstance(stmt, SIMPLE) else None
        for node in in_order(value) if value is not None else ():
            if isinstance(node, ast.Call) and node.args and leads_to(node.args[0], name):
                sub = loops.get(node.func.id) if isinstance(node.func, ast.Name) else submodule(m, node.func)
                inner = forward_def(type(sub)) if sub is not None and sub is not m else None
                first = params_of(inner)[:1] if inner is not None else []
                found = shape_names(sub, first[0], depth + 1) if first else None
                if found:
                    return found
        if name in bound_names(stmt) and not passes_through(m, value):
            return None
    return None


def passes_through(m, value):
    """Whether `value` is a call of a submodule that returns its input's shape as it is (`x = self.downsample(x)`,
    an nn.Identity where the stage keeps its width; a dropout)."""
    sub = submodule(m, value.func) if isinstance(value, ast.Call) else None
    return isinstance(sub, (torch.nn.Identity, torch.nn.modules.dropout._DropoutNd))
