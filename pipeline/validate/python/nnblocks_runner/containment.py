# Containment inside the forked child, in front of the kernel sandbox (bubblewrap, owned by the TypeScript side):
# the child's own fds, process group and work folder, rlimits, the audit hook that turns escape attempts into
# recorded violations, the finder that refuses the block's upstream packages, and the sweep of stray processes.
import ctypes, errno, importlib.abc, importlib.util, math, os, resource, signal, stat, sys, tempfile, time

from .pid1 import restore_child_signals


class Blocker(importlib.abc.MetaPathFinder):
    """Refuses the block's own upstream packages, so an assembled block cannot lean on the original repository."""

    def __init__(self, blocked):
        self.blocked = set(blocked)
        self.stash = {}  # blocked modules the worker had imported (installed originals), kept for fidelity
        self.probe = importlib.util.find_spec  # importlib's own, put back by remove()

    def find_spec(self, name, path, target=None):
        # Any other name falls through (None): not ours, the next finder on sys.meta_path decides.
        if name.split(".")[0] in self.blocked:
            wanted = requested_module(name)
            raise ModuleNotFoundError(f"No module named '{wanted}' (blocked: the block must not import its upstream package)", name=wanted)

    def install(self):
        """Takes blocked modules already imported (the worker's preloaded originals) out of sys.modules, so the
        block can't import them from the cache either, and goes first on the meta path."""
        self.stash = {n: sys.modules.pop(n) for n in [n for n in sys.modules if n.split(".")[0] in self.blocked]}
        sys.meta_path.insert(0, self)
        importlib.util.find_spec = self.find_installed

    def find_installed(self, name, package=None):
        """importlib.util.find_spec, for which a refused package is not installed: a probe finds nothing, as it would
        where only the extracted module is. transformers asks `find_spec("timm") is not None` at import for each
        package it may use; through the finder the probe raised, and a block that never imports timm failed on it."""
        try:
            absolute = importlib.util.resolve_name(name, package) if name.startswith(".") else name
        except Exception:
            return self.probe(name, package)  # it raises the same, for the same reason
        return None if absolute.split(".")[0] in self.blocked else self.probe(name, package)

    def remove(self):
        """Steps off the meta path and puts the stashed originals back, over anything the block put under their
        names, so fidelity imports the real ones."""
        sys.meta_path.remove(self)
        importlib.util.find_spec = self.probe
        for name in [n for n in sys.modules if n.split(".")[0] in self.blocked]:
            del sys.modules[name]
        sys.modules.update(self.stash)


def requested_module(name):
    """The module the import asked for when its parent `name` is refused: `import mmcv._ext` imports `mmcv` first,
    and only `mmcv._ext` tells a compiled extension (native-extension) from a pure-Python module (missing-module).
    Read from importlib's own live frames (`_find_and_load(name, ...)` of each module on the way down): the longest
    name below `name`, or `name` itself. Tracebacks can't tell: importlib strips its frames from them."""
    found, f = name, sys._getframe(1)
    while f is not None:
        if f.f_globals.get("__name__") == "importlib._bootstrap" and f.f_code.co_name.startswith("_find_and_load"):
            n = f.f_locals.get("name")
            if isinstance(n, str) and n.startswith(name + ".") and len(n) > len(found):
                found = n
        f = f.f_back
    return found


class Violation(PermissionError):
    """Raised by the audit hook; a PermissionError so upstream `except OSError` paths behave as under a real denial."""


VIOLATIONS = []  # (kind, detail) in this child; read when the record is composed, so a swallowed exception still counts


def install_audit_hook(work, send):
    """Python-level tripwire: network, processes, writes outside `work`, signals to other processes. It lives in
    the block's own process, so a block can turn it off (its closure is reachable through `gc`), and libc calls
    through ctypes never pass it: what it misses, the worker reads from the kernel (witness.py). Its state is
    immutable (frozensets, tuples), so at least no `set.clear()` empties it."""
    allowed = (os.path.realpath(work) + os.sep, "/dev/null")
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
    # Not socket.bind: libraries probe for IPv6 at import by binding ('::1', 0) (urllib3 does), which is harmless
    # in the sandbox's empty network namespace; reaching out is what counts.
    net = frozenset({"socket.connect", "socket.sendto", "socket.sendmsg"})
    proc = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork", "os.forkpty"})
    paths = frozenset({"os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.chown", "os.truncate",
                       "os.symlink", "os.link"})
    me = os.getpid()

    def refuse(kind, detail):
        VIOLATIONS.append((kind, detail))
        send({"t": "violation", "kind": kind, "detail": detail})
        raise Violation(errno.EPERM, f"sandbox: {kind} refused ({detail})")

    def outside(path):
        if not isinstance(path, (str, bytes, os.PathLike)):
            return False  # an already-open fd
        p = os.path.realpath(os.fsdecode(path))
        return not (p + os.sep).startswith(allowed[0]) and p != allowed[1]

    def hook(event, args):
        if event in net:
            refuse("network", f"{event} {args[1] if len(args) > 1 else ''}")
        elif event in proc:
            refuse("process", f"{event} {args[0] if args else ''}"[:200])
        elif event == "open" and len(args) >= 3:
            mode, flags = args[1], args[2]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (mode is None and isinstance(flags, int) and flags & write_flags)
            if writing and outside(args[0]):
                refuse("filesystem", f"write to {args[0]}")
        elif event in paths and args and outside(args[0]):
            refuse("filesystem", f"{event} {args[0]}")
        elif event == "os.kill" and args and args[0] not in (0, me):
            refuse("signal", f"kill {args[0]}")

    sys.addaudithook(hook)


# Processes and threads of the sandbox's uid, the worker's included. Effective because the sandbox's processes are
# never host root (RLIMIT_NPROC does not apply to root): a fork bomb stops here instead of at the deadline.
NPROC = 128


def mapped_bytes():
    """The address space this process has mapped now (VmSize), or 0 where /proc can't tell."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def apply_limits(job):
    """rlimits for this child only. The address-space budget is what the block may add to what the child inherited:
    a CUDA build of torch maps over 3 GiB of libraries before any block runs (Debian's CPU torch 0.6 GiB), and a
    limit counted from zero would leave a block of the same size less room on one build than on another. RLIMIT_AS
    is skipped on CUDA, whose driver reserves huge virtual ranges."""
    cpu = math.ceil(job["timeoutMs"] / 1000) + 1
    limits = [(resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_FSIZE, (64 << 20, 64 << 20)),
              (resource.RLIMIT_NOFILE, (256, 256)), (resource.RLIMIT_NPROC, (NPROC, NPROC)), (resource.RLIMIT_CORE, (0, 0))]
    if job["device"] != "cuda":
        budget = mapped_bytes() + job["memoryBytes"]
        limits.append((resource.RLIMIT_AS, (budget, budget)))
    for what, value in limits:
        try:
            resource.setrlimit(what, value)
        except (ValueError, OSError):
            pass  # cannot raise a hard limit above the worker's; keep the inherited one


def enter_child(job, res_w, out_w, err_w):
    """The child's first steps after fork: its own process group, no job stream, its stdout/stderr on the
    worker's capture pipes, no fd but `res_w` above 2 (fd 3 is the worker's result channel to TypeScript), and
    a fresh work folder as cwd, HOME and TMPDIR."""
    os.setsid()  # own process group, so the worker can kill it and whatever it spawned in one call
    restore_child_signals()  # the worker, pid 1, catches no signal; the block gets Python's usual SIGINT
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the block must not read the worker's job stream
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.closerange(3, res_w)
    os.closerange(res_w + 1, 1 << 16)
    os.makedirs(job["work"], exist_ok=True)
    os.chdir(job["work"])
    # Caches a library asks for at run time (torch hub, matplotlib, Hugging Face) go into the work folder too: the
    # only place the audit hook lets a block write, and wiped after it.
    # `~/.config` exists too: libraries pick a config folder with `os.access(~/.config, W_OK)` and fall back to
    # /tmp (yolov5's user_config_dir), which is outside the work folder, when it is absent.
    cache, config = os.path.join(job["work"], ".cache"), os.path.join(job["work"], ".config")
    os.makedirs(cache, exist_ok=True)
    os.makedirs(config, exist_ok=True)
    os.environ.update(TMPDIR=job["work"], HOME=job["work"], XDG_CACHE_HOME=cache, XDG_CONFIG_HOME=config,
                      TORCH_HOME=os.path.join(cache, "torch"),
                      HF_HOME=os.path.join(cache, "huggingface"), MPLCONFIGDIR=os.path.join(cache, "matplotlib"),
                      TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "torchinductor"),
                      TRITON_CACHE_DIR=os.path.join(cache, "triton"))
    tempfile.tempdir = job["work"]
    sys.dont_write_bytecode = True


def not_dumpable():
    """PR_SET_DUMPABLE 0: /proc/<this pid>/ (fd/, mem, environ...) becomes unreadable to every other process of the
    sandbox, which all run as the same uid. A block can't open the worker's fd 3 through /proc/<worker>/fd/3."""
    PR_SET_DUMPABLE = 4
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def identity():
    """Who this process is, as the kernel says: uid, gid, effective capabilities, no_new_privs, seccomp mode.
    The TypeScript side refuses to run blocks in a sandbox that did not drop privileges, and publishes this."""
    fields = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields[key] = value.split()
    except OSError:
        pass
    first = lambda key, default: (fields.get(key) or [default])[0]
    return {"uid": os.getuid(), "gid": os.getgid(), "capEff": first("CapEff", "unknown"),
            "noNewPrivs": first("NoNewPrivs", "0") == "1", "seccomp": first("Seccomp", "0") == "2"}


def others():
    """Pids in this pid namespace other than the worker (its init, pid 1) and this process."""
    me = os.getpid()
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in (1, me)]


def reap():
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def sweep(sandboxed, patience=10.0):
    """Kills every process of the sandbox's pid namespace but the worker, until none is left: detached
    grandchildren, and zombies too (a thread group whose leader exited still runs its other threads, and shows as a
    zombie). The worker is the namespace's init (pid 1, bwrap --as-pid-1): every orphan is its child, and it reaps
    them all. Returns (how many outlived the block, whether none is left). Only inside the sandbox: without a pid
    namespace, /proc lists the host's processes."""
    if not sandboxed or os.getpid() > 2:  # not in a pid namespace of its own: /proc may list the host's
        return 0, True
    reap()
    seen, deadline = set(), time.monotonic() + patience
    while True:
        left = others()
        if not left:
            return len(seen), True
        if time.monotonic() > deadline:
            return len(seen), False
        for pid in left:
            seen.add(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)
        reap()  # every orphan of the block is ours: we are init


def wipe(root):
    """Removes everything under `root` (a private tmpfs: /tmp, /dev/shm), whatever modes a block left on it:
    every entry belongs to the sandbox's uid, which may chmod it back."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        path = os.path.join(root, name)
        try:
            st = os.lstat(path)
            if stat.S_ISDIR(st.st_mode):
                os.chmod(path, 0o700)
                wipe(path)
                os.rmdir(path)
            else:
                os.unlink(path)
        except OSError:
            pass
