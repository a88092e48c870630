# Measurements a block can't patch. Everything here goes through references taken when the runner starts, before
# any block is imported, and with torch's __torch_function__ dispatch turned off: a block that patches
# `torch.Tensor.numel`, overrides `parameters()`, or returns a tensor subclass whose `sum` lies, still gets its
# parameter count, output shapes and checksums measured from the tensors themselves. The same holds for what judges
# it: gradients (the loss, the autograd engine, `isfinite`), grad mode, and fidelity's comparisons (`allclose`,
# `equal`, the state-dict's tensors read from the modules' own tables, not from a `state_dict()` the block overrides).
# What a block *can* still do is lie about itself: its code runs in this same process, these module globals included
# (docs/validate.md, "What a hostile block can and cannot do").
import contextlib, contextvars, math

import torch

_Tensor, _Module = torch.Tensor, torch.nn.Module
_numel, _detach, _double, _abs, _sum, _item, _cpu, _size = (
    torch.Tensor.numel, torch.Tensor.detach, torch.Tensor.double, torch.Tensor.abs, torch.Tensor.sum,
    torch.Tensor.item, torch.Tensor.cpu, torch.Tensor.size)
_dtype_of = torch.Tensor.dtype.__get__
_Generator, _rand, _mul, _sub, _float64 = torch.Generator, torch.rand, torch.Tensor.mul, torch.Tensor.sub, torch.float64
_to, _device_of = torch.Tensor.to, torch.Tensor.device.__get__
_no_torch_function = torch._C.DisableTorchFunction
_getattribute, _isinstance, _type, _id, _len, _str, _float, _range = (
    object.__getattribute__, isinstance, type, id, len, str, float, range)
_dict_get, _dict_values, _dict_items = dict.get, dict.values, dict.items
_list_len, _list_item, _tuple_len, _tuple_item = list.__len__, list.__getitem__, tuple.__len__, tuple.__getitem__
# What judges a block (gradients, grad mode, fidelity), taken here for the same reason. The C getters and setters of
# the tensor base class, not `torch.Tensor`'s attributes, which a block may shadow with properties of its own.
_Base = getattr(torch._C, "TensorBase", None) or torch._C._TensorBase
_grad_get, _grad_set = _Base.grad.__get__, _Base.grad.__set__
_requires_grad_get, _is_leaf_get = _Base.requires_grad.__get__, _Base.is_leaf.__get__
_is_floating_point, _requires_grad_, _float32, _all, _add = (
    torch.Tensor.is_floating_point, torch.Tensor.requires_grad_, torch.Tensor.float, torch.Tensor.all, torch.Tensor.add)
_isfinite, _ones_like, _allclose, _equal = torch.isfinite, torch.ones_like, torch.allclose, torch.equal
_set_grad_enabled, _is_grad_enabled = torch._C._set_grad_enabled, torch._C.is_grad_enabled
_run_backward = torch.autograd.Variable._execution_engine.run_backward
# torch 2.x keeps a context for the engine's device threads in thread-local storage around a backward (autograd's
# `_engine_run_backward`); torch 1.13 has neither.
_stash_tls, _remove_tls = getattr(torch._C, "_stash_obj_in_tls", None), getattr(torch._C, "_remove_obj_from_tls", None)
_bool, _sorted = bool, sorted

TYPE_NAME_MAX = 200  # characters of a module-tree type name; the TypeScript side drops names that aren't identifiers
STATE_NODES = 100_000  # modules visited for fidelity's state-dict shapes


def items(value):
    """The elements of a list or tuple by the base type's own methods (a subclass's __iter__ is not called)."""
    if _isinstance(value, list):
        return [_list_item(value, i) for i in _range(_list_len(value))]
    return [_tuple_item(value, i) for i in _range(_tuple_len(value))]


def tensors(value, out=None, depth=0):
    """Tensors of an output in order: tuples, lists and dicts (insertion order), at most 5 levels deep."""
    out = [] if out is None else out
    if depth > 5:
        return out
    if _isinstance(value, _Tensor):
        out.append(value)
    elif _isinstance(value, (list, tuple)):
        for v in items(value):
            tensors(v, out, depth + 1)
    elif _isinstance(value, dict):
        for v in _dict_values(value):
            tensors(v, out, depth + 1)
    return out


def plain(t):
    """A detached plain-tensor copy on the CPU, whatever subclass `t` is."""
    with _no_torch_function():
        return _cpu(_detach(t))


def checksum(t):
    """Σ|x| in float64 (a plain sum cancels to noise after normalisation layers); non-finite values as strings."""
    with _no_torch_function():
        v = _float(_item(_sum(_abs(_double(_detach(t)))))) if _numel(t) else 0.0
    return v if math.isfinite(v) else _str(v)


# The projection's weights come from their own generator, seeded with this, never from the recipe's seed: the same
# weights for every block and every run of it.
PROJECTION_SEED = 0


def projection_weights(t):
    """2r − 1 for `t`'s shape on its device, r = `torch.rand` (float64) from a generator seeded with PROJECTION_SEED."""
    with _no_torch_function():
        r = _rand(_size(t), generator=_Generator().manual_seed(PROJECTION_SEED), dtype=_float64)
        return _to(_sub(_mul(r, 2.0), 1.0), _device_of(t))


def projection(t):
    """Σ x·(2r − 1) in float64, r = `torch.rand` of the output's shape (float64) from a generator seeded with
    PROJECTION_SEED: a fixed random projection of the output. Σ|x| can't see a sign flipped or values moved (a
    transposed output sums the same); this can, and its scale is the output's own (an output of 1e-12 projects to
    about 1e-12, which a check relative to Σ|x| still tells from 0). Uniform, not `randn`: torch's CPU `rand` draws
    one value at a time, the same bits on every CPU, where `randn` has vectorised paths. |2r − 1| < 1, so outputs
    that differ by d in Σ|x − x'| project at most d apart: the replay script's tolerance rests on that."""
    with _no_torch_function():
        if not _numel(t):
            return 0.0
        v = _float(_item(_sum(_mul(_double(_detach(t)), projection_weights(t)))))
    return v if math.isfinite(v) else _str(v)


def projection_gradient(outs, wrt):
    """Σ|∂P/∂w| over the tensors `wrt` in float64, P the sum of the projections of the floating outputs `outs` (with
    their graph): torch's autograd engine called directly, as backward_of does, without touching any `.grad`."""
    with _no_torch_function():
        loss = _sum(_mul(_double(outs[0]), projection_weights(outs[0])))
        for t in outs[1:]:
            loss = _add(loss, _sum(_mul(_double(t), projection_weights(t))))
        seed = _ones_like(loss)
    if _stash_tls is not None and _remove_tls is not None:
        _stash_tls("context", contextvars.copy_context())
    try:
        grads = _run_backward((loss,), (seed,), False, False, tuple(wrt), allow_unreachable=True, accumulate_grad=False)
    finally:
        if _stash_tls is not None and _remove_tls is not None:
            _remove_tls("context")
    with _no_torch_function():
        v = _float(sum(_float(_item(_sum(_abs(_double(g))))) for g in grads if g is not None))
    return v if math.isfinite(v) else _str(v)


def output_record(t):
    with _no_torch_function():
        shape, dtype = [int(n) for n in _size(t)], _str(_dtype_of(t)).replace("torch.", "")
    return {"shape": shape, "dtype": dtype, "checksum": checksum(t), "projection": projection(t)}


def modules(m):
    """`m` and its submodules, pre-order, each once, read from their `_modules` dicts (not `modules()`)."""
    out, seen, stack = [], set(), [m]
    while stack:
        mod = stack.pop()
        if _id(mod) in seen or not _isinstance(mod, _Module):
            continue
        seen.add(_id(mod))
        out.append(mod)
        children = _dict_get(_getattribute(mod, "__dict__"), "_modules") or {}
        stack.extend(reversed([c for c in _dict_values(children) if c is not None]))
    return out


def own(mod, kind):
    """(name, tensor) pairs of one module's `_parameters` or `_buffers`, without calling any method of `mod`."""
    table = _dict_get(_getattribute(mod, "__dict__"), kind) or {}
    return [(k, t) for k, t in _dict_items(table) if _isinstance(t, _Tensor)]


def tensors_of(m, kind):
    """Distinct parameter (or buffer) tensors of the whole module, as `parameters()` would list them."""
    out, seen = [], set()
    for mod in modules(m):
        for _, t in own(mod, kind):
            if _id(t) not in seen:
                seen.add(_id(t))
                out.append(t)
    return out


def count(m, kind):
    """Number of elements of the module's parameters (kind `_parameters`) or buffers (`_buffers`)."""
    with _no_torch_function():
        return sum(_numel(t) for t in tensors_of(m, kind))


def type_name(m):
    klass = _type(m)
    mod, qual = _str(_getattribute(klass, "__module__")), _str(_getattribute(klass, "__qualname__"))
    name = ("torch.nn." if mod.startswith("torch.nn.modules") else mod + ".") + qual
    return name[:TYPE_NAME_MAX]


def module_tree(m, budget):
    """Types and direct parameter shapes, children by name, at most budget[0] nodes in all."""
    budget[0] -= 1
    with _no_torch_function():
        params = {_str(k): [int(n) for n in _size(p)] for k, p in own(m, "_parameters")}
    node = {"type": type_name(m), "params": params, "children": {}}
    children = _dict_get(_getattribute(m, "__dict__"), "_modules") or {}
    for k, child in _dict_items(children):
        if child is None or not _isinstance(child, _Module):
            continue
        if budget[0] <= 0:
            node["truncated"] = True
            break
        node["children"][_str(k)] = module_tree(child, budget)
    return node


@contextlib.contextmanager
def no_grad():
    """`torch.no_grad()` through the C switch taken above: a block that replaces `torch.no_grad` (or the grad-mode
    module it reads at call time) can't make the runner's forwards record a graph, or its backward record none."""
    before = _is_grad_enabled()
    _set_grad_enabled(False)
    try:
        yield
    finally:
        _set_grad_enabled(before)


@contextlib.contextmanager
def enable_grad():
    """`torch.enable_grad()` through the C switch, as `no_grad`."""
    before = _is_grad_enabled()
    _set_grad_enabled(True)
    try:
        yield
    finally:
        _set_grad_enabled(before)


def grad_enabled():
    return _is_grad_enabled()


def shape_of(t):
    with _no_torch_function():
        return [int(n) for n in _size(t)]


def dtype_of(t):
    return _dtype_of(t)


def is_floating(t):
    with _no_torch_function():
        return _is_floating_point(t)


def requires_grad(t):
    with _no_torch_function():
        return _requires_grad_get(t)


def is_leaf(t):
    with _no_torch_function():
        return _is_leaf_get(t)


def make_differentiable(t):
    """`t.requires_grad_(True)`, so parameter-free blocks still back-propagate to their inputs."""
    with _no_torch_function():
        _requires_grad_(t, True)


def grad_of(p):
    with _no_torch_function():
        return _grad_get(p)


def clear_grad(p):
    with _no_torch_function():
        _grad_set(p, None)


def backward_of(outs):
    """Back-propagates the sum of the floating outputs `outs` (each summed in float32) through torch's autograd
    engine, called directly: `Tensor.backward` and `torch.autograd.backward` are Python a block can replace. The loss
    is made with torch functions off (a subclass's `sum` can't hand back a tensor of its own); the engine runs with
    the block's dispatch as it is, so the block's own backward code runs as it would anywhere."""
    with _no_torch_function():
        loss = _sum(_float32(outs[0]))
        for t in outs[1:]:
            loss = _add(loss, _sum(_float32(t)))
        seed = _ones_like(loss)
    if _stash_tls is not None and _remove_tls is not None:
        _stash_tls("context", contextvars.copy_context())
    try:
        _run_backward((loss,), (seed,), False, False, (), allow_unreachable=True, accumulate_grad=True)
    finally:
        if _stash_tls is not None and _remove_tls is not None:
            _remove_tls("context")


def finite(t):
    """Whether every element of `t` is finite, by the `isfinite` taken before any block was imported.

    The sum first: a NaN or an infinity in `t` makes its sum non-finite, so a finite sum settles it in one pass that
    allocates nothing (`isfinite` writes a mask the size of `t`: 0.7 s for VGG's 133 M gradients, the sum 0.02 s).
    Only a non-finite sum, which finite values too large for the dtype may also give, is checked element-wise."""
    with _no_torch_function():
        try:
            if _bool(_item(_isfinite(_sum(t)))):
                return True
        except (RuntimeError, TypeError):  # a dtype or layout without a sum
            pass
        return _bool(_item(_all(_isfinite(t))))


def same_values(a, b):
    """Fidelity's comparison of two output tensors (plain CPU copies): equal shape and dtype, then `allclose` (atol
    1e-6, NaN equal to NaN) for floating tensors, `equal` for the rest."""
    with _no_torch_function():
        if [int(n) for n in _size(a)] != [int(n) for n in _size(b)] or _dtype_of(a) != _dtype_of(b):
            return False
        return _bool(_allclose(a, b, atol=1e-6, equal_nan=True) if _is_floating_point(a) else _equal(a, b))


def state_shapes(m):
    """{dotted name: shape} of the parameters and persistent buffers of `m` and its submodules, as `state_dict()`
    would key them (a shared submodule under each of its names), read from the modules' own tables: a block that
    overrides `state_dict` can't hide a tensor. At most STATE_NODES modules (a module graph can be made cyclic)."""
    out, stack, visits = {}, [("", m)], 0
    while stack and visits < STATE_NODES:
        prefix, mod = stack.pop()
        visits += 1
        if not _isinstance(mod, _Module):
            continue
        table = _getattribute(mod, "__dict__")
        transient = _dict_get(table, "_non_persistent_buffers_set") or ()
        for kind in ("_parameters", "_buffers"):
            for k, t in own(mod, kind):
                if kind == "_parameters" or k not in transient:
                    out[prefix + _str(k)] = shape_of(t)
        children = _dict_get(table, "_modules") or {}
        for k, child in _dict_items(children):
            if child is not None:
                stack.append((prefix + _str(k) + ".", child))
    return {k: out[k] for k in _sorted(out)}
