// The installed set of an environment, read from the file system (never by running its Python): the
// distributions whose metadata folders (`*.dist-info`, `*.egg-info`) sit in its site folders, and a digest of
// them that the validation cache key and build-info.json carry. Names as PEP 503 normalises them.
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { normalizeName } from '../sources/requirements/pep508.ts';

export interface InstalledDistribution {
  /** PEP 503-normalised name: `pyyaml`, `opencv-python`. */
  name: string;
  version: string;
}

/**
 * `torch-2.14.1.dist-info` → torch 2.14.1; `fvcore-0.1.5.post20221221-py3.11.egg-info` → fvcore 0.1.5.post20221221.
 * Wheel metadata folders escape `-` in names as `_`, so the first `-` separates name and version.
 */
function parseMetaFolder(entry: string): InstalledDistribution | null {
  const m = /^([A-Za-z0-9][A-Za-z0-9._]*)-([^-]+?)(?:-py\d[\w.]*)?\.(?:dist-info|egg-info)$/.exec(entry);
  return m ? { name: normalizeName(m[1]), version: m[2] } : null;
}

/** Distributions installed in `sites` (earlier folders win, as on sys.path), sorted by name. */
export function installedDistributions(sites: string[]): InstalledDistribution[] {
  const found = new Map<string, InstalledDistribution>();
  for (const site of sites) {
    let names: string[];
    try {
      names = readdirSync(site).sort();
    } catch {
      continue;
    }
    for (const n of names) {
      const d = parseMetaFolder(n);
      if (d && !found.has(d.name)) found.set(d.name, d);
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** sha256 over `name==version` lines: equal sets give equal digests whatever folder they live in. */
export function installedDigest(dists: InstalledDistribution[]): string {
  const h = createHash('sha256');
  for (const d of dists) h.update(`${d.name}==${d.version}\n`);
  return h.digest('hex');
}
