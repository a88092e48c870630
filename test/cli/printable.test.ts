// printable(): the one function the CLI passes upstream text through before a terminal or CI log shows it, and
// guardedIO(): the backstop on every line the CLI writes. See test/cli/hostile-output.test.ts for the commands.
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../pipeline/cli/io.ts';
import { guardedIO } from '../../pipeline/cli/io.ts';
import { printable, printableLines } from '../../pipeline/cli/printable.ts';

describe('printable', () => {
  it('escapes C0, DEL, C1, line/paragraph separators and bidi controls, readably', () => {
    expect(printable('a\rb\nc\td\0e\x1b[2Jf\x7fg\u009bh\u2028i\u2029j\u202ek')).toBe(
      'a\\rb\\nc\\td\\x00e\\x1b[2Jf\\x7fg\\x9bh\\u2028i\\u2029j\\u202ek',
    );
  });

  it('never lets upstream text start a line with `::`', () => {
    expect(printable('::error::x')).toBe('\\x3a:error::x');
    expect(printable('  ::warning::x')).toBe('  \\x3a:warning::x');
    expect(printable('a ::b')).toBe('a ::b'); // not at a line start: GitHub reads nothing there
  });

  it('keeps ordinary text, Unicode included, as it is', () => {
    expect(printable('résumé 模型 — ok: 3/4 (x)')).toBe('résumé 模型 — ok: 3/4 (x)');
    expect(printable(42)).toBe('42');
  });
});

describe('guardedIO', () => {
  it('neutralises `::` at the start of any line it writes, after \\n or a bare \\r', () => {
    let err = '';
    const io: CliIO = { out: () => {}, err: (t) => void (err += t), isTTY: false, ci: true, json: false };
    guardedIO(io).err('::error::a\nok ::b\r  ::warning::c\r\n::notice::d');
    expect(err).toBe('\\x3a:error::a\nok ::b\r  \\x3a:warning::c\r\n\\x3a:notice::d');
  });
});

describe('printableLines', () => {
  it('keeps the line breaks of our own multi-line text and makes each line printable', () => {
    expect(printableLines('config has 2 problems:\n  a\r::error::x\n::b')).toBe(
      'config has 2 problems:\n  a\\r::error::x\n\\x3a:b',
    );
  });
});
