// The usage index kept between runs. Usage is a function of the whole corpus (a call anywhere may build any block),
// so what is kept per block is valid for one corpus only: the fingerprint of every module (its place, import name
// and blob) and of the code that mines it. A warm run of an unchanged corpus reads each block's usage instead of
// mining the corpus again (7 of the 62 seconds of a warm run of the paper's corpus); a run after any change mines
// it once and keeps the new answers, replacing the old ones block by block.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Block } from '../discover/discover.ts';
import { sha256 } from '../index/hash.ts';
import type { Program } from '../resolve/program.ts';
import { codeVersion } from '../util/code-version.ts';
import { buildUsageIndex, type UsageIndex } from './usage-index.ts';
import type { BlockUsage, PartBuilder } from './types.ts';

/** A keyed store of strings (a namespace of the index's kv table). */
export interface UsageStore {
  get(key: string): string | undefined;
  put(key: string, value: string): void;
}

/** An answer as kept: the corpus it was mined from, and the answer. */
interface Kept<T> {
  corpus: string;
  value: T;
}

/** The code whose output usage is: mining, resolution, the facts it reads and block discovery. */
function usageVersion(): string {
  const pipeline = join(dirname(fileURLToPath(import.meta.url)), '..');
  return codeVersion(['usage', 'resolve', 'parse', 'discover', 'index'].map((d) => join(pipeline, d)));
}

/** The fingerprint of the corpus usage is mined from: every module and every block, in order. */
export function corpusFingerprint(program: Program, blocks: Block[]): string {
  const modules = program.modules.map((m) => [
    m.sourceId,
    m.path,
    m.module,
    m.isPackage,
    m.discover,
    !!m.config,
    m.blob,
  ]);
  return sha256(JSON.stringify([usageVersion(), modules, blocks.map((b) => b.id)]));
}

/**
 * A usage index that answers from `store` where it holds this corpus's answer for a block, and mines the corpus
 * (once, on the first miss) otherwise, keeping what it mined. Each answer is kept apart (`usage:` and `parts:`):
 * part builders are found only for the commands that ask for them.
 */
export function cachedUsageIndex(program: Program, blocks: Block[], store: UsageStore): UsageIndex {
  const corpus = corpusFingerprint(program, blocks);
  const ids = new Set(blocks.map((b) => b.id));
  let mined: UsageIndex | undefined;
  const mine = () => (mined ??= buildUsageIndex(program, blocks));
  const answer = <T>(kind: 'usage' | 'parts', compute: (id: string) => T) => {
    const memo = new Map<string, T>();
    return (id: string): T => {
      if (!ids.has(id)) return compute(id);
      const known = memo.get(id);
      if (known !== undefined) return known;
      const raw = tryStore(() => store.get(`${kind}:${id}`));
      const kept = raw ? (JSON.parse(raw) as Kept<T>) : undefined;
      let value: T;
      if (kept?.corpus === corpus) value = kept.value;
      else {
        value = compute(id);
        tryStore(() => store.put(`${kind}:${id}`, JSON.stringify({ corpus, value })));
      }
      memo.set(id, value);
      return value;
    };
  };
  return {
    usageOf: answer<BlockUsage>('usage', (id) => mine().usageOf(id)),
    partBuilders: answer<PartBuilder[]>('parts', (id) => mine().partBuilders(id)),
    release: () => {
      mined = undefined;
    },
  };
}

/**
 * A store that cannot be read or written (its database closed by a command done with the index) only costs the
 * reuse: usage is mined as without one.
 */
function tryStore<T>(use: () => T): T | undefined {
  try {
    return use();
  } catch {
    return undefined;
  }
}
