// Per-code fingerprints: everything dedup needs from one block's text, computed by a pure function of
// (code, params), so it can run in worker threads and be cached by text.
import { createHash } from 'node:crypto';
import type Parser from 'tree-sitter';
import { extractFeatures } from './features.ts';
import { combine, fmix32, hex32 } from './hash32.ts';
import type { Permutations } from './minhash.ts';
import { makePermutations, minhash, oneHashSignature, toSet } from './minhash.ts';
import type { DedupParams, StructuralSummary } from './types.ts';

export interface Fingerprint {
  /** SHA-256 of the normalized text. */
  exactHash: string;
  /** Shingle set (sorted, distinct 32-bit hashes), its 64-bit digest and its MinHash signature. */
  shingles: Int32Array;
  shingleKey: string;
  shingleSig: Int32Array;
  /** Subtree bag as an occurrence-tagged set, its digest and signature. */
  bag: Int32Array;
  bagKey: string;
  bagSig: Int32Array;
  summary: StructuralSummary;
  syntaxErrors: number;
}

/** Hashes of every window of `size` consecutive tokens, as a set (a block shorter than a window is one shingle). */
export function shingleSet(tokens: Int32Array, size: number): Int32Array {
  const count = Math.max(tokens.length - size + 1, tokens.length > 0 ? 1 : 0);
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    let h = size;
    const end = Math.min(i + size, tokens.length);
    for (let t = i; t < end; t++) h = combine(h, tokens[t]);
    out[i] = fmix32(h);
  }
  return toSet(out);
}

/**
 * The subtree multiset as a set: the k-th occurrence of label v becomes element H(v, k), so the Jaccard of
 * these sets is the weighted Jaccard sum(min(count)) / sum(max(count)) of the multisets. Also returns how many
 * distinct labels there were (for the summary), since the sort is already done here.
 */
export function bagSet(subtrees: Int32Array): { set: Int32Array; distinct: number } {
  const sorted = Int32Array.from(subtrees).sort();
  const out = new Int32Array(sorted.length);
  let occurrence = 0;
  let distinct = 0;
  for (let i = 0; i < sorted.length; i++) {
    occurrence = i > 0 && sorted[i] === sorted[i - 1] ? occurrence + 1 : 0;
    if (occurrence === 0) distinct++;
    out[i] = fmix32(combine(sorted[i], occurrence));
  }
  return { set: toSet(out), distinct };
}

/** A 64-bit digest of a sorted set, as hex; used as a map key (contents are still compared on a hit). */
export function setKey(set: Int32Array): string {
  let h1 = 1;
  let h2 = 2;
  for (let i = 0; i < set.length; i++) {
    h1 = combine(h1, set[i]);
    h2 = combine(h2, set[i] ^ 0x5bd1e995);
  }
  return hex32(fmix32(h1 ^ set.length)) + hex32(fmix32(h2 ^ set.length));
}

/** What `fingerprint` needs from the params, prepared once (sets, permutations). */
export interface FingerprintContext {
  shingleSize: number;
  /** MinHash signature of a set under the chosen scheme. */
  signature: (set: Int32Array) => Int32Array;
  features: { subtreeDepths: readonly number[]; apiRoots: ReadonlySet<string>; keptNames: ReadonlySet<string> };
}

export function fingerprintContext(p: DedupParams): FingerprintContext {
  return {
    shingleSize: p.shingleSize,
    signature: signatureFunction(p),
    features: { subtreeDepths: p.subtreeDepths, apiRoots: new Set(p.apiRoots), keptNames: new Set(p.keptNames) },
  };
}

function signatureFunction(p: DedupParams): (set: Int32Array) => Int32Array {
  if (p.minhashScheme === 'k-permutations') {
    const perms: Permutations = makePermutations(p.permutations, p.seed);
    return (set) => minhash(set, perms);
  }
  return (set) => oneHashSignature(set, p.permutations, p.seed);
}

/** The fingerprint of `code`; `tree` and `skipTop` as extractFeatures takes them (a parse already made). */
export function fingerprint(
  code: string,
  ctx: FingerprintContext,
  tree?: Parser.Tree,
  skipTop?: ReadonlySet<string>,
): Fingerprint {
  const f = extractFeatures(code, ctx.features, tree, skipTop);
  const shingles = shingleSet(f.lexical, ctx.shingleSize);
  const bag = bagSet(f.subtrees);
  const bagKey = setKey(bag.set);
  return {
    exactHash: createHash('sha256').update(f.normalized).digest('hex'),
    shingles,
    shingleKey: setKey(shingles),
    shingleSig: ctx.signature(shingles),
    bag: bag.set,
    bagKey,
    bagSig: ctx.signature(bag.set),
    summary: { nodes: f.nodes, subtrees: f.subtrees.length, distinct: bag.distinct, digest: bagKey.slice(0, 8) },
    syntaxErrors: f.syntaxErrors,
  };
}
