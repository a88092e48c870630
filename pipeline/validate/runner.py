# nnblocks validate runner: imports torch once, then forks one contained child per block to parse, compile,
# import, build, run forward and backward, and reports one JSON record per block on a dedicated pipe.
#
# Protocol with the TypeScript side (pipeline/validate/worker.ts):
#   stdin  -> worker: JSON lines. The first is the hello {nonce, device, workRoot, sandboxed}; then one job a line.
#   fd 3   <- worker: JSON lines {"nonce": N, "type": "ready" | "result", ...}. Only fd 3 is parsed, and only lines
#            carrying the nonce. The worker's own stdout/stderr are for humans; a block's stdout/stderr go to
#            per-block pipes, are truncated and are never parsed.
# Per block the worker forks a child (milliseconds, against ~1-2 s for `import torch`). The child talks to the
# worker on its own fresh pipe: {"t": "begin"|"stage"|"violation"|"final", ...}; the worker composes the record,
# so a child that dies mid-way still yields the stages it finished and the one it died in.
# The TypeScript side owns the sandbox (bubblewrap) and a wall-clock backstop; this file adds the per-block
# deadline, rlimits, the blocked-package finder and an audit hook that turns escapes into `sandbox-violation`.
import ast, errno, importlib, importlib.abc, importlib.util, json, math, os, resource, select, shutil, signal, sys, tempfile, time, traceback

import torch

TAIL = 4000  # characters kept of a block's stdout/stderr and of an error message


def trim(text, keep=TAIL):
    text = str(text)
    return text if len(text) <= keep else f"...[{len(text) - keep} chars omitted]\n" + text[-keep:]


class Tail:
    """Keeps the last TAIL bytes of a stream plus a count, so a flood of output costs no memory."""

    def __init__(self):
        self.buf, self.total = bytearray(), 0

    def add(self, chunk):
        self.total += len(chunk)
        self.buf += chunk
        if len(self.buf) > 2 * TAIL:
            del self.buf[: len(self.buf) - TAIL]

    def text(self):
        body = self.buf[-TAIL:].decode("utf-8", "replace")
        return body if self.total <= TAIL else f"...[{self.total - TAIL} bytes omitted]\n" + body


# ---------------------------------------------------------------- containment inside the child

class Blocker(importlib.abc.MetaPathFinder):
    """Refuses the block's own upstream packages, so an assembled block cannot lean on the original repository."""

    def __init__(self, blocked):
        self.blocked = set(blocked)

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.blocked:
            raise ModuleNotFoundError(f"No module named '{name}' (blocked: the block must not import its upstream package)", name=name)
        return None


class Violation(PermissionError):
    """Raised by the audit hook; a PermissionError so upstream `except OSError` paths behave as under a real denial."""


VIOLATIONS = []  # (kind, detail); read when the record is composed, so a swallowed exception still counts


def install_audit_hook(work, send):
    """Python-level tripwire in front of the kernel sandbox: network, processes, writes outside `work`, signals."""
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


# ---------------------------------------------------------------- failure classes

NATIVE = ("undefined symbol", ".so:", "cannot open shared object", "torch.ops", "no such operator", "cpp_extension",
          "_C.", "could not run '", "not compiled with cuda", "cuda extension",
          "custom c++ ops")  # torchvision: "Couldn't load custom C++ ops"
MEMORY = ("out of memory", "can't allocate memory", "std::bad_alloc", "cannot allocate memory")
DEFAULT_CLASS = {"parse": "syntax", "compile": "compile", "import": "compile", "build": "needs-arguments",
                 "forward": "forward-error", "backward": "backward-error"}


def classify(exc, stage):
    """(failureClass, detail) for an exception raised in `stage`; detail names the missing module or name."""
    msg = str(exc).lower()
    if isinstance(exc, Violation) or VIOLATIONS:
        kind, detail = VIOLATIONS[0] if VIOLATIONS else ("sandbox", str(exc))
        return "sandbox-violation", f"{kind}: {detail}"
    if isinstance(exc, MemoryError) or any(m in msg for m in MEMORY):
        return "memory", None
    if isinstance(exc, ModuleNotFoundError):
        return "missing-module", exc.name
    if isinstance(exc, ImportError) and not any(m in msg for m in NATIVE):
        if "cannot import name" in msg:  # from mod import X, where mod exists but X does not
            text = str(exc)
            return "unresolved-name", text.split("'")[1] if "'" in text else exc.name
        return "missing-module", exc.name
    if isinstance(exc, NameError):
        return "unresolved-name", getattr(exc, "name", None) or str(exc)
    if any(m in msg for m in NATIVE):
        return "native-extension", None
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ECONNREFUSED, errno.ENETUNREACH):
        return "sandbox-violation", str(exc)
    if isinstance(exc, SyntaxError) and stage != "compile":
        return "syntax", None
    if isinstance(exc, AttributeError) and stage == "import":
        return "unresolved-name", getattr(exc, "name", None)
    return DEFAULT_CLASS[stage], None


def error_text(exc):
    return trim("".join(traceback.format_exception_only(type(exc), exc)).strip(), 1500)


# ---------------------------------------------------------------- inference (infer.py, next to this file)

def load_infer():
    """infer.py by path: `python -I` keeps this folder off sys.path, and a block must not be able to import it."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "infer.py")
    mod_spec = importlib.util.spec_from_file_location("_nnblocks_infer", path)
    mod = importlib.util.module_from_spec(mod_spec)
    mod_spec.loader.exec_module(mod)
    return mod


infer = load_infer()


# ---------------------------------------------------------------- the replay protocol (README: validate)

def make_inputs(specs, seed, device):
    """Inputs exactly as the README's replay protocol: one CPU generator seeded once, drawn in order; a spec with
    `list: n` draws n tensors of its shape in turn and passes them as one list argument."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for s in specs:
        dtype = getattr(torch, s["dtype"])
        draw = (lambda: torch.randn(s["shape"], generator=g, dtype=dtype).to(device)) if dtype.is_floating_point else (
            lambda: torch.randint(0, s.get("high", 2), s["shape"], generator=g, dtype=dtype).to(device))
        out.append([draw() for _ in range(s["list"])] if "list" in s else draw())
    return out


def build(cls, kwargs, seed, device, refs=()):
    """The replay protocol's build; names in `refs` are dotted names resolved first (relative to `cls`'s module
    when they start with a dot, so fidelity resolves them in the original package)."""
    kwargs = infer.resolve_refs(kwargs, refs, cls)
    torch.manual_seed(seed)
    return cls(**kwargs).to(device).eval()


def tensors(value, out=None, depth=0):
    """Tensors of an output in order: tuples, lists, dicts (insertion order) and attribute containers."""
    out = [] if out is None else out
    if depth > 5:
        return out
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            tensors(v, out, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            tensors(v, out, depth + 1)
    return out


def checksum(t):
    """Σ|x| in float64 (a plain sum cancels to noise after normalisation layers); non-finite values as strings."""
    v = float(t.detach().double().abs().sum()) if t.numel() else 0.0
    return v if math.isfinite(v) else str(v)


def module_tree(m, budget):
    budget[0] -= 1
    mod = type(m).__module__
    name = ("torch.nn." if mod.startswith("torch.nn.modules") else mod + ".") + type(m).__qualname__
    node = {"type": name, "params": {k: list(p.shape) for k, p in m.named_parameters(recurse=False)}, "children": {}}
    for k, child in m.named_children():
        if budget[0] <= 0:
            node["truncated"] = True
            break
        node["children"][k] = module_tree(child, budget)
    return node


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------- stages, inside the forked child

class Failed(Exception):
    def __init__(self, cls, detail):
        super().__init__(cls)
        self.cls, self.detail = cls, detail


class Fatal(Exception):
    """Memory exhaustion or a refused escape: trying more candidates would only repeat it."""


class Stages:
    """Stage records, each sent as it begins and ends, so a child that dies mid-way still leaves a trail."""

    def __init__(self, send):
        self.send, self.items = send, []

    def begin(self, name):
        self.send({"t": "begin", "stage": name})

    def end(self, name, ms, exc=None):
        rec = {"stage": name, "status": "failed" if exc is not None else "passed", "ms": round(ms, 3)}
        if exc is not None:
            rec["error"] = error_text(exc)
        self.items.append(rec)
        self.send({"t": "stage", **rec})
        if exc is not None:
            raise Failed(*classify(exc, name))

    def run(self, name, fn):
        self.begin(name)
        t0 = time.perf_counter()
        try:
            value = fn()
        except BaseException as exc:  # SystemExit from upstream code is a failure like any other
            self.end(name, (time.perf_counter() - t0) * 1000, exc)
        self.end(name, (time.perf_counter() - t0) * 1000)
        return value


def forward(m, specs, seed, device):
    with torch.no_grad():
        out = tensors(m(*make_inputs(specs, seed, device)))
    if not out:
        raise TypeError("forward returned no tensor")
    return [t.detach().cpu() for t in out]


MAX_ATTEMPTS = 40  # forward attempts per block, over all build candidates


def search(cls, overrides, seed, device, st):
    """Build candidates x input candidates in order; the first pair whose forward runs is the recipe.

    Every attempt is a fresh build followed by one forward, exactly the replay protocol, so the successful attempt
    *is* the recorded run. Times are summed over attempts; the first error of each stage is kept (the first
    candidate is the likeliest one)."""
    spent, first, fatal = {"build": 0.0, "forward": 0.0}, {"build": None, "forward": None}, None
    attempts = 0

    def attempt(name, fn):
        st.begin(name)
        t0 = time.perf_counter()
        try:
            return True, fn()
        except BaseException as exc:
            first[name] = first[name] or exc
            if isinstance(exc, Violation) or classify(exc, name)[0] == "memory":
                raise Fatal(name, exc)
            return False, None
        finally:
            spent[name] += (time.perf_counter() - t0) * 1000

    built_any = False
    try:
        for kwargs, refs in infer.build_candidates(cls, overrides):
            if attempts > MAX_ATTEMPTS:  # bounded: a block that fails every probe should not eat its whole timeout
                break
            ok, m = attempt("build", lambda: build(cls, kwargs, seed, device, refs))
            if not ok:
                continue
            built_any = True
            ok, cands = attempt("forward", lambda: infer.input_candidates(m, overrides, kwargs))
            for n, specs in enumerate(cands or []):
                attempts += 1
                if attempts > MAX_ATTEMPTS:
                    break
                if n > 0:  # fresh module: a failed forward may have changed it (lazy layers, caches)
                    ok, m = attempt("build", lambda: build(cls, kwargs, seed, device, refs))
                    if not ok:
                        break
                ok, out = attempt("forward", lambda: forward(m, specs, seed, device))
                if ok:
                    st.end("build", spent["build"])
                    st.end("forward", spent["forward"])
                    return m, kwargs, refs, specs, out
    except Fatal as f:
        fatal = f.args
    if fatal and fatal[0] == "build" or not built_any:
        st.end("build", spent["build"], fatal[1] if fatal else first["build"] or TypeError("no constructor arguments could be inferred"))
    st.end("build", spent["build"])
    st.end("forward", spent["forward"], fatal[1] if fatal else first["forward"] or RuntimeError("no input candidate was tried"))


def backward(m, specs, seed, device):
    """Training-mode forward, sum of floating outputs, backward; counts parameters with and without a gradient."""
    m.train()
    inputs = make_inputs(specs, seed, device)
    for x in tensors(inputs):
        if x.is_floating_point():
            x.requires_grad_(True)  # so parameter-free blocks still back-propagate to their input
    outs = [t for t in tensors(m(*inputs)) if t.is_floating_point() and t.requires_grad]
    params = [p for p in m.parameters() if p.requires_grad]
    if not outs:
        if params:
            raise RuntimeError("no floating output depends on the parameters")
        return {"withGrad": 0, "without": 0}
    sum(t.float().sum() for t in outs).backward()
    with_grad = [p for p in params if p.grad is not None]
    bad = sum(1 for p in with_grad if not bool(torch.isfinite(p.grad).all()))
    if bad:
        raise FloatingPointError(f"{bad} parameters got non-finite gradients")
    return {"withGrad": len(with_grad), "without": len(params) - len(with_grad)}


def fidelity(orig, m, kwargs, refs, specs, out, seed, device):
    """Replays the same recipe on the original class and compares counts, state-dict keys/shapes and outputs."""
    try:
        if orig.get("importRoot"):
            sys.path.insert(0, orig["importRoot"])
        ocls = getattr(importlib.import_module(orig["module"]), orig["className"])
    except BaseException as exc:
        return {"status": "n/a", "reason": "original does not import: " + error_text(exc)}
    try:
        om = build(ocls, kwargs, seed, device, refs)
        oout = forward(om, specs, seed, device)
    except BaseException as exc:
        return {"status": "differs", "reason": "original fails on the recipe: " + error_text(exc)}
    reasons, shapes = [], lambda mod: {k: list(v.shape) for k, v in mod.state_dict().items()}
    if sum(p.numel() for p in om.parameters()) != sum(p.numel() for p in m.parameters()):
        reasons.append("parameter count")
    if shapes(om) != shapes(m):
        reasons.append("state-dict keys or shapes")
    same = len(oout) == len(out) and all(
        a.shape == b.shape and a.dtype == b.dtype and (torch.allclose(a, b, atol=1e-6, equal_nan=True) if a.is_floating_point() else torch.equal(a, b))
        for a, b in zip(out, oout))
    if not same:
        reasons.append("outputs (allclose, atol 1e-6)")
    return {"status": "differs", "reason": ", ".join(reasons)} if reasons else {"status": "identical"}


def run_block(job, send):
    st, device, seed, overrides = Stages(send), job["device"], job["seed"], job.get("overrides") or {}
    rec = {"recipe": None, "outputs": [], "params": None, "buffers": None, "gradients": None, "moduleTree": None,
           "fidelity": {"status": "n/a", "reason": "block did not pass"}}
    base_rss = rss_bytes()
    status, cls, detail = "passed", None, None
    try:
        rel = job["module"].replace(".", "/")
        cands = (os.path.join(job["importRoot"], rel + ".py"), os.path.join(job["importRoot"], rel, "__init__.py"))
        path = next((p for p in cands if os.path.isfile(p)), None)
        if path is None:
            st.end("parse", 0, ModuleNotFoundError(f"no file for module {job['module']} under {job['importRoot']}", name=job["module"]))
        source = open(path, "rb").read()
        tree = st.run("parse", lambda: ast.parse(source, path))
        st.run("compile", lambda: compile(tree, path, "exec"))
        blocker = Blocker(job.get("blocked") or [])
        for name in [n for n in sys.modules if n.split(".")[0] in blocker.blocked]:
            del sys.modules[name]
        sys.meta_path.insert(0, blocker)
        sys.path.insert(0, job["importRoot"])
        block_cls = st.run("import", lambda: getattr(importlib.import_module(job["module"]), job["className"]))
        m, kwargs, refs, specs, out = search(block_cls, overrides, seed, device, st)
        rec["recipe"] = {"seed": seed, "kwargs": kwargs, **({"refs": refs} if refs else {}), "inputs": specs}
        rec["outputs"] = [{"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "checksum": checksum(t)} for t in out]
        rec["params"] = sum(p.numel() for p in m.parameters())
        rec["buffers"] = sum(b.numel() for b in m.buffers())
        rec["moduleTree"] = module_tree(m, [2000])
        rec["gradients"] = st.run("backward", lambda: backward(m, specs, seed, device))
        if job.get("original"):
            sys.meta_path.remove(blocker)  # the original runs with its own package importable
            rec["fidelity"] = fidelity(job["original"], m, kwargs, refs, specs, out, seed, device)
        else:
            rec["fidelity"] = {"status": "n/a", "reason": "no importable original given"}
    except Failed as f:
        status, cls, detail = "failed", f.cls, f.detail
    if VIOLATIONS and cls != "sandbox-violation":  # an escape attempt fails the block even if it went on to pass
        status, cls, detail = "failed", "sandbox-violation", "%s: %s" % VIOLATIONS[0]
    if device == "cuda":
        rec["peakMemoryBytes"] = torch.cuda.max_memory_allocated()
    else:  # ru_maxrss includes the torch pages inherited from the worker; report what the block added
        rec["peakMemoryBytes"] = max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base_rss)
    send({"t": "final", "status": status, "failureClass": cls, "failureDetail": detail, "stages": st.items, **rec})


# ---------------------------------------------------------------- the worker: fork, supervise, compose, report

def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def sanitize(value):
    """JSON for JavaScript: non-finite floats become strings (JSON.parse rejects NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    return value


def child(job, res_w, out_w, err_w):
    """Runs in the forked child; never returns."""
    try:
        os.setsid()  # own process group, so the worker can kill it and whatever it spawned in one call
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # the block must not read the worker's job stream
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.closerange(3, res_w)  # fd 3 is the worker's result channel to TypeScript: out of the block's reach
        os.closerange(res_w + 1, 1 << 16)
        os.makedirs(job["work"], exist_ok=True)
        os.chdir(job["work"])
        os.environ.update(TMPDIR=job["work"], HOME=job["work"])
        tempfile.tempdir = job["work"]
        sys.dont_write_bytecode = True
        send = lambda obj: write_all(res_w, (json.dumps(obj, default=str) + "\n").encode())
        apply_limits(job)
        install_audit_hook(job["work"], send)
        run_block(job, send)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)


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


def supervise(job, sandboxed):
    """Forks the child, reads its three pipes until it exits or the deadline passes, and composes the record."""
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        for fd in (res_r, out_r, err_r):
            os.close(fd)
        child(job, res_w, out_w, err_w)
    for fd in (res_w, out_w, err_w):
        os.close(fd)
    start = time.monotonic()
    deadline = start + job["timeoutMs"] / 1000
    tails, pending, events = {out_r: Tail(), err_r: Tail()}, bytearray(), []
    open_fds, status, killed, exited_at = [res_r, out_r, err_r], None, False, None
    while True:
        if status is None:
            wpid, wstatus = os.waitpid(pid, os.WNOHANG)
            if wpid:
                status, exited_at = wstatus, time.monotonic()
        if status is None and time.monotonic() >= deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            killed, exited_at = True, time.monotonic()
        if status is None and killed:
            status = os.waitpid(pid, 0)[1]
        if exited_at is not None and (not open_fds or time.monotonic() - exited_at > 0.5):
            break  # a grandchild holding a pipe open must not keep the worker here
        if not open_fds:
            time.sleep(0.002)
            continue
        wait = 0.02 if exited_at is not None else max(0.0, min(0.05, deadline - time.monotonic()))
        ready = select.select(open_fds, [], [], wait)[0]
        if not ready and exited_at is not None:
            break
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.remove(fd)
            elif fd in tails:
                tails[fd].add(chunk)
            elif len(pending) < (32 << 20):
                pending += chunk
                *lines, rest = pending.split(b"\n")
                pending = bytearray(rest)
                now = (time.monotonic() - start) * 1000
                for line in lines:
                    try:
                        events.append((now, json.loads(line)))
                    except ValueError:
                        pass
    for fd in (res_r, out_r, err_r):
        os.close(fd)
    try:
        os.killpg(pid, signal.SIGKILL)  # anything the block left in its own group
    except (ProcessLookupError, PermissionError):
        pass
    strays = sweep(sandboxed)
    shutil.rmtree(job["work"], ignore_errors=True)
    return compose(job, events, status, killed, tails[out_r], tails[err_r], strays, (time.monotonic() - start) * 1000)


def compose(job, events, status, killed, out, err, strays, elapsed):
    """The block's record from the child's messages; when the child died without a final message, from how it died."""
    final = next((e for _, e in events if e.get("t") == "final"), None)
    violations = [f"{e.get('kind')}: {e.get('detail')}" for _, e in events if e.get("t") == "violation"]
    if strays:
        violations.append(f"process: {strays} process(es) outlived the block")
    if final is not None and not killed:
        rec = {k: v for k, v in final.items() if k != "t"}
    else:
        stages, running, began = [], None, 0.0
        for at, e in events:
            if e.get("t") == "begin":
                running, began = e.get("stage"), at
            elif e.get("t") == "stage":
                stages = [s for s in stages if s["stage"] != e["stage"]] + [{k: v for k, v in e.items() if k != "t"}]
                running = None if e.get("stage") == running else running
        how = f"exited with code {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else ""
        cls, detail = "crashed", None
        if killed:
            cls, how = "timeout", f"killed after the {job['timeoutMs']} ms wall-clock limit"
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            how = f"killed by {signal.Signals(sig).name}" if sig in signal.valid_signals() else f"killed by signal {sig}"
            if sig == signal.SIGXCPU:
                cls = "timeout"
            elif sig == signal.SIGKILL:
                cls = "memory"  # not ours: the kernel's OOM killer (the CPU hard limit is preceded by SIGXCPU)
            detail = how
        if any(m in err.text().lower() for m in MEMORY + ("memoryerror",)):
            cls = "memory"
        stage = running or "parse"
        stages = [s for s in stages if s["stage"] != stage]
        stages.append({"stage": stage, "status": "failed", "ms": round(elapsed - began, 3), "error": f"{how} during {stage} without reporting a result"})
        rec = {"status": "failed", "failureClass": cls, "failureDetail": detail or f"{how} during {stage}", "stages": stages,
               "recipe": None, "outputs": [], "params": None, "buffers": None, "gradients": None, "peakMemoryBytes": None,
               "moduleTree": None, "fidelity": {"status": "n/a", "reason": "block did not pass"}}
    if violations and rec["failureClass"] != "sandbox-violation":
        rec.update(status="failed", failureClass="sandbox-violation", failureDetail=violations[0])
    rec.update(stdoutTail=out.text(), stderrTail=err.text())
    return rec


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


def main():
    # One intra-op thread, set before any fork: one worker per core already, and an OpenMP pool started in the
    # worker would not survive fork() into the children.
    torch.set_num_threads(1)
    hello = json.loads(sys.stdin.readline())
    nonce, sandboxed = hello["nonce"], bool(hello.get("sandboxed"))
    emit = lambda obj: write_all(3, (json.dumps(sanitize({"nonce": nonce, **obj})) + "\n").encode())
    device, gpu, error = probe_device(hello.get("device", "auto"))
    emit({"type": "ready", "torchVersion": torch.__version__, "device": device, "gpuName": gpu, "error": error,
          "python": sys.version.split()[0]})
    os.makedirs(hello["workRoot"], exist_ok=True)
    count = 0
    while line := sys.stdin.readline():
        job = json.loads(line)
        count += 1
        job.update(device=device, work=os.path.join(hello["workRoot"], f"b{os.getpid()}-{count}"))
        rec = supervise(job, sandboxed)
        rec.update(device=device, gpuName=gpu, torchVersion=torch.__version__)
        emit({"type": "result", "id": job["id"], "record": rec})


if __name__ == "__main__":
    main()
