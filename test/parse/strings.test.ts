// Where a string literal ends, the one rule every text scanner of the parse stage uses (strings.ts), and the
// scanners agreeing on a string left open at the end of its line.
import { describe, expect, it } from 'vitest';
import { attrReads } from '../../pipeline/parse/attr-reads.ts';
import { splitList } from '../../pipeline/parse/call-args.ts';
import { logicalLines } from '../../pipeline/parse/call-context.ts';
import { scanExpression, type ScannedRead } from '../../pipeline/parse/scan-expr.ts';
import { closedStringEnd, isStringPrefix, skipString } from '../../pipeline/parse/strings.ts';

/** The first quote of `text` (after any prefix). */
const quoteAt = (text: string) => text.search(/['"]/);

describe('where a string literal ends', () => {
  // [text, what follows the string, why]
  const closed: [string, string, string][] = [
    [`'abc' + x`, ' + x', 'a plain one-line string'],
    [`"it's" + x`, ' + x', 'the other quote is text'],
    [String.raw`'it\'s' + x`, ' + x', 'an escaped quote does not close it'],
    [String.raw`'a\\' + x`, ' + x', 'an escaped backslash does not escape the quote after it'],
    [`'' + x`, ' + x', 'two quotes and a space: an empty string, not a triple quote'],
    [`'''a\n'b'\n''' + x`, ' + x', 'a triple-quoted string spans lines and holds single quotes'],
    [`'''a''b''' + x`, ' + x', 'two quotes inside do not close a triple-quoted string'],
    [`"""a""" + x`, ' + x', 'triple double quotes'],
    [
      String.raw`r'\'' + x`,
      ' + x',
      "a raw string's backslash still keeps the quote from ending it: r'\\'' is one string",
    ],
    [`b"\\x00" + x`, ' + x', 'a bytes string, escape and all'],
    [`f'{x}' + x`, ' + x', 'an f-string ends where its quote does'],
    [`'a\\\nb' + x`, ' + x', 'a backslash before a line feed continues a one-line string'],
    [`'a\\\r\nb' + x`, ' + x', 'and before CRLF, both characters'],
    [`f'{d['k']}' + x`, `k']}' + x`, "Python 3.12's nested quotes are not followed: the string ends at the inner one"],
  ];
  it.each(closed)('%j ends before %j: %s', (text, rest) => {
    const end = text.length - rest.length;
    expect(skipString(text, quoteAt(text), text.length)).toBe(end);
    expect(closedStringEnd(text, quoteAt(text), text.length)).toBe(end);
  });

  // [text, where skipString stops (what follows), why]
  const open: [string, string, string][] = [
    [`'abc\nx = 1`, '\nx = 1', 'a one-line string left open stops at the end of its line'],
    [`"abc\r\nx = 1`, '\nx = 1', 'at the line feed of a CRLF'],
    [`x = 'abc`, '', 'at the end of the text when that comes first'],
    [`'''abc\nx = 1`, '', 'a triple-quoted one runs to the end'],
    [`'abc\\`, '', 'a backslash as the last character escapes nothing'],
  ];
  it.each(open)('%j left open stops before %j: %s', (text, rest) => {
    expect(skipString(text, quoteAt(text), text.length)).toBe(text.length - rest.length);
    expect(closedStringEnd(text, quoteAt(text), text.length)).toBe(-1);
  });

  it('looks no further than the end it is given', () => {
    const text = `'abc' + x`;
    expect(skipString(text, 0, 3)).toBe(3);
    expect(closedStringEnd(text, 0, 3)).toBe(-1);
  });
});

describe('string prefixes', () => {
  const prefix = (text: string) => isStringPrefix(text, 0, quoteAt(text) < 0 ? text.indexOf(' ') : quoteAt(text));
  it.each([`r'x'`, `b"x"`, `f'x'`, `u'x'`, `F'x'`, `rb'x'`, `Rb'x'`, `BR"x"`, `fr'x'`, `rF"x"`])('%s', (text) =>
    expect(prefix(text)).toBe(true),
  );
  // Three letters are no prefix; neither is a name or a keyword before a quote, nor prefix letters before no quote.
  it.each([`rbf'x'`, `x'a'`, `if'a'`, `rb x`])('not %s', (text) => expect(prefix(text)).toBe(false));
});

describe('the scanners agree on a string left open at the end of its line', () => {
  // Broken upstream code (a syntax error) must not make one scanner read the next line as string and another as
  // code: each reads on from the line feed, or gives up.
  const text = `x = 'open\ny = f(z).norm\n`;

  it('attribute reads read the next line', () => {
    expect(attrReads(text, [[0, text.length]]).reads.names).toEqual(['norm']);
  });

  it('logical lines split there', () => {
    const lines = [...logicalLines(text)];
    expect([text.slice(lines[0], lines[1]), text.slice(lines[2], lines[3])]).toEqual([`x = 'open`, 'y = f(z).norm']);
  });

  it('argument lists split after it', () => {
    const args = `a, 'open\n, b`;
    expect(splitList(args, 0, args.length).map(([s, e]) => args.slice(s, e))).toEqual(['a', `'open`, 'b']);
  });

  it('the expression scan gives up and leaves it to the tree', () => {
    const expr = `f('open\n, x)`;
    const out: ScannedRead[] = [];
    expect(scanExpression(expr, 0, expr.length, out)).toBe(false);
  });
});
