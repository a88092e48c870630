// Shards of a build (`nnblocks build --shard K/N`): which shard a block belongs to, and parsing `K/N`.
import { NnblocksError } from '../contract/diagnostics.ts';
import { sha256 } from '../index/hash.ts';

/**
 * Shard of a block: a hash of its id, so a block never moves when others are added or removed (stable as the
 * corpus grows) and shards get equal shares of blocks in expectation (cost per block is roughly even).
 */
export function shardOf(id: string, n: number): number {
  return (parseInt(sha256(id).slice(0, 8), 16) % n) + 1;
}

export function parseShard(text: string): { k: number; n: number } {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || k < 1 || k > n)
    throw new NnblocksError(
      `--shard ${text} is not K/N with 1 <= K <= N`,
      'build',
      'e.g. --shard 2/3 builds the second of three shards',
    );
  return { k, n };
}
