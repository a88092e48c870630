# nnblocks validate: what a block's constructor source says of its parameters (`ast`, never run), for infer.py.
#
# A required parameter's name says little of its kind; how the class uses it says more:
#   for k in dilations: ...            -> `dilations` is a sequence (an int would fail "'int' object is not iterable")
#   H, W = self.input_resolution       -> a sequence too, through the attribute it is stored in
#   if num_branches != len(blocks):    -> `num_branches` counts `blocks`: the list length, not a width
#   config.hidden_size, self.config.is_decoder
#                                      -> `config` is an object of attributes; `is_decoder` is read as a truth value
#   ACT_CLASSES[config.hidden_act]     -> `hidden_act` is a key of that module-level dict (or class-level:
#                                         `self.arch_settings[depth]`)
#   if drop_path > 0.:                 -> `drop_path` is a number, whatever class is named like it
#   self.self = Attention(config)      -> `config` is also used as Attention's `__init__` uses its `config`
#   super().__init__(*args, **kwargs)  -> the base's required parameters are the block's too (infer.init_params)
# Read from the class's own methods and its bases' (up to torch.nn.Module), the strings and comments left out, and
# from the classes and functions of its module a parameter is handed to (FOLLOW levels deep).
import ast, functools, inspect, sys

import torch

from .sources import class_tree, function_tree


class Uses:
    """What the class does with one parameter (or one attribute of it: `config.hidden_size`)."""

    def __init__(self):
        self.seq = False  # iterated, len() taken, indexed by a non-string, unpacked, starred
        self.nested = False  # and so is an element of it: `len(anchors[0])`, `anchors[i][j]` (a list of lists)
        self.truth = False  # read as a truth value: `if p:`, `not p`, `p and ...`
        self.called = False  # called itself: a module, a class or a function, not data
        self.keyed = False  # indexed by a string, or `.get(...)`: a dict
        self.attrs = {}  # attribute name -> Uses, for attributes read off it (not methods called on it)
        self.methods = set()  # methods called on it: `p.to_dict()`
        self.count_of = None  # compared with len() of this other parameter
        self.number = False  # compared in order with a number: `if drop_path > 0.`
        self.keys = None  # the keys (str or int) of the module-level or class-level dict it indexes: `ACT2FN[p]`

    def merge(self, other):
        """Adds what another reading says of the same value (a class it is handed to)."""
        for flag in ("seq", "nested", "truth", "called", "keyed", "number"):
            setattr(self, flag, getattr(self, flag) or getattr(other, flag))
        self.methods |= other.methods
        self.keys = self.keys or other.keys
        for name, u in other.attrs.items():
            self.attrs.setdefault(name, Uses()).merge(u)


# Builtins that iterate their (first) argument.
SEQUENCE_CALLS = ("len", "zip", "enumerate", "sum", "max", "min", "sorted", "reversed", "list", "tuple")
# How deep a parameter is followed into the classes and functions it is handed to (BertLayer -> BertAttention ->
# BertSelfAttention reads `config.num_attention_heads`).
FOLLOW = 3


def _classes(cls):
    """The block's class and its bases up to torch.nn.Module, whose sources say how the parameters are used."""
    return [k for k in cls.__mro__ if k not in (torch.nn.Module, object) and not k.__module__.startswith("torch.nn")]


def _string_key(node):
    """Whether subscript `node` reads a string key (`p["key"]`): a dict, where any other index reads a sequence."""
    return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)


class _Reader:
    """Walks one class's methods, noting the uses of each parameter of `__init__`, directly (`p`, `p.attr`) or
    through the attribute `__init__` stores it in (`self.cfg = config` makes `self.cfg.x` a read of `config.x`)."""

    def __init__(self, params, home, depth):
        self.params = set(params)
        self.uses = {p: Uses() for p in params}
        self.aliases = {}  # self attribute -> (parameter, attribute or None): `self.cfg = config`, `self.d = config.d`
        self.home, self.depth = home, depth  # the class whose module names resolve in; how deep this reading is

    def path(self, node, local):
        """(parameter, attribute or None) that `node` denotes, or None. `local`: names bound to parameters here."""
        if isinstance(node, ast.Name) and node.id in local:
            return local[node.id], None
        if isinstance(node, ast.Attribute):
            v = node.value
            if isinstance(v, ast.Name) and v.id == "self" and node.attr in self.aliases:
                return self.aliases[node.attr]
            inner = self.path(v, local)
            if inner is not None and inner[1] is None:
                return inner[0], node.attr
        return None

    def use(self, node, local):
        p = self.path(node, local)
        if p is None:
            return None
        u = self.uses[p[0]]
        if p[1] is None:
            return u
        return u.attrs.setdefault(p[1], Uses())

    def read_method(self, fn, local):
        for node in ast.walk(fn):
            self.visit(node, local)

    def visit(self, node, local):
        if isinstance(node, ast.Subscript):
            self.subscript(node, local)
        elif isinstance(node, ast.Call):
            self.call(node, local)
        elif isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            self.truth(node.test, local)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                self.truth(v, local)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.truth(node.operand, local)
        elif isinstance(node, ast.Compare):
            self.count(node, local)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            self.use(node, local)  # an attribute read: `config.hidden_size` (methods are taken out at the end)
        for spot in self.iterated(node):
            u = self.use(spot, local)
            if u is not None:
                u.seq = True
            self.element_seq(spot, local)

    @staticmethod
    def iterated(node):
        """The expressions `node` iterates, measures or unpacks: `for _ in x`, `*x`, `a, b = x`, `len(x)`, `zip(x, y)`."""
        if isinstance(node, (ast.For, ast.comprehension)):
            return [node.iter]
        if isinstance(node, ast.Starred):
            return [node.value]
        if isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets):
            return [node.value]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SEQUENCE_CALLS:
            if node.func.id in ("max", "min") and len(node.args) > 1:
                return []  # `max(ch[0], 16)` compares its arguments: none is iterated
            return node.args if node.func.id == "zip" else node.args[:1]
        return []

    def subscript(self, node, local):
        """`p[0]`: a sequence; `p["key"]`: a dict; `TABLE[p]`: p is a key of that module-level table."""
        key = node.slice
        u = self.use(node.value, local)
        if not _string_key(node):
            self.element_seq(node.value, local)
        if u is not None:
            if _string_key(node):
                u.keyed = True
            else:
                u.seq = True
        k = self.use(key, local)
        table = self.global_value(node.value)
        if k is not None and isinstance(table, dict) and table and all(type(x) in (str, int) for x in table):
            k.keys = list(table)

    def element_seq(self, node, local):
        """`node` is used as a sequence: when it is an element of a parameter (`anchors[0]`), the parameter is a
        sequence of sequences."""
        if isinstance(node, ast.Subscript) and not _string_key(node):
            u = self.use(node.value, local)
            if u is not None:
                u.seq = u.nested = True

    def call(self, node, local):
        """`p(...)`: called; `p.get(...)`: a dict; `p.to_dict()`: a method; `Other(p)`: followed into Other."""
        f = node.func
        p = self.path(f, local)
        if p is None:
            self.follow(node, local)
        elif p[1] is None:  # `block(...)`, `self.backbone(x)`: called itself
            self.uses[p[0]].called = True
        else:
            owner = self.use(f.value, local)  # None for `self.x()` where `self.x = config.x`
            if owner is not None:
                owner.methods.add(f.attr)
                owner.keyed = owner.keyed or f.attr in ("get", "items", "keys", "values")

    def global_value(self, node):
        """The object a name of the home class's module denotes (`ACT2FN`, `BertSelfAttention`), `self.method`
        the home class's method; None otherwise."""
        if isinstance(node, ast.Name):
            mod = sys.modules.get(self.home.__module__)
            return vars(mod).get(node.id) if mod else None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            return inspect.getattr_static(self.home, node.attr, None)
        if isinstance(node, ast.Subscript):  # `CLASSES[config.kind](config)`: the first entry, as its key is guessed
            table = self.global_value(node.value)
            return next(iter(table.values()), None) if isinstance(table, dict) else None
        return None

    def follow(self, call, local):
        """A parameter handed whole to a class or function of the module (`BertAttention(config)`,
        `self._check(num_blocks)`) is used as that callee uses its own parameter."""
        if self.depth >= FOLLOW:
            return
        handed = [(i, None, a) for i, a in enumerate(call.args)] + [(None, k.arg, k.value) for k in call.keywords if k.arg]
        handed = [(i, k, self.path(a, local)) for i, k, a in handed]
        handed = [(i, k, p[0]) for i, k, p in handed if p is not None and p[1] is None]
        if not handed:
            return
        callee = self.global_value(call.func)
        method = isinstance(call.func, ast.Attribute)
        if isinstance(callee, type) and not method:
            fn, skip, target = callee.__init__, 1, callee
        elif inspect.isfunction(callee):
            fn, skip, target = callee, 1 if method else 0, None
        else:
            return
        try:
            params = list(inspect.signature(fn).parameters.values())[skip:]
            # Up to a `*args` (what it receives there is not one parameter); `**kwargs` is no name either.
            star = next((i for i, q in enumerate(params) if q.kind == q.VAR_POSITIONAL), None)
            names = [q.name for q in params[:star] if q.kind != q.VAR_KEYWORD]
        except (TypeError, ValueError):
            return
        for i, k, param in handed:
            name = names[i] if i is not None and i < len(names) else k if k in names else None
            if name is None:
                continue
            try:
                found = _callee_uses(target or fn, name, self.home, self.depth + 1)
            except TypeError:  # a callee that can't be a cache key (a metaclass without __hash__): not followed
                continue
            if found is not None:
                self.uses[param].merge(found)

    def truth(self, node, local):
        u = self.use(node, local)
        if u is not None:
            u.truth = True

    def count(self, node, local):
        """`n != len(items)`, `len(items) == n`: n counts items. `drop_path > 0.`: a number (not a DropPath)."""
        sides = [node.left, *node.comparators]
        ordered = any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in node.ops)
        if ordered and any(isinstance(s, ast.Constant) and type(s.value) in (int, float) for s in sides):
            for u in (self.use(s, local) for s in sides):
                if u is not None:
                    u.number = True
        lens = [s.args[0] for s in sides if isinstance(s, ast.Call) and isinstance(s.func, ast.Name)
                and s.func.id == "len" and len(s.args) == 1]
        names = [self.path(s, local) for s in sides if not isinstance(s, ast.Call)]
        for seq in lens:
            sp = self.path(seq, local)
            for n in names:
                if sp is not None and n is not None and sp[1] is None and n[1] is None and n[0] != sp[0]:
                    self.uses[n[0]].count_of = sp[0]


@functools.lru_cache(maxsize=512)
def _callee_uses(callee, name, home, depth):
    """Uses of parameter `name` of a class's constructor or of a function (a method of `home`), read once."""
    found = param_uses(callee, [name], depth) if isinstance(callee, type) else function_uses(callee, name, home, depth)
    return found.get(name)


def function_uses(fn, name, home, depth):
    """{name: Uses} for parameter `name` of function (or method of `home`) `fn`."""
    tree = function_tree(fn)
    if tree is None:
        return {}
    reader = _Reader([name], home, depth)
    if tree.body:
        reader.read_method(tree.body[0], {name: name})
    return reader.uses


def param_uses(cls, params, depth=0):
    """{parameter name: Uses} for the constructor parameters `params` (names), read from the sources of the class and
    of its bases; {} when no source can be read. Aliases (`self.x = p`) are taken from each `__init__` first."""
    reader = _Reader(params, cls, depth)
    methods = []
    for klass in _classes(cls):
        tree = class_tree(klass)
        if tree is None or not tree.body or not isinstance(tree.body[0], ast.ClassDef):
            continue
        for fn in tree.body[0].body:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                methods.append((fn.name == "__init__", fn))
    for is_init, fn in methods:
        if not is_init:
            continue
        names = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
        for node in ast.walk(fn):
            if not isinstance(node, ast.Assign):
                continue
            p = reader.path(node.value, {p: p for p in reader.params if p in names})
            for t in node.targets if p is not None else ():
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    reader.aliases[t.attr] = p
    for is_init, fn in methods:
        # Parameters are names only in `__init__` (one of the classes'); elsewhere they are reached through aliases.
        names = {a.arg for a in fn.args.args + fn.args.kwonlyargs} if is_init else set()
        reader.read_method(fn, {p: p for p in reader.params if p in names})
    for u in reader.uses.values():  # a method called on it is no attribute of data: `config.to_dict()`
        for m in u.methods:
            u.attrs.pop(m, None)
    return reader.uses


def forwarded_to_base(klass):
    """For `__init__(self, ..., *args, **kwargs)` that hands its catch-alls to `super().__init__(...)` (or
    `Base.__init__(self, ...)`): (the number of positional arguments it passes before `*args`, the keyword names it
    passes itself). None when `__init__` passes no `**kwargs` on to its base.

    e.g. `super().__init__(num_classes, in_channels, **kwargs)` -> (2, set()): the base's first two parameters are
    given, the rest of its required ones the caller must name."""
    tree = function_tree(klass.__init__)
    if tree is None:
        return None
    fn = tree.body[0] if tree.body and isinstance(tree.body[0], ast.FunctionDef) else None
    if fn is None or fn.args.kwarg is None:
        return None
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        owner = node.func.value
        via_super = isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super"
        args = node.args if via_super else node.args[1:]  # `Base.__init__(self, ...)` passes self first
        if not any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == fn.args.kwarg.arg for k in node.keywords):
            continue
        positional = 0
        for a in args:
            if isinstance(a, ast.Starred):
                break
            positional += 1
        return positional, {k.arg for k in node.keywords if k.arg}
    return None
