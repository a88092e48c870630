// What the requirements layer installs: the config's `environment.requirements`, each source's declared
// requirements (read as data by the sources stage) with its `requirements.add` / `drop`, and the distributions of
// `python` sources the base lacks. Left out (sources/requirements/to-install.ts): the torch family (the base pins
// it) and anything the corpus itself provides (mmcv declares mmengine; with mmengine a source, its code is inlined).
import type { CorpusConfig } from '../config/types.ts';
import { requirementsToInstall } from '../sources/requirements.ts';
import type { DeclaredRequirement } from '../sources/requirements/types.ts';
import type { SourceSnapshot } from '../sources/types.ts';
import type { InstalledDistribution } from './installed.ts';
import { normalizeName } from '../sources/requirements/pep508.ts';
import type { RequirementEntry } from './types.ts';

/** A requirement the config states, in the reader's shape: a PEP 508 string and where it came from. */
function stated(spec: string, from: string): DeclaredRequirement | null {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec);
  return m ? { name: normalizeName(m[1]), spec: spec.trim(), from } : null;
}

/** Names that stand for what the corpus provides: source ids, distributions and top-level packages. */
function corpusNames(snapshots: SourceSnapshot[]): Set<string> {
  const names = new Set<string>();
  for (const s of snapshots) {
    if (s.status === 'failed') continue;
    names.add(s.id);
    if (s.distribution) names.add(s.distribution);
    const rel = s.importRoot.startsWith(s.root) ? s.importRoot.slice(s.root.length).replace(/^\/+/, '') : '';
    for (const f of s.files) {
      const below = rel ? (f.path.startsWith(`${rel}/`) ? f.path.slice(rel.length + 1) : null) : f.path;
      if (below) names.add(below.split('/')[0].replace(/\.py$/, ''));
    }
  }
  return names;
}

export interface LeftOut {
  name: string;
  from: string;
  reason: string;
}

/**
 * The layer's requirements, merged by distribution (every spec kept: pip intersects them), in name order, and
 * what was left out with why.
 */
export function collectRequirements(
  config: CorpusConfig,
  snapshots: SourceSnapshot[],
  base: InstalledDistribution[],
): { entries: RequirementEntry[]; leftOut: LeftOut[] } {
  const provided = corpusNames(snapshots);
  const installed = new Set(base.map((d) => d.name));
  const byName = new Map<string, { specs: Set<string>; from: Set<string> }>();
  const leftOut: LeftOut[] = [];
  const add = (name: string, specs: string[], from: string) => {
    const e = byName.get(name) ?? { specs: new Set<string>(), from: new Set<string>() };
    for (const s of specs) e.specs.add(s);
    e.from.add(from);
    byName.set(name, e);
  };
  /** `list` of one asker: the torch family and the corpus's own packages out (the config may ask for the latter). */
  const take = (list: DeclaredRequirement[], from: string, drop: Set<string>, corpus: Iterable<string>) => {
    const { kept, dropped } = requirementsToInstall(list, corpus);
    for (const d of dropped) leftOut.push({ name: d.requirement.name, from, reason: d.reason });
    for (const r of kept) {
      if (drop.has(r.name)) leftOut.push({ name: r.name, from, reason: 'dropped-by-config' });
      else add(r.name, [r.spec, ...(r.also ?? []).map((a) => a.spec)], from);
    }
  };
  const fromConfig = config.environment.requirements.map((s) => stated(s, 'config'));
  take(
    fromConfig.filter((r) => r !== null),
    'config',
    new Set(),
    [],
  );
  const snaps = new Map(snapshots.map((s) => [s.id, s]));
  for (const src of config.sources) {
    const drop = new Set(src.requirements.drop.map(normalizeName));
    // An installed distribution is what a python source is: the layer brings it when the base lacks it (timm).
    if (src.kind === 'python' && !installed.has(normalizeName(src.distribution)))
      add(normalizeName(src.distribution), [src.distribution], src.id);
    const declared = src.kind === 'python' ? [] : (snaps.get(src.id)?.requirements ?? []);
    const added = src.requirements.add.map((s) => stated(s, 'config')).filter((r) => r !== null);
    take([...declared, ...added], src.id, drop, provided);
  }
  const entries = [...byName]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, e]) => ({ name, specs: [...e.specs].sort(), from: [...e.from].sort() }));
  return { entries, leftOut };
}
