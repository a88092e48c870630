# What the kernel saw of one block, read by the worker from outside the block's process. A block can turn the audit
# hook off in its own process (its closure is reachable through `gc`), or go below it through libc (ctypes), but it
# can't reset these (docs/validate.md, "What a hostile block can and cannot do"):
#   network     the IP counters of the sandbox's own network namespace (/proc/net/snmp, snmp6): packets sent, and
#               sends that found no route. The hook refuses a Python-level attempt before the kernel sees it, and
#               nothing else in a sandbox sends anything: any count is an attempt the hook did not stop.
#   filesystem  entries of the private /tmp and /dev/shm outside the block's own folder: the kernel lets the sandbox
#               write there, the hook does not let a block. (A write the kernel refused, read-only `/usr`, leaves
#               nothing to see: it is contained, not recorded.)
#   process     minor page faults of the processes the block's child waited for (cminflt of the child, read while
#               it is a zombie): any process that ran and was reaped leaves some; threads don't (theirs are the
#               child's own). Processes still alive after the block are the sweep's (containment.sweep).
# (What a block changes of the worker itself, its limits and scheduling, and SysV IPC objects it leaves are
# pid1.leftovers'.) And, at the block's deadline, whether a timeout was the machine's doing (`load`): CPU time and run-queue wait of
# the block's tasks, from /proc/<pid>/stat and schedstat.
import os, stat

NET = (("/proc/net/snmp", ("Ip:OutRequests", "Ip:OutNoRoutes")), ("/proc/net/snmp6", ("Ip6OutRequests", "Ip6OutNoRoutes")))
ROOTS = ("/tmp", "/dev/shm")
MAX_ENTRIES = 2000  # of a listing: a block that leaves more outside its folder is caught at the first ones
SHOWN = 3  # paths named in a violation's detail
# A timeout is the machine's when the block's tasks waited for a CPU longer than they ran, and for at least this
# share of the budget, without having lowered their own priority.
LOADED_WAIT_SHARE = 0.25
TICK = os.sysconf("SC_CLK_TCK")


class Seen:
    """What the kernel showed before the block ran; `after` compares it with what it shows now. The network counters
    and the listing only inside the sandbox: without it (--no-sandbox) they are the host's, which other processes
    change."""

    def __init__(self, work, sandboxed):
        self.work, self.sandboxed = os.path.realpath(work), sandboxed
        self.sent = net_sends() if sandboxed else None
        self.entries = listing(self.work) if sandboxed else {}

    def after(self, faults):
        """Violations (kind, detail) the audit hook did not record: what changed since, and `faults` (the page faults
        of processes the child waited for)."""
        out = []
        sent = net_sends()
        if self.sent is not None and sent is not None and sent > self.sent:
            out.append(("network", (f"the kernel counted {sent - self.sent} packet(s) sent or unroutable from the "
                                    "sandbox's network namespace, an attempt the audit hook did not refuse")))
        now = listing(self.work) if self.sandboxed else {}
        changed = sorted(p for p in set(now) | set(self.entries) if now.get(p) != self.entries.get(p))
        if changed:
            shown = ", ".join(changed[:SHOWN]) + (f" and {len(changed) - SHOWN} more" if len(changed) > SHOWN else "")
            out.append(("filesystem", f"the block wrote outside its folder ({shown}), a write the audit hook did not refuse"))
        if faults:
            out.append(("process", ("the block started and waited for process(es) the audit hook did not refuse (the "
                                    f"kernel counted {faults} page fault(s) of them)")))
        return out


def net_sends():
    """Packets sent plus sends without a route, IPv4 and IPv6, in this network namespace; None where unreadable."""
    total, found = 0, False
    for path, names in NET:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        values = {}
        if path.endswith("snmp6"):  # one "Name value" a line
            values = {p[0]: p[1] for p in (line.split() for line in lines) if len(p) == 2}
        else:  # pairs of lines: "Ip: Forwarding ...", "Ip: 2 ..."
            for head, row in zip(lines[0::2], lines[1::2]):
                keys, vals = head.split(), row.split()
                values.update({keys[0] + k: v for k, v in zip(keys[1:], vals[1:])})
        for name in names:
            if name in values:
                total, found = total + int(values[name]), True
    return total if found else None


def listing(work):
    """{path: (kind, size, mtime)} of entries under ROOTS, at most MAX_ENTRIES: files by size and time, folders by
    their existence (a folder's time changes with its entries, which show themselves). Left out: the block's folder
    `work` with everything below it, the folders above it (the child makes them when a wipe removed them), and
    what another file system holds: the read-only binds of sources and interpreters that live under the host's
    /tmp, whose files the build itself may change meanwhile (the index's SQLite journal in a source's folder)."""
    out = {}
    for root in ROOTS:
        try:
            device = os.stat(root).st_dev
        except OSError:
            continue
        stack = [root]
        while stack and len(out) < MAX_ENTRIES:
            top = stack.pop()
            try:
                names = os.listdir(top)
            except OSError:
                continue
            for name in names:
                path = os.path.join(top, name)
                if path == work or len(out) >= MAX_ENTRIES:
                    continue
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if st.st_dev != device:
                    continue  # a read-only bind below the tmpfs (a source under the host's /tmp): not the block's to write
                if stat.S_ISDIR(st.st_mode):
                    stack.append(path)
                    if not work.startswith(path + os.sep):
                        out[path] = ("dir",)
                else:
                    out[path] = ("file", st.st_size, st.st_mtime_ns)
    return out


def stat_fields(pid, task=None):
    """The fields of /proc/<pid>[/task/<task>]/stat after the command name, or None: [0] is the state (field 3)."""
    path = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


def waited_faults(pid):
    """Minor page faults of the processes `pid` (a zombie not yet reaped) waited for (field 11, cminflt)."""
    fields = stat_fields(pid)
    return int(fields[8]) if fields and len(fields) > 8 else 0


def load(pids, elapsed_s, budget_s):
    """(loaded, detail) for a block whose processes `pids` reached their deadline after `elapsed_s`: whether the
    machine, not the block, took its time. The block's CPU time (its processes', their threads' and reaped
    children's) against its tasks' run-queue wait: waiting longer than running, for a quarter of the budget, means
    others had the CPU. A block that lowered its own priority (nice above 0, or a policy other than the normal one)
    chose to wait: its timeout is its own, so a block can't make its timeout uncacheable by starving itself."""
    cpu = wait = 0.0
    lowered = False
    for pid in pids:
        fields = stat_fields(pid)
        if not fields or len(fields) < 17:
            continue
        cpu += sum(int(fields[k]) for k in (11, 12, 13, 14)) / TICK  # utime stime cutime cstime
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            tasks = []
        for tid in tasks:
            t = stat_fields(pid, tid)
            if t and len(t) > 38 and (int(t[16]) > 0 or int(t[38]) != 0):  # nice, policy
                lowered = True
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    wait += int(f.read().split()[1]) / 1e9
            except (OSError, ValueError, IndexError):
                pass
    loaded = not lowered and wait > cpu and wait >= LOADED_WAIT_SHARE * budget_s
    detail = f"it ran {cpu:.1f} s and waited {wait:.1f} s for a CPU in {elapsed_s:.1f} s"
    return loaded, detail
