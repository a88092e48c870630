// "Unique architectures", defined once for every page that shows the figure (two definitions once disagreed: the
// home page said 102 where the stats page's de-duplication table read 149). It is `stats.unique.architecture`: blocks validation built
// (so they have an architecture hash) that represent their architecture cluster — one per distinct built module
// tree. The de-duplication table's last row counts something else: blocks left after all four levels, where a block
// that never built stays in on the strength of its code; pages say so beside it (stats page).
import type { StatsFile } from './catalog.ts';

/** Distinct architectures among the blocks that built; null when de-duplication did not run. */
export function uniqueArchitectures(stats: StatsFile): number | null {
  return stats.unique ? stats.unique.architecture : null;
}
