// Bad input is data, never a crash: undecodable bytes, coding lines, NUL bytes, empty files, syntax errors,
// names that collide with Object.prototype, multi-megabyte generated modules, nesting deeper than the walker goes.
import { describe, expect, it } from 'vitest';
import { decodePython } from '../../pipeline/parse/decode.ts';
import { parseModule, parseText } from '../../pipeline/parse/parse-module.ts';

const codes = (ds: { code: string }[]) => ds.map((d) => d.code);

describe('decoding', () => {
  it('UTF-8 with a BOM: BOM stripped, spans count from after it', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('X = 1\n')]);
    const facts = parseModule(bytes);
    expect(facts.encoding).toBe('utf-8');
    expect(facts.diagnostics).toEqual([]);
    expect(facts.statements[0].span.startByte).toBe(0);
  });

  it('invalid UTF-8 without a coding line falls back to latin-1 and says so', () => {
    const d = decodePython(Buffer.from([...Buffer.from("s = '"), 0xe9, ...Buffer.from("'\n")]));
    expect(d.text).toBe("s = 'é'\n");
    expect(d.encoding).toBe('latin-1');
    expect(codes(d.diagnostics)).toEqual(['decode-latin1-fallback']);
  });

  it('a PEP 263 latin-1 coding line is honoured silently', () => {
    const d = decodePython(
      Buffer.from([...Buffer.from("# -*- coding: latin-1 -*-\ns = '"), 0xe9, ...Buffer.from("'\n")]),
    );
    expect(d.text.endsWith("s = 'é'\n")).toBe(true);
    expect(d.encoding).toBe('latin-1');
    expect(d.diagnostics).toEqual([]);
  });

  it('cp1252 on the second line, after a shebang', () => {
    const d = decodePython(
      Buffer.from([
        ...Buffer.from("#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ns = '"),
        0x80,
        ...Buffer.from("'\n"),
      ]),
    );
    expect(d.text.endsWith("s = '€'\n")).toBe(true);
    expect(d.encoding).toBe('cp1252');
  });

  it('a coding line on line 2 after code does not count', () => {
    const d = decodePython(
      Buffer.from([...Buffer.from("x = 1\n# coding: latin-1\ns = '"), 0xe9, ...Buffer.from("'\n")]),
    );
    expect(codes(d.diagnostics)).toEqual(['decode-latin1-fallback']);
  });

  it('an unknown coding name is a diagnostic, and UTF-8 is tried', () => {
    const d = decodePython(Buffer.from('# coding: klingon-8\nx = 1\n'));
    expect(d.encoding).toBe('utf-8');
    expect(codes(d.diagnostics)).toEqual(['unknown-encoding']);
  });

  it('NUL bytes become spaces with a warning; the rest is still parsed', () => {
    const facts = parseModule(Buffer.from('X = 1\0\0\nclass A(nn.Module):\n    def forward(self, x): return x\n'));
    expect(codes(facts.diagnostics)).toContain('nul-bytes');
    expect(facts.classes.map((c) => c.name)).toEqual(['A']);
    expect(facts.statements[1].span.startByte).toBe(8); // byte positions unchanged by the replacement
  });
});

describe('degenerate and broken files', () => {
  it('an empty file', () => {
    const facts = parseModule(Buffer.alloc(0));
    expect(facts).toMatchObject({
      lineCount: 0,
      statements: [],
      imports: [],
      classes: [],
      functions: [],
      all: null,
      diagnostics: [],
    });
  });

  it('only comments and blank lines', () => {
    const facts = parseText('# just a comment\n\n   \n# another\n');
    expect(facts.statements).toEqual([]);
    expect(facts.lineCount).toBe(4);
  });

  it('a syntax error is a diagnostic with a span; the rest of the file is kept', () => {
    const src =
      'import torch\ndef broken(:\n    pass\nclass Good(nn.Module):\n    def forward(self, x):\n        return x\n';
    const facts = parseText(src);
    const errs = facts.diagnostics.filter((d) => d.code === 'syntax-error');
    expect(errs.length).toBeGreaterThan(0);
    expect(errs[0].span!.startLine).toBe(2);
    expect(errs[0].severity).toBe('error');
    const good = facts.classes.find((c) => c.name === 'Good')!;
    expect(good.bases[0].dotted).toBe('nn.Module');
    expect(good.methods.map((m) => m.name)).toEqual(['forward']);
    const goodStmt = facts.statements[good.statementIndex];
    expect(goodStmt.hasError).toBe(false);
    expect(facts.statements[0].hasError).toBe(false);
    expect(facts.statements.some((s) => s.hasError)).toBe(true);
  });

  it('an unterminated bracket at the end', () => {
    const facts = parseText('X = [1, 2\n');
    expect(codes(facts.diagnostics)).toContain('syntax-error');
  });

  it('Python 2 source parses without throwing', () => {
    const facts = parseText('print "hello"\nexec code in ns\nraise E, "msg"\ndef f((a, b)): return a\n');
    expect(facts.statements.length).toBeGreaterThan(0);
  });

  it('CRLF line endings and tabs', () => {
    const facts = parseText('class A(B):\r\n\tdef forward(self, x):\r\n\t\treturn F(x)\r\n');
    expect(facts.classes[0].methods[0].name).toBe('forward');
    expect(facts.statements[0].deferred.map((r) => r.name)).toEqual(['F']);
    expect(facts.statements[0].span.endLine).toBe(3);
  });

  it('classes named like Object.prototype members', () => {
    const src =
      'class __proto__: pass\nclass constructor(__proto__): pass\nclass hasOwnProperty(constructor):\n    toString = 1\n    def valueOf(self): return __proto__\n';
    const facts = parseText(src);
    expect(facts.classes.map((c) => c.name)).toEqual(['__proto__', 'constructor', 'hasOwnProperty']);
    expect(facts.statements.map((s) => s.binds)).toEqual([['__proto__'], ['constructor'], ['hasOwnProperty']]);
    expect(facts.statements[1].eager.map((r) => r.name)).toEqual(['__proto__']);
    expect(facts.statements[2].deferred.map((r) => r.name)).toEqual(['__proto__']);
    expect(facts.classes[2].attributes).toEqual(['toString']);
    expect(JSON.parse(JSON.stringify(facts))).toEqual(facts);
  });

  it('a 2 MB generated module', () => {
    const parts: string[] = ['import torch\nfrom torch import nn\n'];
    let i = 0;
    for (let size = 0; size < 2_000_000; i++) {
      const block = `class Block${i}(nn.Module):\n    """Generated block ${i}."""\n\n    def __init__(self, c={${i}: 'x'}):\n        super().__init__()\n        self.conv = nn.Conv2d(${i}, 3, 3)\n\n    def forward(self, x):\n        return self.conv(x) + helper_${i}(x)\n\n\n`;
      parts.push(block);
      size += block.length;
    }
    const src = parts.join('');
    const facts = parseModule(Buffer.from(src));
    expect(facts.diagnostics).toEqual([]);
    expect(facts.classes).toHaveLength(i);
    expect(facts.statements).toHaveLength(i + 2);
    expect(facts.statements[i + 1].deferred.map((r) => r.name).sort()).toEqual([`helper_${i - 1}`, 'nn', 'super']);
  });

  it('50,000 nested lambdas: a nesting-too-deep diagnostic for that statement, the rest of the file is read', () => {
    const deep = `X = ${'lambda: '.repeat(50_000)}1\n`;
    const src = `import torch\n${deep}class After(nn.Module):\n    def forward(self, x):\n        return helper(x)\n`;
    const facts = parseText(src);
    expect(codes(facts.diagnostics)).toEqual(['nesting-too-deep']);
    expect(facts.diagnostics[0]).toMatchObject({ severity: 'error', span: { startLine: 2, endLine: 2 } });
    // The deep statement binds and reads nothing and is never copied; the statements around it are intact.
    expect(facts.statements[1]).toMatchObject({ binds: [], eager: [], deferred: [], hasError: true });
    expect(facts.statements[2].binds).toEqual(['After']);
    expect(facts.statements[2].deferred.map((r) => r.name)).toEqual(['helper']);
    expect(facts.classes.map((c) => c.name)).toEqual(['After']);
  });

  it('nesting CPython accepts (200 brackets, 400 lambdas) is read in full', () => {
    const facts = parseText(`X = ${'f('.repeat(200)}lambda: Y${')'.repeat(200)}\nZ = ${'lambda: '.repeat(400)}W\n`);
    expect(facts.diagnostics).toEqual([]);
    expect(facts.statements[0].deferred.map((r) => r.name)).toEqual(['Y']);
    expect(facts.statements[1].deferred.map((r) => r.name)).toEqual(['W']);
  });

  it('a very long expression does not overflow the stack', () => {
    const src = `X = ${Array.from({ length: 30000 }, (_, k) => `a${k % 7}`).join(' + ')}\n`;
    const facts = parseText(src);
    expect(facts.statements[0].eager.map((r) => r.name).sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
  });
});
