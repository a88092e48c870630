# The worker as its sandbox's pid 1 (bubblewrap --as-pid-1: there is no bubblewrap init a block could take over).
# As its pid namespace's init it reaps every orphan of a block (containment.sweep), and the kernel drops every signal
# a process of the sandbox sends it, unless it catches that signal: so it catches none. After every block it checks
# that nothing of the block persists in the sandbox besides files (wiped) and processes (swept): the worker's own
# limits and scheduling, which every later block inherits, and SysV IPC objects, which outlive their maker. The
# seccomp filter (x86-64) already refuses both (pipeline/sandbox/seccomp.ts); this check holds where it doesn't, and
# a sandbox that kept anything of a block retires. See docs/validate.md ("Sandbox").
import os, resource, signal


def catch_no_signal():
    """Puts every signal Python catches back to its default (SIGINT: KeyboardInterrupt; none other by default):
    a signal with a handler reaches pid 1 from inside its namespace, and would interrupt the worker."""
    for sig in signal.valid_signals():
        try:
            if callable(signal.getsignal(sig)):
                signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError, TypeError):
            pass


def restore_child_signals():
    """In a block's child: Python's usual SIGINT (KeyboardInterrupt), as upstream code would run anywhere else."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def worker_state():
    """What a block must not be able to change about the worker: its rlimits (the baseline every block's own limits
    are set from, and can't be raised past), nice value, scheduling policy and priority, and CPU affinity."""
    limits = {}
    for name in sorted(n for n in dir(resource) if n.startswith("RLIMIT_")):
        try:
            limits[name] = resource.getrlimit(getattr(resource, name))
        except (OSError, ValueError):
            pass
    return {"rlimits": limits, "nice": os.getpriority(os.PRIO_PROCESS, 0), "scheduler": os.sched_getscheduler(0),
            "priority": os.sched_getparam(0).sched_priority, "affinity": sorted(os.sched_getaffinity(0))}


def sysv_objects():
    """SysV shared memory segments, message queues and semaphore sets in this IPC namespace (the sandbox's own)."""
    count = 0
    for kind in ("shm", "msg", "sem"):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                count += max(0, len(f.read().splitlines()) - 1)  # a header line, then one line per object
        except OSError:
            pass
    return count


def leftovers(baseline):
    """Violations for what the block left in the sandbox (none normally): the sandbox must retire before the next."""
    out = []
    changed = [k for k, v in worker_state().items() if baseline.get(k) != v]
    if changed:
        out.append(f"process: the block changed the worker's {', '.join(changed)}")
    ipc = sysv_objects()
    if ipc:
        out.append(f"ipc: {ipc} SysV IPC object(s) outlived the block")
    return out
