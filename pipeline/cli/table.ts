// Plain-text tables for CLI output (the JSON form of the same data goes through --json). Cells are often upstream's
// (block names, paths, requirement specs): every cell is made printable, and widths are those of the escaped text.
import { printable } from './printable.ts';

export function renderTable(header: string[], rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n') + '\n';
}
