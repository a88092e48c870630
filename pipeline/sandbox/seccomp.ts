// The sandbox's syscall filter: a classic-BPF seccomp program handed to bubblewrap (`--seccomp FD`), which installs
// it right before it executes the runner. Small on purpose: everything is allowed except
// - the calls that reach other processes' memory or descriptors (ptrace, process_vm_*, pidfd_getfd, kcmp), change
//   mounts, keyrings, load kernel code or open kernel attack surface (bpf, userfaultfd, perf_event_open, io_uring).
//   Dropped capabilities already refuse most of these; the filter also refuses them where a capability is not
//   checked at all (ptrace and process_vm_readv between processes of the same uid, pidfd_getfd, keyctl on the
//   user's own keyring, userfaultfd);
// - SysV IPC (shm*, sem*, msg*) and POSIX message queues (mq_*): their objects live in the sandbox's IPC namespace,
//   not in a process, so they outlive the block that made them (a marker for the next block, or memory held past
//   its limit: a segment nobody maps counts against no rlimit). Nothing torch, Python or the libraries we validate
//   use needs them: torch.multiprocessing and Python's multiprocessing use POSIX shared memory (files in /dev/shm,
//   size-capped and wiped after each block) and fds;
// - changing another process's limits or scheduling: prlimit64, setpriority, sched_set*, ioprio_set, migrate_pages
//   and move_pages are allowed only on the caller itself (pid 0; `who` 0 of PRIO_PROCESS / IOPRIO_WHO_PROCESS).
//   Every process of the sandbox has the same uid, so the kernel lets a block lower the worker's limits or priority,
//   which every later block of that worker would inherit. A filter can't know the caller's pid, so naming itself by
//   its own pid is refused too; glibc's setrlimit, nice and sched_setscheduler(0) pass 0. Reading another process's
//   limits (prlimit64 with no new limit) stays allowed.
// See docs/validate.md ("Sandbox").

/** x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl) of the calls refused whatever their arguments. */
const X86_64_DENIED: Record<string, number> = {
  shmget: 29,
  shmat: 30,
  shmctl: 31,
  semget: 64,
  semop: 65,
  semctl: 66,
  shmdt: 67,
  msgget: 68,
  msgsnd: 69,
  msgrcv: 70,
  msgctl: 71,
  ptrace: 101,
  syslog: 103,
  iopl: 172,
  ioperm: 173,
  acct: 163,
  pivot_root: 155,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  semtimedop: 220,
  mq_open: 240,
  mq_unlink: 241,
  mq_timedsend: 242,
  mq_timedreceive: 243,
  mq_notify: 244,
  mq_getsetattr: 245,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  unshare: 272,
  perf_event_open: 298,
  open_by_handle_at: 304,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  kcmp: 312,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  pidfd_getfd: 438,
  mount_setattr: 442,
};

/** `which` values of setpriority and ioprio_set that name a single process (with `who` 0: the caller). */
const PRIO_PROCESS = 0;
const IOPRIO_WHO_PROCESS = 1;

/**
 * Calls allowed only on the caller: each is allowed when one of its alternatives holds, an alternative being
 * argument values (argument index -> value) that must all match exactly, in all 64 bits; otherwise refused.
 */
const X86_64_SELF_ONLY: Record<string, { nr: number; allowIf: Record<number, number>[] }> = {
  setpriority: { nr: 141, allowIf: [{ 0: PRIO_PROCESS, 1: 0 }] }, // not PRIO_PGRP, nor PRIO_USER: all of the uid
  sched_setparam: { nr: 142, allowIf: [{ 0: 0 }] },
  sched_setscheduler: { nr: 144, allowIf: [{ 0: 0 }] },
  sched_setaffinity: { nr: 203, allowIf: [{ 0: 0 }] },
  ioprio_set: { nr: 251, allowIf: [{ 0: IOPRIO_WHO_PROCESS, 1: 0 }] },
  migrate_pages: { nr: 256, allowIf: [{ 0: 0 }] },
  move_pages: { nr: 279, allowIf: [{ 0: 0 }] },
  prlimit64: { nr: 302, allowIf: [{ 0: 0 }, { 2: 0 }] }, // its own limits, or only reading another's
  sched_setattr: { nr: 314, allowIf: [{ 0: 0 }] },
};

const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 system calls carry this bit; the tables above do not cover them, so they are refused as a whole. */
const X32_SYSCALL_BIT = 0x40000000;
const EPERM = 1;

// BPF opcodes (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
/** Offsets in struct seccomp_data: nr, arch, then the six u64 arguments from offset 16 (little-endian). */
const NR = 0;
const ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;
const argHigh = (i: number) => 20 + 8 * i;

/** The syscalls the filter refuses with EPERM whatever their arguments, by name (for docs and tests). */
export const DENIED_SYSCALLS = Object.keys(X86_64_DENIED).sort();
/** The syscalls the filter allows only on the calling process itself, by name (for docs and tests). */
export const SELF_ONLY_SYSCALLS = Object.keys(X86_64_SELF_ONLY).sort();

/** Whether this machine gets the filter: only x86-64 has its table here; elsewhere the sandbox runs without it. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64';
}

/** One instruction; a jump's targets are label names (resolved by `assemble`) or 0 (the next instruction). */
type Insn = { code: number; jt: string | 0; jf: string | 0; k: number; label?: string };

/**
 * The filter as the bytes bubblewrap reads from its `--seccomp` fd: an array of `struct sock_filter` (u16 code,
 * u8 jt, u8 jf, u32 k, little-endian). A system call of another ABI (i386 through `int 0x80`) kills the process:
 * its numbers mean other calls, so no table here would be right for it.
 *
 * Layout: the arch check; one test per refused call (jump to `refuse`) and per self-only call (jump to its rule);
 * `allow`; `refuse`; then each rule, which tests its alternatives and returns allow or refuse itself.
 */
export function seccompProgram(): Buffer {
  const p: Insn[] = [];
  const op = (code: number, k: number, jt: string | 0 = 0, jf: string | 0 = 0, label?: string) =>
    p.push({ code, jt, jf, k, label });
  op(LD_W_ABS, ARCH);
  op(JEQ_K, AUDIT_ARCH_X86_64, 'nr');
  op(RET_K, SECCOMP_RET_KILL_PROCESS);
  op(LD_W_ABS, NR, 0, 0, 'nr');
  op(JGE_K, X32_SYSCALL_BIT, 'refuse');
  for (const nr of Object.values(X86_64_DENIED)) op(JEQ_K, nr, 'refuse');
  for (const [name, rule] of Object.entries(X86_64_SELF_ONLY)) op(JEQ_K, rule.nr, `rule:${name}`);
  op(RET_K, SECCOMP_RET_ALLOW, 0, 0, 'allow');
  op(RET_K, SECCOMP_RET_ERRNO | EPERM, 0, 0, 'refuse');
  for (const [name, rule] of Object.entries(X86_64_SELF_ONLY)) {
    rule.allowIf.forEach((alt, a) => {
      const next = `rule:${name}:${a + 1}`;
      Object.entries(alt).forEach(([arg, value], c) => {
        op(LD_W_ABS, argLow(Number(arg)), 0, 0, c === 0 ? `rule:${name}${a === 0 ? '' : `:${a}`}` : undefined);
        op(JEQ_K, value, 0, next);
        op(LD_W_ABS, argHigh(Number(arg)));
        op(JEQ_K, 0, 0, next);
      });
      op(RET_K, SECCOMP_RET_ALLOW);
    });
    op(RET_K, SECCOMP_RET_ERRNO | EPERM, 0, 0, `rule:${name}:${rule.allowIf.length}`);
  }
  return assemble(p);
}

/** Resolves labels into forward offsets (classic BPF jumps only forward, by at most 255) and encodes. */
function assemble(p: Insn[]): Buffer {
  const at = new Map<string, number>();
  p.forEach((insn, i) => insn.label && at.set(insn.label, i));
  const offset = (target: string | 0, i: number): number => {
    if (target === 0) return 0;
    const to = at.get(target);
    const off = to === undefined ? -1 : to - i - 1;
    if (off < 0 || off > 255) throw new Error(`seccomp program: no forward jump from ${i} to ${target}`);
    return off;
  };
  const buf = Buffer.alloc(p.length * 8);
  p.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(offset(insn.jt, i), i * 8 + 2);
    buf.writeUInt8(offset(insn.jf, i), i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}
