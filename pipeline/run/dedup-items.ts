// What de-duplication reads per block: its own assembled code (without the header and imports that every
// extracted module shares) and, when it built, its module tree. Built in one place for `build` and `dedup`: a
// subject per assembled block first (the module's text and nothing else of the assembly, so the rest can go),
// then the own code of all of them at once, cut in worker threads, its spans kept in the index's kv table.
import type { ExtractedBlock } from '../assemble/extract.ts';
import type { KeyValueStore } from '../dedup/cache.ts';
import { ownCodes } from '../dedup/parallel.ts';
import type { DedupItem, DedupParams, ModuleTreeNode } from '../dedup/types.ts';
import type { Block } from '../discover/discover.ts';
import type { SourceSnapshot } from '../sources/types.ts';

/** A dedup item with the whole assembled module (without builders) where the item has the block's own code. */
export type DedupSubject = Omit<DedupItem, 'code'> & { assembled: string };

/** The subject of an assembled block; null for a block that was not assembled. */
export function dedupSubjectOf(
  block: Block,
  snapshot: SourceSnapshot,
  extracted: ExtractedBlock | undefined,
  validation: { passed: boolean; tree: ModuleTreeNode | null } | null,
): DedupSubject | null {
  if (!extracted?.hasCode) return null;
  return {
    id: block.id,
    sourceId: block.sourceId,
    path: block.path,
    priority: snapshot.priority,
    validated: validation?.passed ?? false,
    assembled: extracted.coreCode ?? extracted.code,
    moduleTree: validation?.tree ?? null,
  };
}

/**
 * The items of the subjects, in their order. `caches`: the own-code spans, and, with the dedup params, the
 * fingerprints that the same parse gives (parallel.ts `ownCodes`).
 */
export async function dedupItemsOf(
  subjects: DedupSubject[],
  caches: { ownSpans?: KeyValueStore; fingerprints?: KeyValueStore; params?: Partial<DedupParams> } = {},
): Promise<DedupItem[]> {
  const { ownSpans, fingerprints, params } = caches;
  const codes = await ownCodes(
    subjects.map((s) => s.assembled),
    { cache: ownSpans, ...(fingerprints ? { fingerprints: { cache: fingerprints, params } } : {}) },
  );
  return subjects.map((s, i) => ({
    id: s.id,
    sourceId: s.sourceId,
    path: s.path,
    priority: s.priority,
    validated: s.validated,
    code: codes[i],
    moduleTree: s.moduleTree,
  }));
}
