// A worker as the host's kernel sees it: its host pid (it lives in the sandbox's pid namespace) and whether it is
// stopped. A block can stop its worker with SIGSTOP through libc (same uid, below the audit hook); the worker can't
// report that itself, and without this the backstop would wait out the whole budget. See docs/validate.md, "Budgets".
import { readdirSync, readFileSync } from 'node:fs';

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] the state, [1] the ppid. */
function statFields(pid: number): string[] | null {
  const text = read(`/proc/${pid}/stat`);
  return text === null ? null : text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/**
 * The host pid of the process that is `innerPid` in its own pid namespace (the last NSpid entry) and descends from
 * `root` (the process we started: bubblewrap, or the runner itself without a sandbox); null when /proc can't tell
 * (hidepid, no NSpid). Found once per worker, after it said it is ready.
 */
export function hostPid(root: number, innerPid: number): number | null {
  const children = new Map<number, number[]>();
  let pids: number[];
  try {
    pids = readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return null;
  }
  for (const pid of pids) {
    const ppid = Number(statFields(pid)?.[1]);
    if (Number.isInteger(ppid)) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const queue = [root];
  for (let k = 0; k < queue.length && k < 10_000; k++) {
    const pid = queue[k];
    const ns = /^NSpid:\s*(.*)$/m
      .exec(read(`/proc/${pid}/status`) ?? '')?.[1]
      .trim()
      .split(/\s+/);
    if (ns && Number(ns[ns.length - 1]) === innerPid) return pid;
    queue.push(...(children.get(pid) ?? []));
  }
  return null;
}

/** Whether `pid` is stopped (`T`) or stopped by a tracer (`t`), as /proc/<pid>/stat says; false when it is gone. */
export function isStopped(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state === 'T' || state === 't';
}
