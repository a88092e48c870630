// Converts tree-sitter positions (UTF-16 code units of the decoded JS string) into the spans the facts carry:
// byte offsets into the UTF-8 encoding of that text, and 1-based lines.
import type { Span } from '../contract/diagnostics.ts';

export class TextMap {
  /** UTF-16 index where each line starts; lineStarts[0] = 0. */
  private readonly lineStarts: number[];
  /** UTF-8 byte offset of every UTF-16 index, built only when the text has non-ASCII characters. */
  private readonly bytes: Uint32Array | null;
  readonly lineCount: number;

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
    // "a\nb\n" has 2 lines, "a\nb" has 2, "" has 0.
    this.lineCount = text.length === 0 ? 0 : text.endsWith('\n') ? starts.length - 1 : starts.length;
    this.bytes = Buffer.byteLength(text, 'utf8') === text.length ? null : utf8Offsets(text);
  }

  /** UTF-8 byte offset of a UTF-16 index (identity for pure ASCII). */
  byte(index: number): number {
    return this.bytes === null ? index : this.bytes[index];
  }

  /** 1-based line of a UTF-16 index. */
  line(index: number): number {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  span(start: number, end: number): Span {
    return {
      startByte: this.byte(start),
      endByte: this.byte(end),
      startLine: this.line(start),
      endLine: this.line(end > start ? end - 1 : start),
    };
  }
}

function utf8Offsets(text: string): Uint32Array {
  const out = new Uint32Array(text.length + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    out[i] = b;
    const c = text.charCodeAt(i);
    if (c < 0x80) b += 1;
    else if (c < 0x800) b += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair is 4 UTF-8 bytes; its low half shares the offset just past them.
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out[++i] = b + 4;
        b += 4;
        continue;
      }
      b += 3;
    } else b += 3;
  }
  out[text.length] = b;
  return out;
}
