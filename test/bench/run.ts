// `npm run bench`: runs every test/bench/*.bench.ts (or those named on the command line), prints one table
// (figure, value, target) and writes the same figures as JSON to bench-results/bench.json.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchModule, Figure } from './harness.ts';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

const figures: Figure[] = [];
for (const file of files) {
  process.stderr.write(`bench: ${file}\n`);
  const mod = (await import(pathToFileURL(join(here, file)).href)) as BenchModule;
  try {
    figures.push(...(await mod.run()));
  } catch (err) {
    figures.push({ issue: 0, figure: `${file} crashed`, value: String((err as Error).message ?? err), ok: false });
  }
}
figures.sort((a, b) => a.issue - b.issue);

const rows = figures.map((f) => [
  `#${f.issue}`,
  f.figure,
  `${f.value}${f.unit ? ` ${f.unit}` : ''}`,
  f.target ?? '',
  f.ok === undefined ? '' : f.ok ? 'ok' : 'MISS',
]);
const header = ['issue', 'figure', 'value', 'target', ''];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r: string[]) =>
  r
    .map((c, i) => c.padEnd(widths[i]))
    .join('  ')
    .trimEnd();
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));

const out = join(here, '..', '..', 'bench-results');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'bench.json'), JSON.stringify({ figures }, null, 2) + '\n');
console.log(`\nwrote ${join('bench-results', 'bench.json')}`);
