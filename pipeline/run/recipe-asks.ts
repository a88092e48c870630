// The registered names a block's recipes ask a registry for by string, so that the extract step assembles their
// registrations with the module it validates (resolve/registry-keys.ts). A detector configured by a config file,
// `ATSS(backbone=dict(type='ResNet', ...), neck=dict(type='FPN', ...))`, builds ResNet and FPN through its registry:
// the emitted module has them only if their registrations come with it.
import type { Block } from '../discover/discover.ts';
import type { UsageValue } from '../usage/types.ts';
import { configCandidates, MAX_CANONICAL } from '../validate/recipe-candidates.ts';
import type { Prepared } from './prepare.ts';

/**
 * The `type` of every config dict, nested ones too, in the config-file configurations validation tries for the
 * block (`configCandidates`) and in the config dicts of its construction sites; unscoped (`mmdet.ResNet` →
 * `ResNet`), sorted.
 */
export function recipeAsks(p: Prepared, block: Block): string[] {
  const usage = p.usage().usageOf(block.id);
  const out = new Set<string>();
  const add = (type: string) => out.add(type.split('.').pop()!);
  const fromConfig = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(fromConfig);
    else if (v !== null && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.type === 'string') add(o.type);
      Object.values(o).forEach(fromConfig);
    }
  };
  for (const c of configCandidates(usage.configs, MAX_CANONICAL)) fromConfig(c.kwargs);
  const fromUsage = (v: UsageValue): void => {
    if (v.kind === 'list') v.items.forEach(fromUsage);
    if (v.kind !== 'config') return;
    add(v.type);
    v.args.forEach((a) => fromUsage(a.value));
  };
  for (const s of usage.constructions) s.args.forEach((a) => fromUsage(a.value));
  return [...out].sort();
}
