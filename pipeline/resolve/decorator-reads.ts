// Module-level bindings a decorator reads off the decorated definition's own module object, by attribute: they come
// with the definition (docs/resolve.md, "Decorators that read their module"). timm registers its model functions so:
//   def register_model(fn):
//       mod = sys.modules[fn.__module__]
//       if hasattr(mod, 'default_cfgs') and model_name in mod.default_cfgs: ...   # reads resnet.py's default_cfgs
//   default_cfgs = generate_default_cfgs({'resnet50.a1_in1k': _rcfg(...), ...})    # resnet.py: comes too
//   @register_model
//   def resnet50(pretrained=False, **kwargs): ...
// Without it the emitted module registers `resnet50` with no pretrained configuration, and a variant whose
// configuration comes from it (`vit_tiny_patch16_384`'s 384 pixels) builds at the class defaults.
import type { IndexedModule } from '../index/types.ts';
import type { Lookup } from './lookup.ts';
import type { Program } from './program.ts';

/**
 * Indices of `mod`'s assignment statements binding a name that a decorator of statement `stmt` reads as an
 * attribute, when that decorator takes a module object from `sys.modules` (only then is the read of *this* module).
 */
export function decoratorModuleReads(program: Program, lookup: Lookup, mod: IndexedModule, stmt: number): number[] {
  const facts = mod.facts;
  const st = facts.statements[stmt];
  if (st.kind !== 'function' && st.kind !== 'class') return [];
  const decorators = [
    ...facts.functions.filter((f) => f.statementIndex === stmt).flatMap((f) => f.decorators),
    ...facts.classes.filter((c) => c.statementIndex === stmt).flatMap((c) => c.decorators),
  ];
  const out = new Set<number>();
  for (const d of decorators) {
    const name = d.replace(/\s*\([\s\S]*$/, '').trim();
    if (!/^[\p{XID_Start}_][\p{XID_Continue}.]*$/u.test(name)) continue;
    const t = lookup.dotted(mod, name);
    if (t.kind !== 'def') continue;
    const def = t.mod.facts.statements[t.stmt];
    const readsModules = [...def.eager, ...def.deferred].some(
      (r) => r.name === 'sys' && r.occurrences.some((o) => o.attrs[0] === 'modules'),
    );
    if (!readsModules) continue;
    for (const attr of def.attrReads?.names ?? []) {
      if (attr.startsWith('__')) continue;
      const i = program.lastBinding(mod, attr);
      if (i >= 0 && i !== stmt && facts.statements[i]?.kind === 'assign') out.add(i);
    }
  }
  return [...out].sort((a, b) => a - b);
}
