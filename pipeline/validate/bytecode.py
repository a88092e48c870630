# Bytecode of the originals' packages in the build's own checkouts (docs/validate.md, "Bytecode of the originals"),
# compiled on the host before validation: `python -I bytecode.py ROOT...`, one package folder or module file a
# ROOT. Fidelity imports each block's original package in the block's child, and the child writes no bytecode
# (containment.py), so without this every child compiled the whole package from its sources again: timm's 1.7 s
# import was 0.5 s from bytecode, for every one of its 709 blocks.
#
# Compiling reads and writes; it never runs the code. What an upstream tree could plant is refused: a symlinked
# folder is not entered (os.walk does not follow links), a source that is a symlink or not a regular file is not
# read, and a `__pycache__` that is not a real folder is not written through (a link to /etc would put our files
# there, as root). A file already compiled for its present mtime and size is left as it is (a warm run reads
# headers only). Prints one line of JSON: {"files", "compiled", "failed"}.
import importlib.util, json, os, py_compile, stat, sys
from concurrent.futures import ProcessPoolExecutor

MAX_BYTES = 4 << 20  # a source larger than this is left to the import (the index caps files at 1 MiB by default)


def sources(root):
    """(path, lstat) of every regular .py file under `root` (a folder or one file), sorted, never through a link."""
    st = os.lstat(root)
    if stat.S_ISREG(st.st_mode):
        return [(root, st)] if root.endswith(".py") else []
    if not stat.S_ISDIR(st.st_mode):
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_BYTES:
                out.append((path, st))
    return out


def fresh(path, st):
    """Whether the bytecode beside `path` is for its present mtime and size (the header the import checks)."""
    try:
        with open(importlib.util.cache_from_source(path), "rb") as f:
            head = f.read(16)
    except OSError:
        return False
    return (len(head) == 16 and head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == b"\0\0\0\0"
            and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF)


def writable_cache(path):
    """The folder's `__pycache__` is absent or a real folder: never a link to somewhere else."""
    try:
        return stat.S_ISDIR(os.lstat(os.path.join(os.path.dirname(path), "__pycache__")).st_mode)
    except FileNotFoundError:
        return True


def compile_one(path):
    if not writable_cache(path):
        return False
    try:
        # doraise: a failure raises (quiet=2 would return None without a word, whatever doraise says)
        return py_compile.compile(path, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP) is not None
    # A syntax error (Python 2 code), a file gone or unreadable, source too deep or too large for the compiler: left
    # to the import, which will say so in the child, as it always did.
    except (py_compile.PyCompileError, OSError, ValueError, RecursionError, MemoryError):
        return False


def main(roots):
    todo, files = [], 0
    for root in roots:
        for path, st in sources(root):
            files += 1
            if not fresh(path, st):
                todo.append(path)
    compiled = 0
    if todo:
        workers = max(1, min(len(todo) // 64 + 1, (os.cpu_count() or 1)))
        with ProcessPoolExecutor(workers) as pool:
            compiled = sum(pool.map(compile_one, todo, chunksize=32))
    print(json.dumps({"files": files, "compiled": compiled, "failed": len(todo) - compiled}))


if __name__ == "__main__":
    main(sys.argv[1:])
