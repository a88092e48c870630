// Which of a block's builders validation builds it through (docs/validate.md, "Canonical configurations"): a
// bounded, deterministic set, since a model zoo registers hundreds of variants of one class (timm's ResNet has 97).
// The builders named like the class come first (`resnet18`, `resnet50` for ResNet: the name plus digits), then the
// smallest others by their static configuration. Two builders whose static configurations read the same may still
// build different models (torchvision's resnext50_32x4d sets `groups` in its body; timm's `vit_tiny_patch16_384`
// takes 384 pixels from its pretrained configuration): both are kept.
import type { LiteralValue } from '../contract/common.ts';
import type { BuilderFn, UsageArg, UsageValue } from './types.ts';

/** Builders named like the class, among those chosen. */
const MAX_NAMED = 4;

/** Sum of the magnitudes of the literal numbers a value holds: a width, a depth, a layer list. */
function magnitude(v: UsageValue | LiteralValue): number {
  if (typeof v === 'number') return Math.abs(v);
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + magnitude(x), 0);
  if (v === null || typeof v !== 'object') return 0;
  if (v.kind === 'literal') return magnitude(v.value);
  if (v.kind === 'list') return v.items.reduce((s, x) => s + magnitude(x), 0);
  return 0;
}

/** How big a model a builder's static configuration asks for: its literal arguments' numbers, summed. */
export function staticSize(args: UsageArg[]): number {
  return args.reduce((s, a) => s + magnitude(a.value), 0);
}

const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Up to `max` builders: those named like `className` (`resnet50` for `ResNet`), smallest first, at most MAX_NAMED;
 * then the others, smallest first; ties in source order. One per name.
 */
export function chooseBuilders(builders: BuilderFn[], className: string, max: number): BuilderFn[] {
  const cls = normal(className);
  const named = (f: BuilderFn) => {
    const n = normal(f.name);
    return n.startsWith(cls) && /^\d*$/.test(n.slice(cls.length));
  };
  const order = [...builders].sort(
    (a, b) => staticSize(a.args) - staticSize(b.args) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line),
  );
  const out: BuilderFn[] = [];
  const names = new Set<string>();
  const take = (f: BuilderFn) => {
    if (out.length >= max || names.has(f.name)) return;
    names.add(f.name);
    out.push(f);
  };
  for (const f of order.filter(named)) if (out.length < Math.min(MAX_NAMED, max)) take(f);
  for (const f of order) take(f);
  return out;
}
