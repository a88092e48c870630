// Figures the corpus benchmarks read from a built catalog beyond stats.json: blocks failing on a module the corpus
// itself provides (our resolver's fault), compiled-extension and needs-arguments failures, blocks blocked by a
// distribution their own source declares, and where the passing recipes came from.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildInfo } from '../../pipeline/contract/build-info.ts';
import { openRun, prepare } from '../../pipeline/run/prepare.ts';

/** Each source's top-level packages, from the corpus's (warm) index: mmcv → `mmcv`, detr → `datasets`, `models`... */
export async function corpusPackages(config: string): Promise<Map<string, Set<string>>> {
  const ctx = openRun(config);
  try {
    const p = await prepare(ctx);
    const by = new Map<string, Set<string>>();
    for (const m of p.index.modules) {
      if (!m.module) continue;
      if (!by.has(m.sourceId)) by.set(m.sourceId, new Set());
      by.get(m.sourceId)!.add(m.module.split('.')[0]);
    }
    return by;
  } finally {
    ctx.store.close();
  }
}

/**
 * Whether a block's failing module is one the corpus could have served the block: a package of its own source or of
 * a source it draws from, or one the import hook refused it (validation refuses a block only the corpus packages its
 * module imports or draws from, docs/validate.md "What a block may import"). detr's `datasets` is none of these for
 * an mmdet block whose transformers imports Hugging Face's `datasets`.
 */
function servedByCorpus(spec: BlockSpecLike, top: string, packages: Map<string, Set<string>>): boolean {
  const sources = [spec.sourceId, ...(spec.dependencies?.sources ?? []).map((s) => s.id)];
  if (sources.some((id) => packages.get(id)?.has(top))) return true;
  const refused = /\(blocked: the block must not import its upstream package\)$/.test(
    spec.validation?.reason?.message ?? '',
  );
  return refused && [...packages.values()].some((tops) => tops.has(top));
}

interface BlockSpecLike {
  sourceId: string;
  dependencies?: { sources?: { id: string }[] };
  validation?: { reason?: { message?: string } };
}

export interface CatalogTally {
  /** Failed with `missing-module` of a package the corpus could have served the block (servedByCorpus), by package. */
  corpusMissing: Map<string, number>;
  /** Failed with `native-extension` (a compiled extension the sandbox can't load). */
  native: number;
  /** Failed with `needs-arguments`, by source. */
  needsArguments: Map<string, number>;
  /** Blocked by a distribution the block's own source declares (the environment should have installed it). */
  blockedDeclared: Map<string, number>;
  /** Passing recipes by source, then by origin (builder, usage, override, inference). */
  origins: Map<string, Map<string, number>>;
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** Reads every block spec of the catalog at `dir` once. */
export function tallyCatalog(dir: string, packages: Map<string, Set<string>>): CatalogTally {
  const env = (JSON.parse(readFileSync(join(dir, 'build-info.json'), 'utf8')) as BuildInfo).environment;
  const norm = (n: string) => n.toLowerCase().replace(/[-_.]+/g, '-');
  const declared = new Set(
    [...(env?.requirements ?? []), ...(env?.missing ?? [])].flatMap((r) => r.from.map((f) => `${f}\0${r.name}`)),
  );
  const t: CatalogTally = {
    corpusMissing: new Map(),
    native: 0,
    needsArguments: new Map(),
    blockedDeclared: new Map(),
    origins: new Map(),
  };
  const blocksDir = join(dir, 'blocks');
  for (const f of readdirSync(blocksDir)) {
    const spec = JSON.parse(readFileSync(join(blocksDir, f), 'utf8'));
    const v = spec.validation;
    const top = String(v?.failureDetail ?? '').split('.')[0];
    if (v?.failureClass === 'missing-module' && servedByCorpus(spec, top, packages)) bump(t.corpusMissing, top);
    if (v?.failureClass === 'native-extension') t.native += 1;
    if (v?.failureClass === 'needs-arguments') bump(t.needsArguments, spec.sourceId);
    for (const b of (v?.status === 'blocked' ? v.blockedBy : []) as { distribution: string }[])
      if (declared.has(`${spec.sourceId}\0${norm(b.distribution)}`)) bump(t.blockedDeclared, b.distribution);
    if (v?.status === 'passed') {
      const per = t.origins.get(spec.sourceId) ?? new Map<string, number>();
      bump(per, String(v.recipe?.origin ?? 'inference'));
      t.origins.set(spec.sourceId, per);
    }
  }
  return t;
}

/** Sum of a tally's counts. */
export const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
