// What a block is, in the catalog's words: its kind, the taxonomy methods it implements and its categories, each
// with the rule that decided it. One function for the build (block-spec.ts) and for measuring the rules on a corpus
// without building it (test/bench/taxonomy.bench.ts), so what is measured is what is published.
import type { CategoryHit, MethodHit } from '../contract/block.ts';
import type { BlockKind, Category } from '../contract/vocabulary.ts';
import { categorize } from './category.ts';
import { kindOf } from './kind.ts';
import type { ChildFact } from './roles.ts';
import type { StructureFacts } from './structure/reader.ts';
import { matchMethods, taxonomy } from './taxonomy.ts';

export interface ClassifyInput {
  name: string;
  module: string;
  /** Qualified base chain, nearest first. */
  bases: string[];
  /** Layer types (validation's module tree, else the static `nn.X(` reading). */
  layers: string[];
  /** Constructor parameter names. */
  params: string[];
  /** The built module's direct children, when validation built it. */
  children?: ChildFact[];
  /** The static structure (structure/reader.ts). */
  structure?: StructureFacts;
}

export interface Classified {
  kind: BlockKind;
  kindRule: string;
  methods: MethodHit[];
  categories: Category[];
  categoryRules: CategoryHit[];
}

export function classify(b: ClassifyInput): Classified {
  const kind = kindOf({ name: b.name, module: b.module, bases: b.bases });
  const tax = taxonomy();
  // Transforms and losses implement no network method, whatever their names say.
  const methods =
    kind.kind === 'block'
      ? matchMethods({
          name: b.name,
          module: b.module,
          bases: b.bases,
          layers: b.layers,
          // Structure (a pre-norm attention + MLP block named `Block`): the built module's own children when it
          // built, and the static reading of __init__ and forward (roles, data-flow features).
          ...(b.children ? { children: b.children } : {}),
          ...(b.structure ? { structure: b.structure } : {}),
        })
      : [];
  const { categories, rules } = categorize({
    name: b.name,
    bases: b.bases,
    layers: b.layers,
    kind: kind.kind,
    ...(b.structure ? { structure: b.structure } : {}),
    params: b.params,
    methods: methods.map((m) => ({ slug: m.slug, categories: tax.methods.find((x) => x.slug === m.slug)!.categories })),
  });
  return { kind: kind.kind, kindRule: kind.rule, methods, categories, categoryRules: rules };
}
