// The sandbox's syscall filter: a classic-BPF seccomp program handed to bubblewrap (`--seccomp FD`), which installs
// it right before it executes the runner. Small on purpose: everything is allowed except the calls that reach
// other processes' memory or descriptors (ptrace, process_vm_*, pidfd_getfd, kcmp), change mounts, keyrings, load
// kernel code or open kernel attack surface (bpf, userfaultfd, perf_event_open, io_uring). Dropped capabilities
// already refuse most of these; the filter also refuses them where a capability is not checked at all (ptrace and
// process_vm_readv between processes of the same uid, pidfd_getfd, keyctl on the user's own keyring, userfaultfd).
// See docs/validate.md ("Sandbox").

/** x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
const X86_64_DENIED: Record<string, number> = {
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

const AUDIT_ARCH_X86_64 = 0xc000003e;
/** x32 system calls carry this bit; the table above does not cover them, so they are refused as a whole. */
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
/** Offsets in struct seccomp_data. */
const NR = 0;
const ARCH = 4;

/** The syscalls the filter refuses with EPERM, by name (for docs and tests). */
export const DENIED_SYSCALLS = Object.keys(X86_64_DENIED).sort();

/** Whether this machine gets the filter: only x86-64 has its table here; elsewhere the sandbox runs without it. */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch === 'x64';
}

/**
 * The filter as the bytes bubblewrap reads from its `--seccomp` fd: an array of `struct sock_filter` (u16 code,
 * u8 jt, u8 jf, u32 k, little-endian). A system call of another ABI (i386 through `int 0x80`) kills the process:
 * its numbers mean other calls, so no table here would be right for it.
 */
export function seccompProgram(): Buffer {
  const denied = Object.values(X86_64_DENIED);
  const insns: [number, number, number, number][] = [];
  insns.push([LD_W_ABS, 0, 0, ARCH]);
  insns.push([JEQ_K, 1, 0, AUDIT_ARCH_X86_64]);
  insns.push([RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS]);
  insns.push([LD_W_ABS, 0, 0, NR]);
  // Each test jumps forward to the final "refuse" instruction; after the last test comes "allow".
  const tests = 1 + denied.length;
  insns.push([JGE_K, tests - 0, 0, X32_SYSCALL_BIT]);
  denied.forEach((nr, i) => insns.push([JEQ_K, tests - 1 - i, 0, nr]));
  insns.push([RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  insns.push([RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  const buf = Buffer.alloc(insns.length * 8);
  insns.forEach(([code, jt, jf, k], i) => {
    buf.writeUInt16LE(code, i * 8);
    buf.writeUInt8(jt, i * 8 + 2);
    buf.writeUInt8(jf, i * 8 + 3);
    buf.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return buf;
}
