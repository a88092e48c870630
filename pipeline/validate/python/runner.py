# nnblocks validate runner: imports torch once, then forks one contained child per block to parse, compile,
# import, build, run forward and backward, and reports one JSON record per block on a dedicated pipe.
# This file is the process entry and the protocol with the TypeScript side (pipeline/validate/worker.ts):
#   stdin  -> worker: JSON lines. The first is the hello {nonce, device, workRoot, sandboxed}; then per block a job
#            line, and, once the worker has said `started`, a seal line {"token": T}.
#   fd 3   <- worker: JSON lines {"nonce": N, "type": "ready" | "started" | "result", ...}. Only fd 3 is parsed, and
#            only lines carrying the nonce; a result also carries the job's id and token. The worker's own
#            stdout/stderr are for humans.
# The token of block N reaches the worker only after N's child was forked, so no block ever has a token in its
# memory: not its own, not a later block's. A block can lie about itself; it can't write another block's record.
# Per block the worker forks a child (milliseconds, against ~1-2 s for `import torch`); nnblocks_runner/ next to
# this file holds the rest, one concern a module (see its __init__.py). The TypeScript side owns the sandbox
# (bubblewrap) and a wall-clock backstop. In the sandbox the worker is pid 1 (nnblocks_runner/pid1.py): it reaps
# every orphan, catches no signal, and retires when a block left anything in the sandbox. See docs/validate.md.
import gc, json, os, sys

# Validation checks eager behaviour: torch.compile (TorchDynamo/Inductor) would start a C++ compiler, which the sandbox
# refuses (no processes), so code that compiles itself (torchvision's pure-Python roi_align fallback) runs eagerly
# instead of failing. Set before torch is imported, which reads it once. `-I` ignores PYTHON* variables, not this.
os.environ["TORCHDYNAMO_DISABLE"] = "1"

# `--site DIR` (repeated): the interpreter was started with `-S`, so no site folder's `.pth` file or
# `sitecustomize` ran in this worker (a requirements layer is upstream's choice, and the worker holds the result
# channel); the folders are appended after the standard library, runtime (torch) first, so nothing installed can
# shadow a module of the standard library or of torch.
while len(sys.argv) > 2 and sys.argv[1] == "--site":
    sys.path.append(sys.argv[2])
    del sys.argv[1:3]

# `python -I` keeps this folder off sys.path: put it there just long enough to import our modules, so no block
# can import them by name later.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import torch
    from nnblocks_runner.containment import identity, not_dumpable
    from nnblocks_runner.pid1 import catch_no_signal, worker_state
    from nnblocks_runner.protocol import LineReader, sanitize, write_all
    from nnblocks_runner.supervise import supervise
    from nnblocks_runner.sources import install_findsource
    from nnblocks_runner.warm import warm
finally:
    del sys.path[0]


def probe_device(requested):
    """(device, gpu name, error). CUDA is probed in a throwaway child: initialising it in the worker would break
    every forked child's CUDA ("Cannot re-initialize CUDA in forked subprocess")."""
    if requested == "cpu":
        return "cpu", None, None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            ok = torch.cuda.is_available()
            info = {"ok": ok, "name": torch.cuda.get_device_name(0) if ok else None}
        except BaseException as exc:
            info = {"ok": False, "name": None, "error": str(exc)}
        write_all(w, json.dumps(info).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    info = json.loads(data or b'{"ok": false, "name": null}')
    if info["ok"]:
        return "cuda", info["name"], None
    if requested == "cuda":
        return "cuda", None, "device cuda requested but torch.cuda.is_available() is false"
    return "cpu", None, None


def load_native(paths):
    """Loads the compiled op libraries of installed distributions (torchvision's `_C`) before any block runs:
    a block's assembled Python calls `torch.ops.torchvision.nms`, and the library that registers it is part of the
    runtime like torch itself, not code a block could carry. Nothing of the distribution's Python is imported (its
    package stays refused). Returns the paths that loaded; docs/validate.md ("Compiled ops")."""
    loaded = []
    for path in paths:
        try:
            torch.ops.load_library(path)
            loaded.append(path)
        except Exception:
            pass
    return loaded


def preload(entries):
    """Imports installed originals' packages (torchvision) once, before any fork: every block's child inherits them,
    and fidelity finds its original already imported instead of importing the package again per block (~150 ms).
    The Blocker takes them out of sys.modules while a block runs (its package stays refused) and puts them back for
    fidelity. Only installed distributions come here (the TypeScript side picks them); a checkout's code is only
    ever imported inside a block's contained child. Returns the packages that imported."""
    done = []
    for e in entries:
        sys.path.insert(0, e["importRoot"])
        try:
            __import__(e["package"])
            done.append(e["package"])
        except BaseException:
            pass
        finally:
            sys.path.remove(e["importRoot"])
    return done


def environment_problem():
    """Why this environment would fail blocks that are not at fault, or None: torch 2.x, timm and transformers ask
    who the user is and where home is at import (the sandbox provides an account entry and HOME; a sandbox that
    lost them must run nothing rather than blame every block)."""
    import getpass, pwd
    try:
        getpass.getuser()
        pwd.getpwuid(os.getuid())
    except Exception as exc:
        return f"environment: the sandbox's user has no account entry ({type(exc).__name__}: {exc})"
    return None


def main():
    # No other process of the sandbox (a block's, all running as the same uid) may open this one's /proc entries:
    # its fd 3 (the result pipe) or its memory.
    not_dumpable()
    # As its sandbox's pid 1, the worker gets a signal from a block only if it catches it: it catches none.
    if os.getpid() == 1:
        catch_no_signal()
    # One intra-op thread, set before any fork: one worker per core already, and an OpenMP pool started in the
    # worker would not survive fork() into the children.
    torch.set_num_threads(1)
    stdin = LineReader(0)
    hello = json.loads(stdin.line())
    nonce, sandboxed = hello["nonce"], bool(hello.get("sandboxed"))
    emit = lambda obj: write_all(3, (json.dumps(sanitize({"nonce": nonce, **obj})) + "\n").encode())
    device, gpu, error = probe_device(hello.get("device", "auto"))
    native = load_native(hello.get("nativeLibraries") or [])
    # torch's lazily imported parts first, with triton held off: torchvision's import would otherwise import them
    # with triton (warm.py).
    warm()
    install_findsource()
    preload(hello.get("preload") or [])
    error = error or environment_problem()
    # What the worker holds now (torch, the preloaded originals: some 300,000 objects) is never garbage: move it out
    # of the collector's reach before any fork. Otherwise every full collection in a block's child walks it and
    # writes its headers, copying the shared pages: parsing and importing a 300 kB assembled module took 2.5 times
    # as long (0.3 s against 0.12 s), and every stage that allocates paid the same way.
    gc.collect()
    gc.freeze()
    emit({"type": "ready", "torchVersion": torch.__version__, "device": device, "gpuName": gpu, "error": error,
          "python": sys.version.split()[0], "identity": identity(), "nativeLibraries": native, "pid": os.getpid()})
    # The worker's limits and scheduling now: after every block they must still be these (pid1.leftovers).
    baseline = worker_state()
    count = 0
    while (line := stdin.line()) is not None:
        job = json.loads(line)
        count += 1
        job.update(device=device, work=os.path.join(hello["workRoot"], f"b{os.getpid()}-{count}"))

        def started(child, job_id=job["id"]):
            # `child` is the block's process group; only a worker outside a sandbox says it (a pid of the sandbox's
            # own namespace means nothing on the host), so that the host can end it with a worker it kills.
            emit({"type": "started", "id": job_id, **({} if sandboxed else {"child": child})})

        rec, token, clean, cache = supervise(job, sandboxed, stdin, started, baseline)
        if token is None:
            break  # the TypeScript side is gone
        rec.update(device=device, gpuName=gpu, torchVersion=torch.__version__)
        # `retire`: something of the block survived the sweep (a process, a change to the worker, an IPC object), so
        # this sandbox ends here and the TypeScript side starts a fresh one for the next block (it must know before
        # it sends one). `cache`: false for a record that says more about this machine than about the block (a
        # timeout on a loaded machine).
        emit({"type": "result", "id": job["id"], "token": token, "record": rec, "retire": not clean, "cache": cache})
        if not clean:
            break


if __name__ == "__main__":
    main()
