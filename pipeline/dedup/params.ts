// Default dedup parameters and their resolution (bands/rows chosen from the thresholds when not given).
import { candidateProbability, chooseBands, sCurveThreshold } from './minhash.ts';
import { NnblocksError } from '../contract/diagnostics.ts';
import type { DedupParams } from './types.ts';

export const DEFAULT_PARAMS: Omit<DedupParams, 'bands' | 'rows'> = {
  seed: 0x6e6e62, // 'nnb'
  shingleSize: 5,
  permutations: 256,
  minhashScheme: 'one-permutation',
  maxMissRate: 0.01,
  lexicalThreshold: 0.9,
  structuralThreshold: 0.9,
  subtreeDepths: [2, 3],
  apiRoots: ['F', 'nn', 'torch'],
  // Names nobody renames when copying a block: keeping them makes the abstract token stream more specific.
  keptNames: [
    'self',
    'cls',
    'super',
    'len',
    'range',
    'enumerate',
    'zip',
    'isinstance',
    'getattr',
    'setattr',
    'hasattr',
    'int',
    'float',
    'bool',
    'str',
    'list',
    'tuple',
    'dict',
    'min',
    'max',
    'sum',
    'abs',
    'print',
    'map',
    'any',
    'all',
  ],
  nearestCount: 5,
  prefilterSigmas: 4,
  bigBucket: 64,
};

/** A bad parameter from a library caller (the config's are caught by its schema when it loads). */
function paramError(message: string): NnblocksError {
  return new NnblocksError(
    message,
    'dedup',
    "fix the value in the config's `dedup` section or the caller; see docs/dedup.md",
  );
}

/** Fills defaults and chooses bands x rows for the lower of the two thresholds (one LSH serves both levels). */
export function resolveParams(given: Partial<DedupParams> = {}): DedupParams {
  const p = { ...DEFAULT_PARAMS, ...given };
  if (!(p.prefilterSigmas >= 0)) throw paramError(`dedup: prefilterSigmas must be >= 0, got ${p.prefilterSigmas}`);
  for (const key of ['lexicalThreshold', 'structuralThreshold', 'maxMissRate'] as const) {
    if (!(p[key] > 0 && p[key] <= 1)) throw paramError(`dedup: ${key} must be in (0, 1], got ${p[key]}`);
  }
  for (const key of ['shingleSize', 'permutations', 'nearestCount', 'bigBucket'] as const) {
    if (!Number.isInteger(p[key]) || p[key] < 1)
      throw paramError(`dedup: ${key} must be a positive integer, got ${p[key]}`);
  }
  if (p.subtreeDepths.length === 0 || !p.subtreeDepths.every((d) => Number.isInteger(d) && d >= 1 && d <= 8)) {
    throw paramError(`dedup: subtreeDepths must be integers in 1..8, got ${JSON.stringify(p.subtreeDepths)}`);
  }
  if (p.minhashScheme !== 'one-permutation' && p.minhashScheme !== 'k-permutations') {
    throw paramError(
      `dedup: minhashScheme must be 'one-permutation' or 'k-permutations', got ${JSON.stringify(p.minhashScheme)}`,
    );
  }
  let bands = given.bands;
  let rows = given.rows;
  if (bands === undefined || rows === undefined) {
    const threshold = Math.min(p.lexicalThreshold, p.structuralThreshold);
    ({ bands, rows } = chooseBands(p.permutations, threshold, p.maxMissRate));
  }
  if (!(
    Number.isInteger(bands) &&
    Number.isInteger(rows) &&
    bands >= 1 &&
    rows >= 1 &&
    bands * rows <= p.permutations
  )) {
    throw paramError(
      `dedup: bands (${bands}) x rows (${rows}) must be positive integers with bands * rows <= permutations (${p.permutations}); leave both unset to have them chosen`,
    );
  }
  return {
    seed: p.seed,
    shingleSize: p.shingleSize,
    permutations: p.permutations,
    minhashScheme: p.minhashScheme,
    bands,
    rows,
    maxMissRate: p.maxMissRate,
    lexicalThreshold: p.lexicalThreshold,
    structuralThreshold: p.structuralThreshold,
    subtreeDepths: [...p.subtreeDepths].sort((a, b) => a - b),
    apiRoots: [...p.apiRoots].sort(),
    keptNames: [...p.keptNames].sort(),
    nearestCount: p.nearestCount,
    prefilterSigmas: p.prefilterSigmas,
    bigBucket: p.bigBucket,
  };
}

export function lshFigures(p: DedupParams): { sCurveThreshold: number; recallAtThreshold: number } {
  const t = Math.min(p.lexicalThreshold, p.structuralThreshold);
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    sCurveThreshold: r4(sCurveThreshold(p.bands, p.rows)),
    recallAtThreshold: r4(candidateProbability(t, p.bands, p.rows)),
  };
}
