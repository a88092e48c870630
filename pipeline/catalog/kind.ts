// What a class is: a network block, a data transform or a loss. Transforms (augmentation, preprocessing) and
// losses subclass nn.Module like blocks do, but nobody builds a network out of them, so the catalog lists them apart.
// The first rule that fires wins; its id is recorded on the block (`kindRule`). Table in docs/catalog.md ("Kinds").
import type { BlockKind } from '../contract/vocabulary.ts';

export interface KindInput {
  name: string;
  /** Dotted module (`torchvision.transforms.transforms`). */
  module: string;
  /** Qualified base chain, nearest first. */
  bases: string[];
}

interface KindRule {
  id: string;
  kind: BlockKind;
  description: string;
  test: (b: KindInput) => boolean;
}

/**
 * A module segment `transforms`, `_transforms_video`, `transforms_v2`: the plural only, because detection models keep
 * their in-model preprocessing in `transform` (`torchvision.models.detection.transform.GeneralizedRCNNTransform` is
 * part of the network).
 */
const TRANSFORMS_SEGMENT = /(^|\.)_?transforms(_\w+)?(\.|$)/;

export const KIND_RULES: KindRule[] = [
  {
    id: 'base:loss',
    kind: 'loss',
    description: 'a base is a torch loss (`_Loss`, `_WeightedLoss`, `*Loss`)',
    test: (b) => b.bases.some((x) => /(^|\.)_?\w*Loss$/.test(x)),
  },
  {
    id: 'name:loss',
    kind: 'loss',
    description: 'name contains Loss or Criterion',
    test: (b) => /Loss|Criterion/.test(b.name),
  },
  {
    id: 'module:transforms',
    kind: 'transform',
    description: 'defined in a `transforms` module (`torchvision.transforms.transforms`, `_transforms_video`)',
    test: (b) => TRANSFORMS_SEGMENT.test(b.module),
  },
  {
    id: 'base:transform',
    kind: 'transform',
    description: 'a base is defined in a `transforms` module',
    test: (b) => b.bases.some((x) => TRANSFORMS_SEGMENT.test(x.slice(0, Math.max(0, x.lastIndexOf('.'))))),
  },
  {
    id: 'name:augmentation',
    kind: 'transform',
    description: 'name is an augmentation policy (`AutoAugment`, `RandAugment`, `AugMix`, `ColorJitter`)',
    test: (b) => /^\w*(AutoAugment|RandAugment|AugMix|TrivialAugment\w*|ColorJitter)$/.test(b.name),
  },
  { id: 'default', kind: 'block', description: 'no rule above fired: a network block', test: () => true },
];

export function kindOf(b: KindInput): { kind: BlockKind; rule: string } {
  const r = KIND_RULES.find((x) => x.test(b))!;
  return { kind: r.kind, rule: r.id };
}

/** The rule table for docs/catalog.md ("Kinds"); a test keeps it in sync. */
export function kindRulesMarkdown(): string {
  const rows = KIND_RULES.map((r, i) => `| ${i + 1} | \`${r.id}\` | ${r.kind} | ${r.description} |`);
  return ['| # | rule | kind | fires when |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
