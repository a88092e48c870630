// Union-find over block indices, canonical-member choice, and the LSH + exact-Jaccard near-duplicate pass.
import { jaccardSorted, lshPairs } from './minhash.ts';
import type { DedupItem } from './types.ts';

export class UnionFind {
  readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = new Int32Array(n);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }
  /** A copy, so a coarser level can start from a finer level's clusters (which keeps the levels nested). */
  clone(): UnionFind {
    const uf = new UnionFind(0);
    (uf as { parent: Int32Array }).parent = Int32Array.from(this.parent);
    return uf;
  }
  find(i: number): number {
    const p = this.parent;
    while (p[i] !== i) {
      p[i] = p[p[i]];
      i = p[i];
    }
    return i;
  }
  union(i: number, j: number): void {
    const a = this.find(i);
    const b = this.find(j);
    // The smaller index becomes the root: deterministic, and indices follow sorted ids.
    if (a < b) this.parent[b] = a;
    else if (b < a) this.parent[a] = b;
  }
}

/** Canonical order: priority 1 first, then validated, then the shortest path, then id (code-unit order). */
export function canonicalCompare(x: DedupItem, y: DedupItem): number {
  if (x.priority !== y.priority) return x.priority - y.priority;
  if (x.validated !== y.validated) return x.validated ? -1 : 1;
  if (x.path.length !== y.path.length) return x.path.length - y.path.length;
  return x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
}

/** Groups indices by union-find root; each group sorted canonically. Returns, per index, its group. */
export function groupsOf(uf: UnionFind, items: DedupItem[]): number[][] {
  const byRoot = new Map<number, number[]>();
  for (let i = 0; i < items.length; i++) {
    const r = uf.find(i);
    const g = byRoot.get(r);
    if (g) g.push(i);
    else byRoot.set(r, [i]);
  }
  const groups = [...byRoot.values()];
  for (const g of groups) g.sort((a, b) => canonicalCompare(items[a], items[b]));
  return groups;
}

/**
 * Distinct feature sets ("forms") with the items that have them. Identical sets are collapsed before LSH so a
 * thousand copies of one block cost one signature, not a thousand (and no 500k-pair bucket).
 */
export interface Forms {
  sets: Int32Array[];
  /** MinHash signature per form. */
  sigs: Int32Array[];
  /** Item indices per form, ascending. */
  members: number[][];
  /** Form index per item. */
  formOf: Int32Array;
}

export function collectForms(sets: Int32Array[], keys: string[], sigs: Int32Array[]): Forms {
  const byKey = new Map<string, number[]>();
  const forms: Forms = { sets: [], sigs: [], members: [], formOf: new Int32Array(sets.length) };
  for (let i = 0; i < sets.length; i++) {
    const candidates = byKey.get(keys[i]) ?? [];
    // The key is a digest; compare contents so a digest collision can never merge two different sets.
    let form = candidates.find((f) => sameSet(forms.sets[f], sets[i]));
    if (form === undefined) {
      form = forms.sets.length;
      forms.sets.push(sets[i]);
      forms.sigs.push(sigs[i]);
      forms.members.push([]);
      candidates.push(form);
      byKey.set(keys[i], candidates);
    }
    forms.members[form].push(i);
    forms.formOf[i] = form;
  }
  return forms;
}

function sameSet(x: Int32Array, y: Int32Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

export interface NearOptions {
  bands: number;
  rows: number;
  threshold: number;
  bigBucket: number;
  /** Candidates whose signature estimate is this many standard errors below the threshold skip the exact check. */
  prefilterSigmas: number;
}

/**
 * True when the signatures agree on at least `minAgree` positions; stops as soon as that is out of reach, so an
 * unrelated candidate costs a few dozen comparisons instead of a merge of two sets of hundreds of elements.
 */
export function signaturesAgree(x: Int32Array, y: Int32Array, minAgree: number): boolean {
  let misses = 0;
  const maxMisses = x.length - minAgree;
  for (let i = 0; i < x.length; i++) {
    if (x[i] !== y[i] && ++misses > maxMisses) return false;
  }
  return true;
}

/**
 * Unions the items of every pair of forms whose exact Jaccard reaches the threshold (candidates from LSH), and
 * of items sharing a form. Returns the similarities computed, per form: [otherForm, similarity] pairs.
 */
export function nearDuplicates(forms: Forms, uf: UnionFind, opts: NearOptions): Map<number, [number, number][]> {
  for (const m of forms.members) for (let k = 1; k < m.length; k++) uf.union(m[0], m[k]);
  const signatures = forms.sigs;
  const sims = new Map<number, [number, number][]>();
  const note = (f: number, g: number, s: number) => {
    const list = sims.get(f);
    if (list) list.push([g, s]);
    else sims.set(f, [[g, s]]);
  };
  // MinHash agreement estimates Jaccard with standard error sqrt(t(1-t)/k); a pair at the threshold falls
  // `prefilterSigmas` (4) errors below it with probability ~3e-5, and union-find transitivity usually recovers it.
  const k = signatures.length > 0 ? signatures[0].length : 0;
  const t = opts.threshold;
  const minAgree = Math.max(0, Math.floor((t - opts.prefilterSigmas * Math.sqrt((t * (1 - t)) / k)) * k));
  lshPairs(
    signatures,
    opts.bands,
    opts.rows,
    opts.bigBucket,
    (f, g) => uf.find(forms.members[f][0]) === uf.find(forms.members[g][0]),
    (f, g) => {
      // Only worth it for sets at least as large as the signature; smaller ones merge as fast as they compare,
      // and their estimate is coarser (fewer distinct elements than signature positions).
      const large = forms.sets[f].length >= k && forms.sets[g].length >= k;
      if (large && !signaturesAgree(signatures[f], signatures[g], minAgree)) return;
      const s = jaccardSorted(forms.sets[f], forms.sets[g]);
      note(f, g, s);
      note(g, f, s);
      if (s >= opts.threshold) uf.union(forms.members[f][0], forms.members[g][0]);
    },
  );
  return sims;
}
