// Statements that fill what a needed statement binds without rebinding it: a registry filled elsewhere in its
// module comes with the registry, and one filled by a module that imports it comes whenever that module's code is
// emitted (docs/resolve.md, "Registries and dict literals").
import type { IndexedModule } from '../index/types.ts';
import type { TopStatement } from '../parse/facts.ts';
import type { Program } from './program.ts';

/**
 * Indices of the statements of `mod` (other than `stmt`) that mutate a name `stmt` binds: `MODELS['x'] = X`,
 * `MODELS.update(...)`, `MODELS.register_module(module=nn.ReLU)`, and loops that mutate it through their variable.
 * A statement mutates the binding before it (docs/resolve.md, "Names bound several times"):
 *   cfgs = {...}                                      # filled by the loop
 *   for n in quick: cfgs[n + '_q'] = cfgs[n]
 *   cfgs = generate_default_cfgs(cfgs)                # not filled: it reads the filled dict
 * A statement before any binding mutates the last one (what a function it calls would see).
 * A definition that registers itself through its decorator is not one of them: it comes when something reaches
 * it by name, else the registry is needed but not everything ever registered in it.
 *   HEADS = Registry('heads')
 *   @HEADS.register()                 # needs HEADS; HEADS does not need StandardHead
 *   class StandardHead(nn.Module): ...
 */
export function fillers(program: Program, mod: IndexedModule, stmt: number): number[] {
  const binds = mod.facts.statements[stmt].binds;
  const mine = (n: string, at: number) => binds.includes(n) && bindingAt(program, mod, n, at) === stmt;
  const out: number[] = [];
  for (const other of mod.facts.statements) {
    if (other.index === stmt || other.mutates.length === 0) continue;
    if (other.kind === 'class' || other.kind === 'function') continue;
    if (other.mutates.some((n) => mine(n, other.index)) || mutatesThroughLoop(program, mod, other, mine))
      out.push(other.index);
  }
  return out;
}

/**
 * Indices of the statements of `mod` that fill an object `mod` imports from another module, when `needed` says
 * that object is in the closure. Upstream they run whenever `mod` is imported, which any statement of `mod` in
 * the closure implies: what the block reads of `mod` counts on them having run.
 *   from mmengine.registry import MODELS                  # mmcv/cnn/bricks/conv.py
 *   MODELS.register_module('Conv2d', module=nn.Conv2d)    # comes with build_conv_layer, which looks 'Conv2d' up
 *   def build_conv_layer(cfg, *args): return MODELS.get(cfg['type'])(*args)
 * As in the registry's own module, a definition that registers itself through its decorator is not one of them,
 * nor is a statement that defines anything (a class registered under an `if`); a loop over classes is.
 */
export function importedFillers(mod: IndexedModule, needed: (name: string) => boolean): number[] {
  const out: number[] = [];
  for (const other of mod.facts.statements) {
    // A statement that defines something (`if IS_MLU: @MODELS.register_module() class DCN_MLU`) comes only when
    // what it defines is reached, as a self-registering definition does; a loop binds only its variable.
    if (other.mutates.length === 0 || (other.binds.length > 0 && other.kind !== 'for')) continue;
    if (other.mutates.some((n) => !other.binds.includes(n) && needed(n))) out.push(other.index);
  }
  return out;
}

/**
 * A module-level loop that mutates its own loop variable mutates each object it iterates over: when one of them
 * is needed, the loop comes too. The container may be read directly or through a module-level tuple or list.
 *   _ACT_LAYERS = (_ACT_LAYER_ME, _ACT_LAYER_DEFAULT)       # timm create_act.py
 *   for a in _ACT_LAYERS:
 *       a.setdefault('hardswish', a.get('hard_swish'))     # get_act_layer('hardswish') needs this loop
 */
function mutatesThroughLoop(
  program: Program,
  mod: IndexedModule,
  loop: TopStatement,
  mine: (n: string, at: number) => boolean,
): boolean {
  if (loop.kind !== 'for' || !loop.mutates.some((n) => loop.binds.includes(n))) return false;
  return loop.eager.some((r) => {
    if (mine(r.name, loop.index)) return true;
    const at = bindingAt(program, mod, r.name, loop.index);
    const holder = at >= 0 ? mod.facts.statements[at] : undefined;
    return holder?.kind === 'assign' && holder.eager.some((h) => mine(h.name, at));
  });
}

/** The statement whose binding of `name` statement `at` sees when it runs: the one before it, else the last. */
function bindingAt(program: Program, mod: IndexedModule, name: string, at: number): number {
  const before = program.bindingBefore(mod, name, at);
  return before >= 0 ? before : program.lastBinding(mod, name);
}
