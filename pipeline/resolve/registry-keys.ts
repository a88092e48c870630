// Registered names a block's code asks a registry for by string, and the statements that register them
// (docs/resolve.md, "Registered names asked for by string"). OpenMMLab code builds its layers from config dicts:
//   norm_cfg=dict(type='BN')                                   # mmpretrain levit.py: asks for 'BN'
//   layer = MODELS.get(cfg['type'])(...)                       # finds it only once something registered it
//   MODELS.register_module('BN', module=nn.BatchNorm2d)        # mmcv norm.py, a module the block never imports
//   @MODELS.register_module()  class DropPath(nn.Module): ...  # mmcv drop.py, registered under its class name
// Upstream, importing the package ran every registration; the emitted module holds only what its code reads by
// name, so the registration of each name asked for comes with the block: only one that fills a registry the
// closure already holds (what a registry the block uses can see), so a name registered in an unrelated package's
// registry never comes.
import type { IndexedModule } from '../index/types.ts';
import type { TopStatement } from '../parse/facts.ts';
import type { Program } from './program.ts';

/** A statement registering a name: a class with a registering decorator, or a registering call or loop. */
export interface RegistrationSite {
  mod: IndexedModule;
  stmt: number;
  /** The registry the statement fills, as it is written there (`MODELS`, `mmengine.MODELS`). */
  receiver: string;
  /** The class the statement defines and registers (a decorator), else undefined. */
  className?: string;
}

/** At most this many registrations come for one name (the same name in several registries the closure holds). */
export const MAX_SITES_PER_KEY = 4;

/**
 * `type='BN'`, `'type': 'BN'`, `.setdefault('type', 'BN')`, with an optional scope (`type='mmdet.ResNet'`): the
 * names a config dict asks a registry for.
 */
const CONFIG_TYPE =
  /\btype\s*=\s*(['"])([A-Za-z_][\w.]*)\1|(['"])type\3\s*:\s*(['"])([A-Za-z_][\w.]*)\4|setdefault\(\s*(['"])type\6\s*,\s*(['"])([A-Za-z_][\w.]*)\7/g;

/** Triple-quoted strings and comments: docstrings show config dicts as examples (mmengine's `Registry`). */
const PROSE = /("""|''')[\s\S]*?\1|#[^\n]*/g;

/**
 * The registered names the code of a statement asks for, unscoped (`mmdet.ResNet` → `ResNet`), in order; not
 * those its docstrings and comments show.
 */
export function configTypeNames(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.replace(PROSE, '').matchAll(CONFIG_TYPE)) out.add((m[2] ?? m[5] ?? m[8]).split('.').pop()!);
  return [...out];
}

/** `REG.register_module(args)` / `REG.register(args)`: the receiver and the argument text (one level of parens). */
const REGISTER_CALL = /([A-Za-z_][\w.]*)\.register(?:_module)?\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)/g;

/** The names a registering call's arguments give: `name=`, a first positional string, `name=[...]`, `module=X`. */
function namesOfArgs(args: string): { names: string[]; module?: string } {
  const list = /\bname\s*=\s*[[(]([^\])]*)[\])]/.exec(args);
  if (list) return { names: [...list[1].matchAll(/(['"])([\w.-]+)\1/g)].map((m) => m[2]) };
  const named = /\bname\s*=\s*(['"])([\w.-]+)\1/.exec(args) ?? /^\s*(['"])([\w.-]+)\1/.exec(args);
  if (named) return { names: [named[2]] };
  const module = /\bmodule\s*=\s*([A-Za-z_][\w.]*)/.exec(args);
  return { names: [], module: module?.[1] };
}

/** `for m in [nn.ReLU, nn.ELU]:` → the last segments of the names iterated over (`ReLU`, `ELU`). */
function loopNames(text: string, variable: string): string[] {
  const m = new RegExp(`^\\s*for\\s+${variable}\\s+in\\s+[[(]([^\\])]*)[\\])]`).exec(text);
  if (!m) return [];
  return m[1]
    .split(',')
    .map((s) => s.trim())
    .filter((s) => /^[A-Za-z_][\w.]*$/.test(s))
    .map((s) => s.split('.').pop()!);
}

const indexes = new WeakMap<Program, Map<string, RegistrationSite[]>>();

/** Whether a module may register something: a decorated top-level class, or a module-level statement that mutates. */
function mayRegister(mod: IndexedModule): boolean {
  return (
    mod.facts.classes.some((c) => !c.qualname.includes('.') && c.decorators.some((d) => d.includes('.register'))) ||
    mod.facts.statements.some(registeringStatement)
  );
}

/** A module-level statement (not a definition) that mutates something through a `register`-like method. */
function registeringStatement(s: TopStatement): boolean {
  return (
    s.kind !== 'class' &&
    s.kind !== 'function' &&
    s.mutates.length > 0 &&
    (s.attrReads?.names ?? []).some((n) => n === 'register_module' || n === 'register')
  );
}

/**
 * The modules a registration index is read from, as `sourceId path blob` lines, from facts alone: an assembly
 * cached while they were the same needs no index to be reused (a registration added anywhere may change it).
 */
export function registrationInputs(program: Program): string[] {
  return program.modules
    .filter(mayRegister)
    .map((m) => `${m.sourceId} ${m.path} ${m.blob}`)
    .sort();
}

/**
 * Every registration of the program by registered name: decorated classes (`@MODELS.register_module()`, under the
 * class name or the names given), and module-level statements that call a registry's `register_module` (`name=`,
 * a positional name, `module=nn.X` under `X`, a loop over classes under each). Built once per program.
 */
export function registrationIndex(
  program: Program,
  readText: (mod: IndexedModule) => Buffer,
): Map<string, RegistrationSite[]> {
  let index = indexes.get(program);
  if (index) return index;
  index = new Map();
  const add = (key: string, site: RegistrationSite) => {
    const list = index!.get(key) ?? [];
    if (!list.some((s) => s.mod === site.mod && s.stmt === site.stmt)) list.push(site);
    index!.set(key, list);
  };
  for (const mod of program.modules) {
    if (!mayRegister(mod)) continue;
    for (const cls of mod.facts.classes) {
      if (cls.qualname.includes('.')) continue;
      for (const d of cls.decorators) {
        for (const call of d.matchAll(REGISTER_CALL)) {
          const { names } = namesOfArgs(call[2]);
          const site = { mod, stmt: cls.statementIndex, receiver: call[1], className: cls.name };
          for (const key of names.length ? names : [cls.name]) add(key, site);
        }
      }
    }
    const candidates = mod.facts.statements.filter(registeringStatement);
    if (!candidates.length) continue;
    const text = readText(mod);
    for (const s of candidates) {
      const code = text.subarray(s.span.startByte, s.span.endByte).toString('utf8');
      for (const call of code.matchAll(REGISTER_CALL)) {
        if (!s.mutates.includes(call[1].split('.')[0])) continue;
        const { names, module } = namesOfArgs(call[2]);
        const keys = names.length
          ? names
          : module && s.kind === 'for' && s.binds.includes(module)
            ? loopNames(code, module)
            : module
              ? [module.split('.').pop()!]
              : [];
        for (const key of keys) add(key, { mod, stmt: s.index, receiver: call[1] });
      }
    }
  }
  indexes.set(program, index);
  return index;
}
