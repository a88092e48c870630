# Containment inside the forked child, in front of the kernel sandbox (bubblewrap, owned by the TypeScript side):
# the child's own fds, process group and work folder, rlimits, the audit hook that turns escape attempts into
# recorded violations, the finder that refuses the block's upstream packages, and the sweep of stray processes.
import errno, importlib.abc, math, os, resource, signal, sys, tempfile


class Blocker(importlib.abc.MetaPathFinder):
    """Refuses the block's own upstream packages, so an assembled block cannot lean on the original repository."""

    def __init__(self, blocked):
        self.blocked = set(blocked)

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named '{name}' (blocked: the block must not import its upstream package)", name=name)
        return None

    def install(self):
        """Forgets blocked modules already imported (the worker's own imports) and goes first on the meta path."""
        for name in [n for n in sys.modules if n.split(".")[0] in self.blocked]:
            del sys.modules[name]
        sys.meta_path.insert(0, self)

    def remove(self):
        sys.meta_path.remove(self)


class Violation(PermissionError):
    """Raised by the audit hook; a PermissionError so upstream `except OSError` paths behave as under a real denial."""


VIOLATIONS = []  # (kind, detail) in this child; read when the record is composed, so a swallowed exception still counts


def install_audit_hook(work, send):
    """Python-level tripwire: network, processes, writes outside `work`, signals to other processes."""
    allowed = (os.path.realpath(work) + os.sep, "/dev/null")
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
    # Not socket.bind: libraries probe for IPv6 at import by binding ('::1', 0) (urllib3 does), which is harmless
    # in the sandbox's empty network namespace; reaching out is what counts.
    net = {"socket.connect", "socket.sendto", "socket.sendmsg"}
    proc = {"subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn", "os.fork", "os.forkpty"}
    paths = {"os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod", "os.chown", "os.truncate", "os.symlink", "os.link"}
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


def apply_limits(job):
    """rlimits for this child only. RLIMIT_AS is skipped on CUDA, whose driver reserves huge virtual ranges."""
    cpu = int(math.ceil(job["timeoutMs"] / 1000)) + 1
    limits = [(resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_FSIZE, (64 << 20, 64 << 20)),
              (resource.RLIMIT_NOFILE, (256, 256)), (resource.RLIMIT_NPROC, (512, 512)), (resource.RLIMIT_CORE, (0, 0))]
    if job["device"] != "cuda":
        limits.append((resource.RLIMIT_AS, (job["memoryBytes"], job["memoryBytes"])))
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
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the block must not read the worker's job stream
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.closerange(3, res_w)
    os.closerange(res_w + 1, 1 << 16)
    os.makedirs(job["work"], exist_ok=True)
    os.chdir(job["work"])
    os.environ.update(TMPDIR=job["work"], HOME=job["work"])
    tempfile.tempdir = job["work"]
    sys.dont_write_bytecode = True


def sweep(sandboxed):
    """Kills every live process in the sandbox's pid namespace except init and the worker: detached grandchildren.

    Only inside the sandbox: without a pid namespace, /proc lists the host's processes."""
    if not sandboxed or os.getpid() > 2:
        return 0
    killed = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, os.getpid()):
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
            os.kill(int(name), signal.SIGKILL)
            killed += 1
        except (OSError, IndexError):
            pass
    return killed
