// The seccomp program's shape (what bubblewrap loads), what it answers to each call, run through a small classic-BPF
// interpreter, and its documentation; what it refuses inside a real sandbox is tried in escape.test.ts and
// walls.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DENIED_SYSCALLS, SELF_ONLY_SYSCALLS, seccompProgram } from '../../pipeline/sandbox/seccomp.ts';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = 0x80000000;
const X86_64 = 0xc000003e;
const I386 = 0x40000003;

/** Runs the program on one call (seccomp_data: nr, arch, six u64 args) the way the kernel does; returns its verdict. */
function verdict(nr: number, args: (number | bigint)[] = [], arch = X86_64): number {
  const prog = seccompProgram();
  const data = Buffer.alloc(64);
  data.writeInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  args.forEach((a, i) => data.writeBigUInt64LE(BigInt.asUintN(64, BigInt(a)), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc < prog.length / 8; pc++) {
    const code = prog.readUInt16LE(pc * 8);
    const jt = prog.readUInt8(pc * 8 + 2);
    const jf = prog.readUInt8(pc * 8 + 3);
    const k = prog.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data.readUInt32LE(k);
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code} at ${pc}`);
  }
  throw new Error('fell off the end');
}

describe('seccomp program', () => {
  it('is whole sock_filter records whose jumps all land inside it', () => {
    const prog = seccompProgram();
    expect(prog.length % 8).toBe(0);
    expect(prog.readUInt32LE(4)).toBe(4); // the first instruction loads seccomp_data.arch
    for (let i = 0; i < prog.length / 8; i++) {
      if ((prog.readUInt16LE(i * 8) & 0x07) !== 0x05) continue; // BPF_JMP
      expect(i + 1 + Math.max(prog.readUInt8(i * 8 + 2), prog.readUInt8(i * 8 + 3))).toBeLessThan(prog.length / 8);
    }
  });

  // [what, nr, args, verdict]: a block may do anything to itself, nothing to another process.
  const CASES: [string, number, (number | bigint)[], number][] = [
    ['read', 0, [0, 0, 0], ALLOW],
    ['ptrace', 101, [16, 1], EPERM],
    ['pidfd_getfd', 438, [3, 3, 0], EPERM],
    ['an x32 call', 0x40000000 + 0, [], EPERM],
    ['shmget: SysV objects outlive the block', 29, [0x4e4e, 1 << 20, 0o1600], EPERM],
    ['msgget', 68, [0x4e4e, 0o1600], EPERM],
    ['semget', 64, [0x4e4e, 1, 0o1600], EPERM],
    ['mq_open: so do POSIX message queues', 240, [0, 0o102, 0o600, 0], EPERM],
    ['prlimit64 on itself (glibc setrlimit)', 302, [0, 9, 0x1000, 0], ALLOW],
    ['prlimit64 reading another', 302, [1, 9, 0, 0x1000], ALLOW],
    ['prlimit64 setting the worker', 302, [1, 9, 0x1000, 0], EPERM],
    ['prlimit64 setting a pid whose low word is 0', 302, [1n << 32n, 9, 0x1000, 0], EPERM],
    ['setrlimit: always its own', 160, [9, 0x1000], ALLOW],
    ['setpriority(PRIO_PROCESS, 0): nice()', 141, [0, 0, 19], ALLOW],
    ['setpriority(PRIO_PROCESS, worker)', 141, [0, 1, 19], EPERM],
    ['setpriority(PRIO_PGRP, 0)', 141, [1, 0, 19], EPERM],
    ['setpriority(PRIO_USER, 0): every process of the uid', 141, [2, 0, 19], EPERM],
    ['sched_setscheduler(0)', 144, [0, 5, 0x1000], ALLOW],
    ['sched_setscheduler(worker, SCHED_IDLE)', 144, [1, 5, 0x1000], EPERM],
    ['sched_setparam(worker)', 142, [1, 0x1000], EPERM],
    ['sched_setattr(worker)', 314, [1, 0x1000, 0], EPERM],
    ['sched_setaffinity(0)', 203, [0, 8, 0x1000], ALLOW],
    ['sched_setaffinity(worker)', 203, [1, 8, 0x1000], EPERM],
    ['ioprio_set(IOPRIO_WHO_PROCESS, 0)', 251, [1, 0, 3 << 13], ALLOW],
    ['ioprio_set(IOPRIO_WHO_PROCESS, worker)', 251, [1, 1, 3 << 13], EPERM],
    ['ioprio_set(IOPRIO_WHO_USER, 0)', 251, [3, 0, 3 << 13], EPERM],
    ['migrate_pages(worker)', 256, [1, 8, 0x1000, 0x2000], EPERM],
    ['move_pages(0)', 279, [0, 1, 0x1000, 0, 0x2000, 0], ALLOW],
    ['getpriority of another: reading', 140, [0, 1], ALLOW],
  ];
  it.each(CASES)('%s', (_what, nr, args, expected) => {
    expect(verdict(nr, args)).toBe(expected);
  });

  it('kills a call of another ABI (i386 numbers mean other calls)', () => {
    expect(verdict(0, [], I386)).toBe(KILL);
  });

  it('refuses what docs/validate.md says it refuses', () => {
    const doc = readFileSync(new URL('../../docs/validate.md', import.meta.url), 'utf8');
    const listed = (tag: string) => new RegExp(`<!-- ${tag} -->(.*?)<!-- /${tag} -->`, 's').exec(doc)?.[1] ?? '';
    expect(listed('denied-syscalls')).toBe(DENIED_SYSCALLS.map((n) => `\`${n}\``).join(', '));
    expect(listed('self-only-syscalls')).toBe(SELF_ONLY_SYSCALLS.map((n) => `\`${n}\``).join(', '));
    for (const call of ['ptrace', 'pidfd_getfd', 'process_vm_readv', 'process_vm_writev', 'mount', 'keyctl', 'bpf'])
      expect(DENIED_SYSCALLS).toContain(call);
  });
});
