// Upstream text made safe for a terminal or a CI log. A syntax error's snippet, a file name, a URL from a checkout's
// config or a requirement's spec is upstream's: a bare `\r` then `::error file=...::` is a GitHub workflow command
// (the runner reads each line — `\r` ends one — that starts with `::`), and an escape sequence rewrites the
// terminal. Every string of upstream origin goes through `printable` before the CLI prints it (tables, diagnostics,
// log and progress lines, errors); `guardedIO` (io.ts) is the backstop on everything the CLI writes. JSON output is left
// as JSON (`--json`: a machine reads it, and no JSON line can start with `::`).
import type { Diagnostic } from '../contract/diagnostics.ts';

// C0 controls (CR, LF, ESC, BEL, NUL...), DEL and C1 controls (U+009B is CSI on terminals that take 8-bit
// controls), the line and paragraph separators, and the bidirectional controls that make a terminal show text in
// another order than it reads (`Trojan Source`).
const CONTROL = /[\p{Cc}\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escape(c: string): string {
  const code = c.charCodeAt(0);
  return NAMED[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`);
}

/**
 * `value` as one line of text with no control character: each is written as an escape (`\r`, `\x1b`, `\u2028`),
 * readable and inert; and text starting with `::` (after spaces) starts with `\x3a:` instead, so that it starts no
 * workflow command wherever it is printed. Everything else, Unicode included, is kept as it is.
 */
export function printable(value: unknown): string {
  return neutralise(String(value).replace(CONTROL, escape));
}

/** Multi-line text of ours that may quote upstream (a config error's list, a stack): each line printable. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

/** `::` at the start of the text, or of a line in it: the first `:` written as `\x3a`. */
export function neutralise(text: string): string {
  return text.replace(/(^|[\r\n])([ \t]*)::/g, '$1$2\\x3a:');
}

/** One diagnostic for humans: `severity code [source] path:line: message`, then its hint; upstream parts escaped. */
export function diagnosticText(d: Diagnostic): string {
  const where = [d.source ? `[${printable(d.source)}]` : '', d.path ? printable(d.path) : ''].filter(Boolean);
  const line = d.path && d.span ? `:${d.span.startLine}` : '';
  const head = `${d.severity} ${printable(d.code)}${where.length ? ` ${where.join(' ')}${line}` : ''}`;
  return `${head}: ${printable(d.message)}${d.hint ? `\n  hint: ${printable(d.hint)}` : ''}\n`;
}
