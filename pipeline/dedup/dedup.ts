// The dedup stage's entry: exact, lexical and structural clusters plus architecture identity, and the report.
//
// Levels are nested: the lexical union-find starts from the exact groups and the structural one from the
// lexical clusters, so "removed at each level" is well defined and a block's clusters only grow with the level.
// Items are processed in id order, and every hash is content-derived, so the result does not depend on the
// order of the input.
// See docs/dedup.md.
import type { Diagnostic } from '../contract/diagnostics.ts';
import { archHash, parseModuleTree } from './arch.ts';
import type { Forms } from './cluster.ts';
import { UnionFind, collectForms, groupsOf, nearDuplicates } from './cluster.ts';
import type { Fingerprint } from './fingerprint.ts';
import { fingerprint, fingerprintContext } from './fingerprint.ts';
import { lshFigures, resolveParams } from './params.ts';
import { corpusReport } from './report.ts';
import type { BlockDedup, Cluster, DedupItem, DedupParams, DedupResult, Neighbour } from './types.ts';

export type { DedupItem, DedupParams, DedupResult } from './types.ts';

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** Canonical index per item and the multi-member clusters, from a union-find. */
function canonicals(uf: UnionFind, items: DedupItem[], include: (i: number) => boolean = () => true) {
  const canon = new Int32Array(items.length).fill(-1);
  const clusters: Cluster[] = [];
  for (const group of groupsOf(uf, items)) {
    const members = group.filter(include);
    for (const i of members) canon[i] = members[0];
    if (members.length > 1)
      clusters.push({ canonical: items[members[0]].id, members: members.map((i) => items[i].id) });
  }
  clusters.sort((x, y) => (x.canonical < y.canonical ? -1 : x.canonical > y.canonical ? 1 : 0));
  return { canon, clusters };
}

/** Top-k lexical neighbours of item i: same-form items (similarity 1), then LSH candidates by similarity. */
function nearestOf(
  i: number,
  items: DedupItem[],
  forms: Forms,
  sims: Map<number, [number, number][]>,
  k: number,
): Neighbour[] {
  const f = forms.formOf[i];
  const pool: Neighbour[] = [];
  const take = (form: number, similarity: number) => {
    let taken = 0;
    for (const j of forms.members[form]) {
      if (taken === k) break;
      if (j === i) continue;
      pool.push({ id: items[j].id, similarity: round4(similarity) });
      taken++;
    }
  };
  take(f, 1);
  for (const [g, s] of sims.get(f) ?? []) take(g, s);
  pool.sort((x, y) => y.similarity - x.similarity || byId(x, y));
  return pool.slice(0, k);
}

/** De-duplicates blocks in this thread. `dedupParallel` gives the same result using worker threads. */
export function dedup(input: DedupItem[], params?: Partial<DedupParams>): DedupResult {
  const p = resolveParams(params);
  const items = sortItems(input);
  const ctx = fingerprintContext(p);
  const cache = new Map<string, Fingerprint>();
  const fingerprints = items.map((item) => {
    let f = cache.get(item.code);
    if (f === undefined) {
      f = fingerprint(item.code, ctx);
      cache.set(item.code, f);
    }
    return f;
  });
  return dedupFingerprinted(items, fingerprints, p);
}

/** Items in id order (the order every later step relies on); duplicate ids are a pipeline bug. */
export function sortItems(input: DedupItem[]): DedupItem[] {
  const items = [...input].sort(byId);
  for (let i = 1; i < items.length; i++) {
    if (items[i].id === items[i - 1].id) {
      throw new Error(
        `dedup: duplicate block id ${JSON.stringify(items[i].id)}; ids must be unique (assemble emits one record per block)`,
      );
    }
  }
  return items;
}

/** Everything after fingerprinting: `items` sorted by `sortItems`, `derived[i]` the fingerprint of items[i].code. */
export function dedupFingerprinted(items: DedupItem[], derived: Fingerprint[], p: DedupParams): DedupResult {
  const n = items.length;
  const diagnostics: Diagnostic[] = [];
  items.forEach((item, i) => {
    if (derived[i].syntaxErrors === 0) return;
    diagnostics.push({
      code: 'dedup-syntax-error',
      severity: 'warning',
      stage: 'dedup',
      message: `${item.id}: ${derived[i].syntaxErrors} syntax error(s) in the block's code; fingerprints use tree-sitter's recovered tree`,
      hint: 'check the assembled code of this block; an assembly bug can cut a definition short',
      source: item.sourceId,
      path: item.path,
    });
  });

  // Exact: equal normalized forms.
  const exactUf = new UnionFind(n);
  const firstByHash = new Map<string, number>();
  derived.forEach((d, i) => {
    const first = firstByHash.get(d.exactHash);
    if (first === undefined) firstByHash.set(d.exactHash, i);
    else exactUf.union(first, i);
  });

  // Lexical, then structural, each starting from the previous level's clusters.
  const near = { bands: p.bands, rows: p.rows, bigBucket: p.bigBucket, prefilterSigmas: p.prefilterSigmas };
  const lexicalUf = exactUf.clone();
  const lexForms = collectForms(
    derived.map((d) => d.shingles),
    derived.map((d) => d.shingleKey),
    derived.map((d) => d.shingleSig),
  );
  const lexSims = nearDuplicates(lexForms, lexicalUf, { ...near, threshold: p.lexicalThreshold });
  const structuralUf = lexicalUf.clone();
  const structForms = collectForms(
    derived.map((d) => d.bag),
    derived.map((d) => d.bagKey),
    derived.map((d) => d.bagSig),
  );
  // No structural neighbours are listed, so no similarity of this level is kept: a candidate pair already in one
  // cluster is skipped in every bucket, not only in big ones (`bigBucket`), which leaves the clusters as they are.
  nearDuplicates(structForms, structuralUf, { ...near, bigBucket: 1, threshold: p.structuralThreshold });

  // Architecture identity, for validated blocks with a well-formed tree.
  const arch: (string | null)[] = items.map((item) => {
    if (!item.validated || item.moduleTree === undefined || item.moduleTree === null) return null;
    const tree = parseModuleTree(item.moduleTree);
    if (typeof tree === 'string') {
      diagnostics.push({
        code: 'dedup-malformed-module-tree',
        severity: 'warning',
        stage: 'dedup',
        message: `${item.id}: ${tree}`,
        hint: 'validation should record { type, params: [{ name, shape }], children: [{ name, ... }] }',
        source: item.sourceId,
        path: item.path,
      });
      return null;
    }
    return archHash(tree);
  });
  const archUf = new UnionFind(n);
  const firstByArch = new Map<string, number>();
  arch.forEach((h, i) => {
    if (h === null) return;
    const first = firstByArch.get(h);
    if (first === undefined) firstByArch.set(h, i);
    else archUf.union(first, i);
  });

  const exact = canonicals(exactUf, items);
  const lexical = canonicals(lexicalUf, items);
  const structural = canonicals(structuralUf, items);
  const architecture = canonicals(archUf, items, (i) => arch[i] !== null);

  const blocks: BlockDedup[] = items.map((item, i) => ({
    id: item.id,
    sourceId: item.sourceId,
    exactHash: derived[i].exactHash,
    exactGroup: items[exact.canon[i]].id,
    lexicalCluster: items[lexical.canon[i]].id,
    nearest: nearestOf(i, items, lexForms, lexSims, p.nearestCount),
    structuralCluster: items[structural.canon[i]].id,
    structuralFingerprint: derived[i].summary,
    archHash: arch[i],
    architectureGroup: arch[i] === null ? null : items[architecture.canon[i]].id,
    unique: {
      exact: exact.canon[i] === i,
      lexical: lexical.canon[i] === i,
      structural: structural.canon[i] === i,
      architecture: arch[i] === null ? null : architecture.canon[i] === i,
    },
  }));

  return {
    params: p,
    lsh: lshFigures(p),
    blocks,
    clusters: {
      exact: exact.clusters,
      lexical: lexical.clusters,
      structural: structural.clusters,
      architecture: architecture.clusters,
    },
    report: corpusReport(items, blocks),
    diagnostics,
  };
}
