// PEP 3131 names as Python sees them: which file/folder names can be a module part, and the NFKC form names bind.
import { describe, expect, it } from 'vitest';
import { isIdentifier, moduleNameProblem, pyName } from '../../pipeline/util/identifier.ts';

describe('module name parts', () => {
  const cases: [string, string | null, string][] = [
    ['resnet', null, 'an ASCII identifier'],
    ['ünï_cödé', null, 'PEP 3131: Unicode letters are identifiers'],
    ['match', null, 'a soft keyword is a fine module name'],
    ['_private', null, 'a leading underscore'],
    ['a\nb', 'contains a control character (U+000A)', 'a newline can never be imported'],
    ['tab\there', 'contains a control character (U+0009)', 'nor a tab'],
    ['del\u007f', 'contains a control character (U+007F)', 'nor DEL'],
    ['line\u2028sep', 'contains a control character (U+2028)', 'nor a Unicode line separator'],
    ['my-mod', "is not a Python identifier ('-')", '`import my-mod` is a syntax error'],
    ['2d', 'starts with a digit', '`import 2d` is a syntax error'],
    ['x.y', "contains '.', which Python reads as a package separator", '`x.y` is module y of package x'],
    ['ﬁx', "is not in NFKC form: Python would look for 'fix'", 'the import statement is normalised, the file is not'],
    ['a b', 'is not a Python identifier (" ")', 'a space'],
    ['', 'is empty', '`.py` alone'],
  ];
  for (const [part, problem, why] of cases) {
    it(`${JSON.stringify(part)}: ${why}`, () => expect(moduleNameProblem(part)).toBe(problem));
  }
});

describe('names in source', () => {
  it('NFKC for non-ASCII names, the text itself otherwise', () => {
    expect(pyName('Ｂlock')).toBe('Block');
    expect(pyName('ﬁx')).toBe('fix');
    expect(pyName('u\u0308ber')).toBe('über'); // decomposed (NFD) text binds the composed name
    expect(pyName('plain_name')).toBe('plain_name');
  });

  it('identifiers as str.isidentifier() decides', () => {
    expect(['Blöck', '_', 'x·y', 'ℌ'].every(isIdentifier)).toBe(true);
    expect(['1x', 'a-b', 'a b', ''].some(isIdentifier)).toBe(false);
  });
});
