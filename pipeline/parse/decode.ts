// Bytes → text for a Python source file, the way CPython reads it: UTF-8 by default, a BOM stripped, a PEP 263
// coding line honoured; anything undecodable falls back to latin-1 with a diagnostic instead of failing.
import { isUtf8 } from 'node:buffer';
import type { Diagnostic } from '../contract/diagnostics.ts';

export interface DecodedPython {
  text: string;
  /** 'utf-8', the normalized PEP 263 name (e.g. 'latin-1', 'cp1252', 'gbk'), or 'latin-1' after a fallback. */
  encoding: string;
  diagnostics: Diagnostic[];
}

// PEP 263: `# -*- coding: latin-1 -*-` or `# vim: set fileencoding=cp1252 :` on line 1 or 2.
const CODING_RE = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;
const BLANK_OR_COMMENT_RE = /^[ \t\f]*(?:#.*)?$/;

/** Python's aliases for the encodings a TextDecoder can't name directly, or names differently. */
const ALIASES = new Map<string, string>([
  ['utf8', 'utf-8'],
  ['u8', 'utf-8'],
  ['utf-8-sig', 'utf-8'],
  ['latin1', 'latin-1'],
  ['latin', 'latin-1'],
  ['l1', 'latin-1'],
  ['iso-8859-1', 'latin-1'],
  ['iso8859-1', 'latin-1'],
  ['8859', 'latin-1'],
  ['cp819', 'latin-1'],
  ['ascii', 'utf-8'], // ASCII is a subset; invalid bytes still fall back below
  ['us-ascii', 'utf-8'],
  ['cp1252', 'windows-1252'],
  ['windows-1252', 'windows-1252'],
]);

function decodeError(code: string, message: string, hint: string): Diagnostic {
  return { code, severity: 'warning', stage: 'parse', message, hint };
}

/** The PEP 263 encoding name declared in the first two lines, lower-cased with '_' as '-', or null. */
export function codingLine(bytes: Buffer): string | null {
  const head = bytes.subarray(0, Math.min(bytes.length, 1024)).toString('latin1');
  const lines = head.split(/\r\n|\r|\n/, 2);
  const first = CODING_RE.exec(lines[0] ?? '');
  if (first) return first[1].toLowerCase().replace(/_/g, '-');
  if (lines.length > 1 && BLANK_OR_COMMENT_RE.test(lines[0])) {
    const second = CODING_RE.exec(lines[1]);
    if (second) return second[1].toLowerCase().replace(/_/g, '-');
  }
  return null;
}

// Node 20's TextDecoder('windows-1252') decodes as ISO-8859-1; cp1252 differs only in 0x80-0x9F.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

function cp1252(bytes: Buffer): string {
  const text = bytes.toString('latin1');
  return /[\x80-\x9f]/.test(text) ? text.replace(/[\x80-\x9f]/g, (ch) => CP1252_HIGH[ch.charCodeAt(0) - 0x80]) : text;
}

function latin1(bytes: Buffer): string {
  // Buffer's 'latin1' is true ISO-8859-1 (byte n → U+00nn); TextDecoder('latin1') would be windows-1252.
  return bytes.toString('latin1');
}

export function decodePython(input: Buffer | Uint8Array): DecodedPython {
  let bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const diagnostics: Diagnostic[] = [];
  let bom = false;
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    bytes = bytes.subarray(3);
    bom = true;
  }
  const declared = bom ? null : codingLine(bytes);
  const name = declared === null ? 'utf-8' : (ALIASES.get(declared) ?? declared);
  let text: string | null = null;
  let encoding = declared === null ? 'utf-8' : name === 'windows-1252' ? 'cp1252' : name;

  if (name === 'utf-8') {
    if (isUtf8(bytes)) text = bytes.toString('utf8');
  } else if (name === 'latin-1') {
    text = latin1(bytes);
  } else if (name === 'windows-1252') {
    text = cp1252(bytes);
  } else {
    try {
      text = new TextDecoder(name, { fatal: true }).decode(bytes);
    } catch (err) {
      const unknown = err instanceof RangeError;
      diagnostics.push(
        decodeError(
          unknown ? 'unknown-encoding' : 'decode-error',
          unknown
            ? `the coding line names '${declared}', which this runtime can't decode`
            : `the bytes are not valid '${declared}'`,
          'the file is read as UTF-8 (or latin-1 if that fails); re-save it as UTF-8 to be sure of its text',
        ),
      );
      if (isUtf8(bytes)) {
        text = bytes.toString('utf8');
        encoding = 'utf-8';
      }
    }
  }
  if (text === null) {
    text = latin1(bytes);
    encoding = 'latin-1';
    diagnostics.push(
      decodeError(
        'decode-latin1-fallback',
        declared === null
          ? 'the file is not valid UTF-8 and has no PEP 263 coding line; decoded as latin-1'
          : `the file is not valid ${declared}; decoded as latin-1`,
        'add `# -*- coding: <encoding> -*-` on the first line, or re-save the file as UTF-8',
      ),
    );
  }
  if (text.indexOf('\0') >= 0) {
    let count = 0;
    for (let i = text.indexOf('\0'); i >= 0; i = text.indexOf('\0', i + 1)) count++;
    // A space is one UTF-8 byte like NUL, so byte spans stay aligned with the file; CPython refuses NUL outright.
    text = text.replace(/\0/g, ' ');
    diagnostics.push(
      decodeError(
        'nul-bytes',
        `the file contains ${count} NUL byte${count === 1 ? '' : 's'}; read as spaces`,
        'CPython refuses source with NUL bytes; the file may be binary or corrupted',
      ),
    );
  }
  return { text, encoding, diagnostics };
}
