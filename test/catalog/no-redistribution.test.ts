// The published catalog never carries upstream code: no line of any function body of the installed torchvision
// (30+ characters) appears anywhere in a catalog built from it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import { openRun, prepare } from '../../pipeline/run/prepare.ts';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { taxonomy } from '../../pipeline/catalog/taxonomy.ts';
import { benchConfig } from '../bench/corpora.ts';
import { catalogFiles } from '../build/catalog-files.ts';
import { tempDir } from '../helpers/tree.ts';

const quiet = () => ({ out: () => {}, err: () => {}, isTTY: false, ci: true, json: true });

describe('no redistribution (installed torchvision)', () => {
  it('no function-body line of torchvision appears in its catalog', async () => {
    const config = benchConfig(false, false, tempDir('nnb-bench-'));
    const out = tempDir('nnb-tv-cat-');
    expect(await runCli(['build', '--config', config, '--out', out, '--no-validate', '--json'], quiet)).toBe(0);
    expect(checkCatalog(out).errors).toEqual([]);

    // Every line inside a function or method body, from the same index the build used.
    const run = openRun(config);
    const p = await prepare(run);
    run.store.close();
    const bodyLines = new Set<string>();
    for (const m of p.index.modules) {
      const lines = readFileSync(m.absPath, 'utf8').split('\n');
      const fns = [...m.facts.functions, ...m.facts.classes.flatMap((c) => c.methods)];
      for (const f of fns) {
        for (let i = f.span.startLine; i < f.span.endLine; i++) {
          const line = lines[i]?.trim() ?? '';
          if (line.length >= 30 && !line.startsWith('def ') && !line.startsWith('@')) bodyLines.add(line);
        }
      }
    }
    expect(bodyLines.size).toBeGreaterThan(5000);
    // JSON escapes quotes and backslashes: compare against the decoded string values, all joined.
    const values: string[] = [];
    const collect = (v: unknown) => {
      if (typeof v === 'string') values.push(v);
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object') Object.values(v).forEach(collect);
    };
    for (const text of catalogFiles(out).values()) collect(JSON.parse(text));
    const haystack = values.join('\n');
    // Paper titles are bibliographic facts we write in the taxonomy, not upstream code; a docstring that quotes one
    // (SqueezeNet's builder wraps "...accuracy with 50x fewer parameters and <0.5MB model size") is no leak.
    const titles = taxonomy().papers.map((x) => x.title);
    const leaked = [...bodyLines].filter((l) => haystack.includes(l) && !titles.some((t) => t.includes(l)));
    expect(leaked).toEqual([]);
  });
});
