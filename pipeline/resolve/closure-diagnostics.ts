// The problems a closure finds in upstream code (closure.ts), as diagnostics: they never stop it.
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { IndexedModule } from '../index/types.ts';
import type { TopStatement } from '../parse/facts.ts';

/** A name no rule resolves: `getattr(mod, name)`, a string registry, or a module outside every source. */
export function unresolvedName(from: IndexedModule, alias: string, reason: string): Diagnostic {
  return {
    code: 'unresolved-name',
    severity: 'warning',
    stage: 'resolve',
    source: from.sourceId,
    path: from.path,
    message: `cannot resolve '${alias}': ${reason}`,
    hint: 'a dynamic name (getattr, string registry, exec) or a module outside the configured sources; confidence: low',
  };
}

/** A statement the block needs does not parse: the module assembled from it will not either. */
export function syntaxErrorIncluded(m: IndexedModule, facts: TopStatement): Diagnostic {
  return {
    code: 'syntax-error-included',
    severity: 'error',
    stage: 'resolve',
    source: m.sourceId,
    path: m.path,
    span: facts.span,
    message: 'a needed statement contains a syntax error; the assembled module will not parse',
  };
}

/**
 * A module object read other than through attributes (`fn = helpers`, `f(helpers)`): the namespace standing in
 * for it holds only the members read through attributes elsewhere.
 */
export function moduleObjectUsed(m: IndexedModule, module: string): Diagnostic {
  return {
    code: 'module-object-used',
    severity: 'info',
    stage: 'resolve',
    source: m.sourceId,
    path: m.path,
    message: `module '${module}' is used as an object (not only through attributes); its namespace holds only the members used elsewhere`,
  };
}
