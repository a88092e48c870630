// What de-duplication keeps between runs, content-addressed in a keyed store (the index's kv table; the orchestrator
// names the namespaces): a block's own-code spans by its assembled module, its fingerprint by its own code, and the
// last result by everything the clustering read. Every key holds the version of this stage's code (and of the
// grammar) and the parameters that shaped the value, so a value found is the one computing it would give: a warm
// run with nothing changed costs a lookup per block and one for the result. See docs/dedup.md ("Caches").
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeVersion } from '../util/code-version.ts';
import { grammarVersions } from '../util/tree-sitter.ts';
import type { Fingerprint } from './fingerprint.ts';
import { ownCodeOf } from './own-code.ts';
import type { DedupItem, DedupParams, DedupResult } from './types.ts';

/** A keyed store of strings; `put` may be buffered and written at the end of the step. */
export interface KeyValueStore {
  get(key: string): string | undefined;
  put(key: string, value: string): void;
}

/** The stores of the dedup caches; any left out is not cached. */
export interface DedupCaches {
  /** Own-code spans per assembled module (own-code.ts). */
  ownSpans?: KeyValueStore;
  /** Fingerprints per own code and fingerprint parameters. */
  fingerprints?: KeyValueStore;
  /** The last result, under one key, with the key of its inputs in front. */
  results?: KeyValueStore;
}

/** The one key of `results`: a new result replaces the last one rather than piling up. */
export const LAST_RESULT = 'last';

/** This stage's code (every file of pipeline/dedup/) and the tree-sitter grammar that parses for it. */
export function dedupVersion(): string {
  return codeVersion([dirname(fileURLToPath(import.meta.url))], grammarVersions());
}

const sha256 = (parts: string[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
};

export function ownSpansKey(assembled: string): string {
  return sha256(['own-spans', dedupVersion(), assembled]);
}

/** The parameters a fingerprint depends on (thresholds and bands only shape the clustering). */
function fingerprintParams(p: DedupParams): unknown[] {
  return [p.seed, p.shingleSize, p.permutations, p.minhashScheme, p.subtreeDepths, p.apiRoots, p.keptNames];
}

export function fingerprintKey(code: string, p: DedupParams): string {
  return sha256(['fingerprint', dedupVersion(), JSON.stringify(fingerprintParams(p)), code]);
}

/**
 * The key of a result: every field of the items the clustering reads (their code through its fingerprint's key),
 * in id order, and every parameter.
 */
export function resultKey(items: DedupItem[], fingerprintKeys: string[], p: DedupParams): string {
  const rows = items.map((x, i) => [
    x.id,
    x.sourceId,
    x.path,
    x.priority,
    x.validated,
    fingerprintKeys[i],
    x.moduleTree ?? null,
  ]);
  return sha256(['result', dedupVersion(), JSON.stringify(p), JSON.stringify(rows)]);
}

export function encodeResult(key: string, result: DedupResult): string {
  return `${key}\n${JSON.stringify(result)}`;
}

/** The stored result when it was made from the inputs `key` names. */
export function decodeResult(stored: string | undefined, key: string): DedupResult | undefined {
  if (!stored || !stored.startsWith(`${key}\n`)) return undefined;
  return JSON.parse(stored.slice(key.length + 1)) as DedupResult;
}

const base64 = (a: Int32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

/** A fingerprint as text: its scalar fields as JSON, its four sets and signatures as base64 of their bytes. */
export function encodeFingerprint(f: Fingerprint): string {
  const { shingles, shingleSig, bag, bagSig, ...rest } = f;
  return JSON.stringify({ ...rest, arrays: [shingles, shingleSig, bag, bagSig].map(base64) });
}

export function decodeFingerprint(text: string): Fingerprint {
  const { arrays, ...rest } = JSON.parse(text) as Omit<Fingerprint, 'shingles' | 'shingleSig' | 'bag' | 'bagSig'> & {
    arrays: string[];
  };
  const [shingles, shingleSig, bag, bagSig] = arrays.map((s) => {
    const bytes = Buffer.from(s, 'base64');
    // A copy into its own buffer: Buffer.from may hand out a slice of a shared pool, not 4-byte aligned.
    const out = new Int32Array(bytes.length / 4);
    new Uint8Array(out.buffer).set(bytes);
    return out;
  });
  return { ...rest, shingles, shingleSig, bag, bagSig };
}

/** One module's own-code spans and its own code's fingerprint as the caches keep them: keys and encoded values. */
export interface KeptOwnCode {
  spansKey: string;
  spans: string;
  fingerprintKey: string;
  fingerprint: string;
}

/**
 * What the caches keep of module `assembled` given its own-code spans and fingerprint (own-code.ts
 * `ownCodeAndFingerprint`): the spans by the module's content, the fingerprint by its own code and the params, the
 * key dedupParallel looks up.
 */
export function keptOwnCode(
  assembled: string,
  made: { spans: number[]; fingerprint: Fingerprint },
  p: DedupParams,
): KeptOwnCode {
  return {
    spansKey: ownSpansKey(assembled),
    spans: JSON.stringify(made.spans),
    ...keptFingerprint(assembled, made, p),
  };
}

/** The own code's fingerprint of module `assembled` as `dedup-fingerprints` keeps it (keptOwnCode's second half). */
export function keptFingerprint(
  assembled: string,
  made: { spans: number[]; fingerprint: Fingerprint },
  p: DedupParams,
): Pick<KeptOwnCode, 'fingerprintKey' | 'fingerprint'> {
  return {
    fingerprintKey: fingerprintKey(ownCodeOf(assembled, made.spans), p),
    fingerprint: encodeFingerprint(made.fingerprint),
  };
}
