// The seccomp program's shape (what bubblewrap loads) and its documentation; what it refuses inside a real
// sandbox is tried in escape.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DENIED_SYSCALLS, seccompProgram } from '../../pipeline/sandbox/seccomp.ts';

describe('seccomp program', () => {
  it('is whole sock_filter records: an arch check, one test per refused call, allow, refuse', () => {
    const prog = seccompProgram();
    expect(prog.length % 8).toBe(0);
    expect(prog.length / 8).toBe(DENIED_SYSCALLS.length + 7);
    // The first instruction loads seccomp_data.arch; the last two return ALLOW and ERRNO(EPERM).
    expect(prog.readUInt32LE(4)).toBe(4);
    expect(prog.readUInt32LE(prog.length - 12)).toBe(0x7fff0000);
    expect(prog.readUInt32LE(prog.length - 4)).toBe(0x00050001);
    // Every jump lands inside the program (BPF_JMP is instruction class 5).
    for (let i = 0; i < prog.length / 8; i++) {
      if ((prog.readUInt16LE(i * 8) & 0x07) !== 0x05) continue;
      const jt = prog.readUInt8(i * 8 + 2);
      const jf = prog.readUInt8(i * 8 + 3);
      expect(i + 1 + Math.max(jt, jf)).toBeLessThan(prog.length / 8);
    }
  });

  it('refuses what docs/validate.md says it refuses', () => {
    const doc = readFileSync(new URL('../../docs/validate.md', import.meta.url), 'utf8');
    const listed = /<!-- denied-syscalls -->(.*?)<!-- \/denied-syscalls -->/s.exec(doc)?.[1] ?? '';
    expect(listed).toBe(DENIED_SYSCALLS.map((n) => `\`${n}\``).join(', '));
    for (const call of [
      'ptrace',
      'pidfd_getfd',
      'process_vm_readv',
      'process_vm_writev',
      'mount',
      'keyctl',
      'bpf',
      'userfaultfd',
    ])
      expect(DENIED_SYSCALLS).toContain(call);
  });
});
