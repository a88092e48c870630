// Which entries of a module-level dict literal a closure needs. A dict that every needed reference reads with a
// literal key contributes only those entries (and what they read); any other read (a computed key, `in`,
// iteration, `.items()`, passing the dict on) needs it whole. docs/resolve.md, "Registries and dict literals".
//   CFGS = dict(tiny=Cfg(depth=2), huge=Cfg(depth=48, attn=HugeAttention))
//   class Block(nn.Module):
//       def __init__(self, cfg=CFGS['tiny']): ...       # only `tiny=Cfg(depth=2)` is needed: HugeAttention is not
import type { DictFact, NameOccurrence } from '../parse/facts.ts';

interface Use {
  all: boolean;
  keys: Set<string>;
  /** Entries whose reads were followed. */
  done: Set<number>;
  /** The statement was visited (its reads outside the entries followed). */
  visited: boolean;
}

export class DictUses {
  private readonly uses = new Map<string, Use>();

  /**
   * Records a read of the dict bound by statement `key`: with these literal keys, or whole (null). Returns true
   * when the statement was visited already and now needs entries it left out (so it must be visited again).
   */
  read(key: string, fact: DictFact, keys: string[] | null): boolean {
    let u = this.uses.get(key);
    if (!u) this.uses.set(key, (u = { all: false, keys: new Set(), done: new Set(), visited: false }));
    const before = u.all ? -1 : u.keys.size;
    if (keys === null) u.all = true;
    else for (const k of keys) u.keys.add(k);
    const grew = u.all ? before !== -1 : u.keys.size !== before;
    return grew && u.visited && fact.entries.some((e, i) => !u.done.has(i) && this.wanted(u, e.key));
  }

  /**
   * A visit of the statement: which occurrences' reads to follow now (those in entries newly needed, and those
   * outside every entry on the first visit), marking them followed.
   */
  visit(key: string, fact: DictFact): (occ: NameOccurrence) => boolean {
    let u = this.uses.get(key);
    if (!u) this.uses.set(key, (u = { all: true, keys: new Set(), done: new Set(), visited: false }));
    const first = !u.visited;
    u.visited = true;
    const now = new Set<number>();
    fact.entries.forEach((e, i) => {
      if (!u.done.has(i) && this.wanted(u, e.key)) now.add(i);
    });
    for (const i of now) u.done.add(i);
    return (occ) => {
      const i = entryAt(fact, occ.startByte);
      return i < 0 ? first : now.has(i);
    };
  }

  /** Indices of the entries to emit, or undefined when the dict is emitted whole. */
  kept(key: string, fact: DictFact): Set<number> | undefined {
    const u = this.uses.get(key);
    if (!u || u.all) return undefined;
    return new Set(fact.entries.map((_, i) => i).filter((i) => this.wanted(u, fact.entries[i].key)));
  }

  private wanted(u: Use, key: string | null): boolean {
    return u.all || key === null || u.keys.has(key);
  }
}

/** Index of the entry whose span holds `byte`, or -1 (binary search: entries are in source order). */
function entryAt(fact: DictFact, byte: number): number {
  let lo = 0;
  let hi = fact.entries.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const e = fact.entries[mid];
    if (byte < e.startByte) hi = mid - 1;
    else if (byte >= e.endByte) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** The literal keys of these reads, or null when one of them is not a literal-key read. */
export function literalKeys(occurrences: NameOccurrence[]): string[] | null {
  const keys: string[] = [];
  for (const o of occurrences) {
    if (o.key === undefined) return null;
    keys.push(o.key);
  }
  return keys;
}
