// Which blocks a command works on: the one filter behind `blocks --filter`, `extract NAMES`, `validate --only`,
// `--source` and `build --shard`, so every command reads a name pattern the same way.
import type { Block } from '../discover/discover.ts';
import { matchesBlock } from '../discover/symbols.ts';
import { shardOf } from './shard.ts';

export interface BlockSelection {
  /** Names, qualified names, dotted paths or ids; globs allowed (see discover/symbols.ts). */
  names?: string[];
  /** Only this source's blocks. */
  source?: string;
  /** Abstract blocks (no concrete forward) are left out unless named or asked for. */
  abstract?: boolean;
  /** Only shard K of N (a hash of the id, see shard.ts). */
  shard?: { k: number; n: number };
}

export function selectBlocks(blocks: Block[], sel: BlockSelection = {}): Block[] {
  const names = sel.names?.filter(Boolean) ?? [];
  return blocks.filter(
    (b) =>
      (!b.abstract || sel.abstract || names.length > 0) &&
      (!sel.source || b.sourceId === sel.source) &&
      (names.length === 0 || matchesBlock(names, b)) &&
      (!sel.shard || shardOf(b.id, sel.shard.n) === sel.shard.k),
  );
}
