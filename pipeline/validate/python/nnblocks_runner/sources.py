# The source of a block's classes, functions and modules as `ast`, each file read and parsed once per block.
#
# Why not `inspect.getsource` each time: for a class, Python 3.11's `inspect.findsource` parses the *whole file* on
# every call to find the class by its qualified name. An assembled module is up to a few hundred kilobytes, and
# recipe inference asks for every class of a block's MRO and every class a parameter is handed to: on torchvision's
# blocks that re-parsing was 15% of validation's time. Here a file is parsed once and its classes are found in that
# tree, the way inspect finds them (the first class whose dotted path, `<locals>` included, is the qualified name);
# the class's own text is then cut from the file by the tree's line numbers and parsed alone, dedented, so what the
# callers get is the tree they got from `ast.parse(textwrap.dedent(inspect.getsource(klass)))`.
import ast, functools, inspect, linecache, sys, textwrap

# A block's child reads its own module and the modules it imports: a few files, and a few classes each.
_FILES, _OBJECTS = 32, 1024


_files = {}  # path -> (lines, tree) or None


def remember(path, source, tree):
    """Keeps the tree the parse stage made of the block's module (`source`: its bytes), so that inference does not
    parse the largest file of all a second time."""
    if len(_files) < _FILES:
        _files[path] = (source.decode("utf-8", "replace").splitlines(keepends=True), tree)


def _file(path):
    """(lines, tree) of one source file, or None when it can't be read or parsed."""
    if path in _files:
        return _files[path]
    lines = linecache.getlines(path)
    try:
        read = (lines, ast.parse("".join(lines), path)) if lines else None
    except (SyntaxError, ValueError):
        read = None
    if len(_files) < _FILES:
        _files[path] = read
    return read


def file_tree(path):
    """The tree of one source file (parsed once, the block's module as the parse stage left it), or None."""
    read = _file(path)
    return None if read is None else read[1]


# Statement lists a class can be defined in (expressions hold none): walking only these visits a few thousand nodes
# of a file where every node is a few hundred thousand.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def inner_statements(node):
    """The statements (and except handlers) directly in `node`'s statement lists; a `match`'s cases, which have no
    line of their own, give their bodies' statements."""
    return [c for field in _BODIES for child in getattr(node, field, None) or ()
            for c in (child.body if isinstance(child, ast.match_case) else [child])]


def _class_index(tree):
    """{qualified name: ClassDef} of every class in `tree`, the first in source order for a name defined twice (as
    inspect's `_ClassFinder`, which stops at the first), `<locals>` for classes defined in functions."""
    index = {}

    def visit(nodes, prefix):
        for node in nodes:
            if isinstance(node, ast.ClassDef):
                name = prefix + node.name
                index.setdefault(name, node)
                visit(node.body, name + ".")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(node.body, f"{prefix}{node.name}.<locals>.")
            else:
                visit(inner_statements(node), prefix)

    visit(tree.body, "")
    return index


_indexes = {}  # id of a file's tree -> its _class_index


def _defined_at(tree, qualname):
    """The ClassDef whose qualified name is `qualname`, or None."""
    index = _indexes.get(id(tree))
    if index is None:
        index = _indexes[id(tree)] = _class_index(tree)
    return index.get(qualname)


def class_tree(klass):
    """`ast.parse(textwrap.dedent(inspect.getsource(klass)))`, or None when its source can't be read."""
    try:
        return _class_tree(klass)
    except TypeError:  # a class that can't be a cache key (a metaclass without __hash__): read, not kept
        return _class_tree.__wrapped__(klass)


@functools.lru_cache(maxsize=_OBJECTS)
def _class_tree(klass):
    try:
        path = inspect.getsourcefile(klass)
    except TypeError:  # a built-in class
        return None
    read = _file(path) if path else None
    if read is None:
        return None
    lines, tree = read
    node = _defined_at(tree, klass.__qualname__)
    if node is None:
        return None
    start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
    try:
        return ast.parse(textwrap.dedent("".join(lines[start:node.end_lineno])))
    except (SyntaxError, ValueError):
        return None


def function_tree(fn):
    """`ast.parse(textwrap.dedent(inspect.getsource(fn)))`, or None (inspect finds a function by its code's first
    line, without parsing the file: only the parse is kept)."""
    try:
        return _function_tree(fn)
    except TypeError:
        return _function_tree.__wrapped__(fn)


@functools.lru_cache(maxsize=_OBJECTS)
def _function_tree(fn):
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (TypeError, OSError, SyntaxError, IndentationError, ValueError, AttributeError):
        return None


def _module_file(name):
    """The source file of imported module `name`, or None."""
    path = getattr(sys.modules.get(name), "__file__", None)
    return path if isinstance(path, str) else None


def module_tree(name):
    """The whole tree of module `name` (imported), or None."""
    path = _module_file(name)
    read = _file(path) if path else None
    return None if read is None else read[1]


def module_text(name):
    """The whole text of module `name` (imported), or None."""
    path = _module_file(name)
    lines = linecache.getlines(path) if path else None
    return "".join(lines) if lines else None


# Upstream code asks inspect for class sources too: PyG's MessagePassing reads its subclass's source at every
# construction (`_get_propagate_signature`), and every layer of a graph network is one, so a model's build parsed its
# assembled module again per layer: 43 s of PyG's 215 s in a paper-corpus run. `findsource` is inspect's own, but a
# class is looked up in the tree of its file kept above (the parse stage's, for the block's module), found as
# inspect's `_ClassFinder` finds it.
_inspect_findsource = inspect.findsource


def findsource(object):
    """inspect.findsource(object): the same lines and line number, the same errors."""
    if not inspect.isclass(object) or not isinstance(object.__qualname__, str):
        return _inspect_findsource(object)
    file = inspect.getsourcefile(object)
    if file:
        linecache.checkcache(file)
    else:
        file = inspect.getfile(object)
        if not (file.startswith("<") and file.endswith(">")):
            raise OSError("source code not available")
    module = inspect.getmodule(object, file)
    lines = linecache.getlines(file, module.__dict__) if module else linecache.getlines(file)
    if not lines:
        raise OSError("could not get source code")
    read = _file(file)
    if read is not None and read[0] == lines:
        node = _defined_at(read[1], object.__qualname__)
    else:  # another text than the kept one (a loader's own source) is parsed as inspect parses it
        node = _class_index(ast.parse("".join(lines))).get(object.__qualname__)
    if node is None:
        raise OSError("could not find class definition")
    return lines, (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1


def install_findsource():
    """Puts `findsource` in inspect (getsource and getsourcelines call it by that name), in the worker, so every
    block's child has it; under Python 3.13 and later inspect finds a class by its `__firstlineno__`, and keeps its
    own."""
    if sys.version_info < (3, 13) and hasattr(inspect, "_ClassFinder"):
        inspect.findsource = findsource
