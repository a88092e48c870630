// What a block page hands Pagefind beyond its visible text (docs/site.md, "Search"): the names it is searched by
// (its own name, whole, and the synonyms of pipeline/util/data/synonyms.json), the facts a result shows (module
// path, status, parameter count) and the sort keys. Pure, so the ranking inputs are testable without a build.
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import { blockSynonyms } from '../../pipeline/util/synonyms.ts';

export interface SearchRecord {
  /** Indexed at a high weight: the exact name (one word, however the heading breaks it) and its own synonyms. */
  names: string[];
  /** Indexed at a low weight: synonyms of its layers (an MBConv holds a SqueezeExcitation). */
  parts: string[];
  /** Pagefind metadata, shown on each result so that same-named blocks can be told apart. */
  meta: { module: string; status: string; params: string };
  /** Pagefind sort keys: both directions keep every block, those without a count last. */
  sort: { params: number; paramsAsc: number };
}

/** Sort value for blocks without a count in the ascending order: above any real count. */
const NO_COUNT_LAST = 1e15;

/** What the taxonomy says about a block (methods.json): its methods' names and aliases, its papers' titles. */
export interface TaxonomyTerms {
  methods: { name: string; aliases: string[] }[];
  paperTitles: string[];
}

export function searchRecord(
  spec: BlockSpec,
  taxonomy: TaxonomyTerms = { methods: [], paperTitles: [] },
): SearchRecord {
  const v = spec.validation;
  // A count is published only for a block that passed, and only if it is a count (run values are untrusted).
  const params =
    v?.status === 'passed' && typeof v.params === 'number' && Number.isSafeInteger(v.params) && v.params >= 0
      ? v.params
      : null;
  const { own, parts } = blockSynonyms({ name: spec.name, layerTypes: spec.composition.layers.map((l) => l.type) });
  return {
    // The methods it implements are names it is searched by ("inverted residual", "MBConv"); paper titles are
    // words about it, at the low weight.
    names: [...new Set([spec.name, ...own, ...taxonomy.methods.flatMap((m) => [m.name, ...m.aliases])])],
    parts: [...new Set([...parts, ...taxonomy.paperTitles])],
    meta: {
      module: `${spec.module}.${spec.qualname}`,
      status: v?.status ?? 'unvalidated',
      params: params === null ? '' : String(params),
    },
    // Descending: count + 1, so a 0-parameter block still sorts above one without a count (0).
    sort: { params: params === null ? 0 : params + 1, paramsAsc: params ?? NO_COUNT_LAST },
  };
}
