// Builds one block's neutral spec (blocks/<slug>.json) from the stage records: interface facts, composition,
// dependencies, validation, de-duplication, provenance and citation. No function bodies, docstrings or comments.
import type { ExtractedBlock } from '../assemble/extract.ts';
import type { BlockDedup, ModuleTreeNode } from '../dedup/types.ts';
import type { Block } from '../discover/discover.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { ClassFact } from '../parse/facts.ts';
import type { SourceSnapshot } from '../sources/types.ts';
import type { Composition } from '../contract/block-facts.ts';
import type { BlockSpec, DedupRecord } from '../contract/block.ts';
import type { UsedBy } from '../contract/used-by.ts';
import type { ValidationRecord } from '../contract/validation.ts';
import { capText, isTypeName } from '../contract/rules.ts';
import { CATALOG_FORMAT_VERSION, RUN_LIMITS } from '../contract/vocabulary.ts';
import { classify } from './classify.ts';
import { blockPapers, type SourcePapers } from './papers.ts';
import { taxonomy } from './taxonomy.ts';
import type { StructureFacts } from './structure/reader.ts';
import { interfaceOf } from './interface.ts';
import { publishedTree } from './module-tree.ts';
import { dependencySources } from './license-mix.ts';
import { citationOf } from './citation.ts';
import { licenseOf, provenanceOf } from './provenance.ts';

export interface SpecInput {
  block: Block;
  slug: string;
  mod: IndexedModule;
  /** The block's class, then its internal bases nearest first. */
  classes: ClassFact[];
  snapshot: SourceSnapshot;
  /** Every source's snapshot by id: the licenses of other sources whose definitions the block holds. */
  sources?: ReadonlyMap<string, SourceSnapshot>;
  extracted?: ExtractedBlock;
  validation?: ValidationRecord;
  dedup?: BlockDedup;
  /** Where the corpus builds the block (`usedByOf`, used-by.ts). */
  usedBy?: UsedBy[];
  /** The module tree validation built (absent when it never built): published as `composition.tree`. */
  tree?: ModuleTreeNode;
  /** Diagnostics recorded for this block by any stage. */
  diagnostics: Diagnostic[];
  /**
   * Paper ids the block's code names, by evidence (`classPapers`, `builderPapers` in papers.ts): ids only, never the
   * text.
   */
  sourcePapers?: SourcePapers;
  /** The block's static structure (structure/reader.ts): what structural taxonomy and category rules read. */
  structure?: StructureFacts;
}

/** Layer constructors named in the class body (`nn.Conv2d(`): the static composition when validation didn't build it. */
export function staticLayers(classText: string): { type: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const m of classText.matchAll(/\bnn\.([A-Z][A-Za-z0-9_]*)\s*\(/g)) {
    const t = `torch.nn.${m[1]}`;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => (a.type < b.type ? -1 : 1));
}

export function dedupRecord(d: BlockDedup): DedupRecord {
  return {
    exactGroup: d.exactGroup === d.id ? null : d.exactGroup,
    lexicalCluster: d.lexicalCluster === d.id ? null : d.lexicalCluster,
    structuralCluster: d.structuralCluster === d.id ? null : d.structuralCluster,
    archHash: d.archHash,
    nearest: d.nearest.slice(0, 10),
    unique: {
      exact: d.unique.exact,
      lexical: d.unique.lexical,
      structural: d.unique.structural,
      architecture: d.unique.architecture ?? false,
    },
  };
}

/**
 * The composition as published. Layer types from a validation run are the built module's own report (class
 * `__module__` + `__qualname__`), as hostile as the code that ran: anything that is not a dotted Python name
 * (TYPE_NAME_PATTERN: a path, a command line, file contents) is dropped here, and the schema refuses it too.
 */
export function publishedComposition(c: Composition): { composition: Composition; dropped: number } {
  const kept = c.layers.filter((l) => isTypeName(l.type) && Number.isSafeInteger(l.count) && l.count >= 1);
  const layers = kept.slice(0, RUN_LIMITS.layerTypes);
  return { composition: { layers, from: c.from }, dropped: c.layers.length - layers.length };
}

/** A validation record with the run's free text capped (the schema's maxLength), a reason's type a dotted name. */
function publishedValidation(v: ValidationRecord): ValidationRecord {
  const out = { ...v };
  if (v.failureDetail !== undefined) out.failureDetail = capText(v.failureDetail, RUN_LIMITS.detailChars);
  if (v.reason)
    out.reason = {
      ...v.reason,
      exceptionType: isTypeName(v.reason.exceptionType) ? v.reason.exceptionType : null,
      message: capText(v.reason.message, RUN_LIMITS.detailChars),
    };
  return out;
}

export function blockSpec(input: SpecInput, reported: Composition): BlockSpec {
  const { block, mod, snapshot } = input;
  const { composition, dropped } = publishedComposition(reported);
  const diagnostics = [...input.diagnostics];
  if (dropped > 0) {
    // Counted, never quoted: the dropped names are what must not be published.
    diagnostics.push({
      code: 'layer-types-dropped',
      severity: 'warning',
      stage: 'catalog',
      message: `${dropped} layer type name(s) reported by the built module were not dotted Python names (or past the cap of ${RUN_LIMITS.layerTypes}) and were left out of the composition`,
    });
  }
  const iface = interfaceOf(input.classes, block.baseChain);
  const layers = composition.layers.map((l) => l.type);
  const tax = taxonomy();
  const {
    kind,
    kindRule,
    methods,
    categories,
    categoryRules: rules,
  } = classify({
    name: block.name,
    module: block.module,
    bases: block.baseChain,
    layers,
    params: iface.constructorParams.map((p) => p.name),
    ...(input.tree ? { children: input.tree.children } : {}),
    ...(input.structure ? { structure: input.structure } : {}),
  });
  const papers = blockPapers(
    input.sourcePapers ?? {},
    methods.map((m) => m.slug),
    tax,
  );
  const provenance = provenanceOf({
    snapshot,
    // Installed distributions keep the repository's layout under site-packages (`torchvision/ops/misc.py`).
    path: block.path,
    lines: [block.span.startLine, block.span.endLine],
    blobSha1: mod.blob,
    sha256: mod.sha256,
  });
  const definitions = input.extracted?.definitions ?? [];
  const internal = definitions
    .filter((d) => !(d.sourceId === block.sourceId && d.module === block.module && d.lines[0] === block.span.startLine))
    .map((d) => ({ qualname: d.name, module: d.module, path: d.path, lines: d.lines, source: d.sourceId }))
    .sort((a, b) =>
      a.module < b.module
        ? -1
        : a.module > b.module
          ? 1
          : a.qualname < b.qualname
            ? -1
            : a.qualname > b.qualname
              ? 1
              : 0,
    );
  const distributions = (input.extracted?.entry.requires ?? [])
    .map((r) => ({ name: r.name, version: r.version ?? 'unknown' }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const spec: BlockSpec = {
    formatVersion: CATALOG_FORMAT_VERSION,
    id: block.id,
    slug: input.slug,
    name: block.name,
    qualname: block.qualname,
    module: block.module,
    sourceId: block.sourceId,
    kind,
    kindRule,
    categories,
    categoryRules: rules,
    ...(methods.length ? { methods } : {}),
    ...(papers.length ? { papers } : {}),
    interface: iface,
    composition,
    dependencies: {
      internal,
      distributions,
      sources: dependencySources(
        block.sourceId,
        definitions.map((d) => d.sourceId),
        (id) => {
          const snap = id === snapshot.id ? snapshot : input.sources?.get(id);
          return snap ? licenseOf(snap).spdx : 'NOASSERTION';
        },
      ),
    },
    provenance,
    citation: citationOf({
      id: block.id,
      name: block.name,
      module: block.module,
      sourceId: block.sourceId,
      provenance,
    }),
    diagnostics: diagnostics.sort((a, b) =>
      a.stage < b.stage ? -1 : a.stage > b.stage ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
    ),
  };
  const tree = input.tree ? publishedTree(input.tree) : null;
  if (tree) spec.composition = { ...spec.composition, tree };
  if (input.validation) spec.validation = publishedValidation(input.validation);
  if (input.dedup) spec.dedup = dedupRecord(input.dedup);
  if (input.usedBy) spec.usedBy = input.usedBy;
  return spec;
}

/** A URL- and file-safe slug per id; on a case-folding collision, a short hash of the id keeps them apart. */
export function slugsFor(ids: string[], hash: (s: string) => string): Map<string, string> {
  const base = (id: string) =>
    id
      .toLowerCase()
      .replace(/:/g, '.')
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 180) || 'block';
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(base(id), (counts.get(base(id)) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const id of [...ids].sort()) {
    const b = base(id);
    out.set(id, counts.get(b)! > 1 ? `${b}-${hash(id).slice(0, 8)}` : b);
  }
  return out;
}
