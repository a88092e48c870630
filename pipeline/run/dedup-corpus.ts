// `nnblocks dedup`: de-duplication of the whole corpus without writing a catalog. With `validated`, blocks are
// validated first (cached) so architectures of those that build are compared too.
import type { DedupResult } from '../dedup/types.ts';
import { dedup } from '../dedup/dedup.ts';
import type { DedupItem } from '../dedup/types.ts';
import { buildPartial } from './build.ts';
import { dedupItemOf } from './dedup-items.ts';
import { runExtraction } from './extract-step.ts';
import { prepare, type RunContext } from './prepare.ts';
import { selectBlocks } from './select.ts';

export async function dedupCorpus(ctx: RunContext, opts: { validated?: boolean } = {}): Promise<DedupResult> {
  let items: DedupItem[];
  if (opts.validated) {
    items = (await buildPartial(ctx, { outDir: '' })).partial.dedupItems;
  } else {
    const p = await prepare(ctx);
    const blocks = selectBlocks(p.discovered.blocks);
    const snapshots = new Map(p.snapshots.map((s) => [s.id, s]));
    const extracted = runExtraction(ctx, p, blocks, { outDir: '', write: false });
    items = blocks
      .map((b, i) => dedupItemOf(b, snapshots.get(b.sourceId)!, extracted[i], null))
      .filter((x): x is DedupItem => x !== null);
  }
  return dedup(items, ctx.config.dedup ?? {});
}
