// The search synonym table (data/synonyms.json): the other names readers search a block by ("se block" for
// SqueezeExcitation, "drop path" for StochasticDepth, "depthwise" for MBConv). The site adds a block's synonyms to its
// page as hidden, indexed text, so a static index finds them with no query-time logic. On the ground floor: imports
// no stage.
import table from './data/synonyms.json' with { type: 'json' };
import { nameKey } from './name-key.ts';

export interface SynonymGroup {
  /** Stable id, e.g. `squeeze-excitation`. */
  id: string;
  /** Interchangeable names of one idea: a block named by any of them gets all of them. */
  terms: string[];
  /**
   * Block names that are a kind of the idea (an MBConv is a depthwise block): they get its terms, but do not become
   * synonyms of each other (a search for "MBConv" must not find CNBlock).
   */
  instances: string[];
}

export interface BlockSynonyms {
  /** Terms of the groups the block itself belongs to, by its name: weighted high. */
  own: string[];
  /** Terms of the groups its layers belong to (an MBConv holds a SqueezeExcitation): weighted low. */
  parts: string[];
}

export function synonymGroups(): SynonymGroup[] {
  return table.groups;
}

function groupsNaming(name: string, groups: SynonymGroup[]): SynonymGroup[] {
  const key = nameKey(name);
  return groups.filter((g) => [...g.terms, ...g.instances].some((t) => nameKey(t) === key));
}

/**
 * A block's synonyms from its name and its layers' type names (`torchvision.ops.misc.SqueezeExcitation`: the last
 * segment counts). A term already among the block's own is not repeated in `parts`.
 */
export function blockSynonyms(
  block: { name: string; layerTypes: string[] },
  groups: SynonymGroup[] = synonymGroups(),
): BlockSynonyms {
  const own = [...new Set(groupsNaming(block.name, groups).flatMap((g) => g.terms))];
  const parts = new Set<string>();
  for (const type of block.layerTypes) {
    for (const g of groupsNaming(type.split('.').pop()!, groups)) for (const t of g.terms) parts.add(t);
  }
  return { own, parts: [...parts].filter((t) => !own.includes(t)) };
}
