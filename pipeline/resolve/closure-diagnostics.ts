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
 * A module object used as an object (`vars(m)`, `getattr(m, name)`, `m.__dict__`, passed on): the namespace standing
 * in for it holds every public member, since which ones are read is decided when the code runs.
 */
export function moduleNamespaceComplete(m: IndexedModule, module: string, members: number): Diagnostic {
  return {
    code: 'module-namespace-complete',
    severity: 'info',
    stage: 'resolve',
    source: m.sourceId,
    path: m.path,
    message: `module '${module}' is used as an object (vars(), getattr with a computed name, __dict__, passed on): its namespace holds every public member (${members})`,
  };
}

/** The same, for a module with more public members than a block should carry: only the members read statically. */
export function moduleNamespaceTooLarge(m: IndexedModule, module: string, members: number, max: number): Diagnostic {
  return {
    code: 'module-namespace-too-large',
    severity: 'warning',
    stage: 'resolve',
    source: m.sourceId,
    path: m.path,
    message: `module '${module}' is used as an object, but has ${members} public members (more than ${max}): its namespace holds only the members read through attributes`,
    hint: 'a member read by a computed name (getattr, vars) may be missing when the block runs',
  };
}
