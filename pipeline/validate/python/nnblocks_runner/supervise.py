# The worker's side of one block: fork a contained child, read its three pipes until it exits or its deadline
# passes, kill what it left behind, and compose the block's record from the child's messages, or from how it died,
# adding what the kernel saw that the child's audit hook did not record (witness.py).
#
# The child talks to the worker on its own fresh pipe: {"t": "begin"|"stage"|"violation"|"final", ...}. Its stdout
# and stderr go to two more pipes, of which only a capped tail is kept and never parsed. The block's budget is the
# job's `timeoutMs`: the deadline here, in the worker, which no code of the block runs in.
import json, os, select, shutil, signal, sys, time, traceback

from . import witness
from .classify import MEMORY_TEXT
from .containment import apply_limits, enter_child, install_audit_hook, others, sweep, wipe
from .pid1 import leftovers
from .protocol import Tail, json_line, trim, write_all
from .stages import run_block


def child(job, res_w, out_w, err_w):
    """Runs in the forked child; never returns."""
    try:
        enter_child(job, res_w, out_w, err_w)
        send = lambda obj: write_all(res_w, json_line(obj))
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


def fork(patience=5.0):
    """os.fork, waiting out EAGAIN: the last block's processes count against RLIMIT_NPROC until init reaps them."""
    deadline = time.monotonic() + patience
    while True:
        try:
            return os.fork()
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def supervise(job, sandboxed, stdin, started, baseline=None):
    """Forks the child, tells TypeScript it `started` (with the child's pid, its process group), reads the job's seal (its token) from `stdin`, reads the
    child's pipes until it exits or the deadline passes, and kills everything the block left. Returns
    (record, token, clean, cache): token None when stdin ended; clean False when a process of the block survived, or
    the block changed the worker (`baseline`, pid1.worker_state) or left SysV IPC objects; cache False for a record
    that must not be cached (a timeout the machine caused, witness.load)."""
    seen = witness.Seen(job["work"], sandboxed)  # before the fork: the child's first act may be an escape
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = fork()
    if pid == 0:
        for fd in (res_r, out_r, err_r):
            os.close(fd)
        child(job, res_w, out_w, err_w)
    for fd in (res_w, out_w, err_w):
        os.close(fd)
    started(pid)
    seal = stdin.line()
    token = json.loads(seal).get("token") if seal else None
    if token is None:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        return None, None, False, False
    start = time.monotonic()
    deadline = start + job["timeoutMs"] / 1000
    tails, pending, events = {out_r: Tail(), err_r: Tail()}, bytearray(), []
    open_fds, status, killed, exited_at, faults, load = [res_r, out_r, err_r], None, False, None, 0, None
    while True:
        if status is None and ended(pid, wait=False):
            faults, status, exited_at = witness.waited_faults(pid), reap(pid), time.monotonic()
        if status is None and time.monotonic() >= deadline:
            # Before the kill: whether the block's time was taken by the machine (then its timeout is not cached).
            pids = sorted({pid, *(others() if sandboxed else ())})
            load = witness.load(pids, time.monotonic() - start, job["timeoutMs"] / 1000)
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            killed = True
            ended(pid, wait=True)
            faults, status, exited_at = witness.waited_faults(pid), reap(pid), time.monotonic()
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
    strays, clean = sweep(sandboxed)
    kept = leftovers(baseline) if sandboxed and baseline is not None else []
    clean = clean and not kept
    kernel = seen.after(faults)  # before the wipe: a file left outside the block's folder is still there
    if sandboxed:  # a fresh private /tmp and /dev/shm for the next block: nothing of this one persists
        wipe("/tmp")
        wipe("/dev/shm")
    else:
        shutil.rmtree(job["work"], ignore_errors=True)
    rec, cache = compose(job, events, status, killed, tails[out_r], tails[err_r], strays,
                         (time.monotonic() - start) * 1000, kernel, load, kept)
    return rec, token, clean, cache


def reap(pid):
    """The child's wait status, reaping it (0 if something else already had: it can't be told then)."""
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def ended(pid, wait):
    """Whether the child has exited, without reaping it (WNOWAIT): its zombie's /proc/<pid>/stat still tells what
    it waited for (witness.waited_faults). `wait`: block until it has."""
    flags = os.WEXITED | os.WNOWAIT | (0 if wait else os.WNOHANG)
    try:
        return os.waitid(os.P_PID, pid, flags) is not None
    except ChildProcessError:
        return True


def death(job, status, killed, err):
    """(class, how) for a child that left no final message: the deadline, a signal, or an exit."""
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
    if any(m in err.text().lower() for m in MEMORY_TEXT + ("memoryerror",)):
        cls = "memory"
    return cls, how, detail


def compose(job, events, status, killed, out, err, strays, elapsed, kernel=(), load=None, kept=()):
    """(record, cache): the block's record from the child's messages, or, when the child died without a final
    message, from how it died; with the violations its audit hook recorded, then the processes that outlived it,
    then what the kernel saw that the hook did not record (`kernel`, witness.Seen.after), then what the block left in
    the sandbox besides processes (`kept`, pid1.leftovers). `cache` is False for a timeout on a loaded machine
    (`load`, witness.load): the machine's doing, so the next run tries again."""
    final = next((e for _, e in events if e.get("t") == "final"), None)
    violations = [trim(f"{e.get('kind')}: {e.get('detail')}", 1000) for _, e in events if e.get("t") == "violation"]
    if strays:
        violations.append(f"process: {strays} process(es) outlived the block")
    violations += [trim(f"{kind}: {detail}", 1000) for kind, detail in kernel]
    violations += kept
    loaded = bool(killed and load and load[0])
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
        cls, how, detail = death(job, status, killed, err)
        stage = running or "parse"
        stages = [s for s in stages if s["stage"] != stage]
        note = f" (on a loaded machine: {load[1]}; not cached, the next run tries again)" if loaded else ""
        stages.append({"stage": stage, "status": "failed", "ms": round(elapsed - began, 3), "error": f"{how} during {stage} without reporting a result"})
        rec = {"status": "failed", "failureClass": cls, "failureDetail": (detail or f"{how} during {stage}") + note, "stages": stages,
               "recipe": None, "outputs": [], "params": None, "buffers": None, "gradients": None, "peakMemoryBytes": None,
               "moduleTree": None, "fidelity": {"status": "n/a", "reason": "block did not pass"}}
    if violations and rec["failureClass"] != "sandbox-violation":
        rec.update(status="failed", failureClass="sandbox-violation", failureDetail=violations[0])
    rec.update(stdoutTail=out.text(), stderrTail=err.text())
    return rec, not (loaded and rec["failureClass"] == "timeout")
