// What de-duplication reads per block: its own assembled code (without the header and imports that every
// extracted module shares) and, when it built, its module tree. Built in one place for `build` and `dedup`.
import type { ExtractedBlock } from '../assemble/extract.ts';
import { ownCode } from '../dedup/own-code.ts';
import type { ModuleTreeNode, DedupItem } from '../dedup/types.ts';
import type { Block } from '../discover/discover.ts';
import type { SourceSnapshot } from '../sources/types.ts';

export function dedupItemOf(
  block: Block,
  snapshot: SourceSnapshot,
  extracted: ExtractedBlock | undefined,
  validation: { passed: boolean; tree: ModuleTreeNode | null } | null,
): DedupItem | null {
  if (!extracted?.code) return null;
  return {
    id: block.id,
    sourceId: block.sourceId,
    path: block.path,
    priority: snapshot.priority,
    validated: validation?.passed ?? false,
    code: ownCode(extracted.coreCode ?? extracted.code),
    moduleTree: validation?.tree ?? null,
  };
}
