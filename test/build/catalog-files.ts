// Reads a catalog folder for comparisons between builds.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file of a catalog as path → text, except build-info.json (the one place a timestamp may appear) and the
 * change feed (a comparison with whatever catalog the folder held before, not a function of the inputs alone).
 */
export function catalogFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const f of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (f.isDirectory()) walk(join(d, f.name), `${rel}${f.name}/`);
      else if (!['build-info.json', 'changes.json', 'changes.atom'].includes(f.name))
        out.set(`${rel}${f.name}`, readFileSync(join(d, f.name), 'utf8'));
    }
  };
  walk(dir, '');
  return out;
}
