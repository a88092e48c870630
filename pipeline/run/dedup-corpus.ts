// `nnblocks dedup`: de-duplication of the whole corpus without writing a catalog. With `validated`, blocks are
// validated first (cached) so architectures of those that build are compared too. The same caches as a build's.
import type { DedupResult } from '../dedup/types.ts';
import { dedupParallel } from '../dedup/parallel.ts';
import type { DedupItem } from '../dedup/types.ts';
import { buildPartial } from './build.ts';
import { dedupItemsOf, dedupSubjectOf } from './dedup-items.ts';
import { runExtraction } from './extract-step.ts';
import { dedupStores } from './kv-store.ts';
import { prepare, type RunContext } from './prepare.ts';
import { selectBlocks } from './select.ts';

export async function dedupCorpus(ctx: RunContext, opts: { validated?: boolean } = {}): Promise<DedupResult> {
  const stores = dedupStores(ctx.store);
  let items: DedupItem[];
  if (opts.validated) {
    items = (await buildPartial(ctx, { outDir: '' })).partial.dedupItems;
  } else {
    const p = await prepare(ctx);
    const blocks = selectBlocks(p.discovered.blocks);
    const snapshots = new Map(p.snapshots.map((s) => [s.id, s]));
    const extracted = runExtraction(ctx, p, blocks, { outDir: '', write: false });
    const subjects = blocks.flatMap((b, i) => dedupSubjectOf(b, snapshots.get(b.sourceId)!, extracted[i], null) ?? []);
    items = await dedupItemsOf(subjects, { ...stores.caches, params: ctx.config.dedup ?? {} });
  }
  const result = await dedupParallel(items, ctx.config.dedup ?? {}, { caches: stores.caches });
  stores.flush();
  return result;
}
