# Measurements a block can't patch. Everything here goes through references taken when the runner starts, before
# any block is imported, and with torch's __torch_function__ dispatch turned off: a block that patches
# `torch.Tensor.numel`, overrides `parameters()`, or returns a tensor subclass whose `sum` lies, still gets its
# parameter count, output shapes and checksums measured from the tensors themselves.
# What a block *can* still do is lie about itself: its code runs in this same process (docs/validate.md,
# "What a hostile block can and cannot do").
import math

import torch

_Tensor, _Module = torch.Tensor, torch.nn.Module
_numel, _detach, _double, _abs, _sum, _item, _cpu, _size = (
    torch.Tensor.numel, torch.Tensor.detach, torch.Tensor.double, torch.Tensor.abs, torch.Tensor.sum,
    torch.Tensor.item, torch.Tensor.cpu, torch.Tensor.size)
_dtype_of = torch.Tensor.dtype.__get__
_no_torch_function = torch._C.DisableTorchFunction
_getattribute, _isinstance, _type, _id, _len, _str, _float, _range = (
    object.__getattribute__, isinstance, type, id, len, str, float, range)
_dict_get, _dict_values, _dict_items = dict.get, dict.values, dict.items
_list_len, _list_item, _tuple_len, _tuple_item = list.__len__, list.__getitem__, tuple.__len__, tuple.__getitem__

TYPE_NAME_MAX = 200  # characters of a module-tree type name; the TypeScript side drops names that aren't identifiers


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


def output_record(t):
    with _no_torch_function():
        shape, dtype = [int(n) for n in _size(t)], _str(_dtype_of(t)).replace("torch.", "")
    return {"shape": shape, "dtype": dtype, "checksum": checksum(t)}


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
