// A block's interface as facts: constructor and forward parameters (names, kinds, annotation and default *text*,
// literal defaults, an inferred role from param-roles.ts), the base chain and method names. Inherited signatures
// are followed through internal bases; nothing here copies a function body.
import type { ClassFact, FunctionFact } from '../parse/facts.ts';
import type { BlockInterface } from '../contract/block-facts.ts';
import type { ParamSpec } from '../contract/common.ts';
import { roleOf } from './param-roles.ts';

export function paramSpecs(fn: FunctionFact | null | undefined): ParamSpec[] {
  if (!fn) return [];
  const params = fn.params.filter((p, i) => !(i === 0 && (p.name === 'self' || p.name === 'cls')));
  return params.map((p) => {
    const spec: ParamSpec = { name: p.name, kind: p.kind };
    if (p.annotation !== undefined) spec.annotation = p.annotation;
    if (p.default !== undefined) spec.default = p.default;
    if (p.defaultLiteral !== undefined) spec.defaultLiteral = p.defaultLiteral;
    const role = roleOf(p);
    if (role) spec.role = role;
    return spec;
  });
}

/**
 * `classes` are the block's class followed by its internal bases, nearest first (method resolution simplified to
 * the chain): the first that defines `__init__` / `forward` gives the signature.
 */
export function interfaceOf(classes: ClassFact[], bases: string[]): BlockInterface {
  const find = (name: string) => {
    for (const c of classes) {
      const m = c.methods.find((x) => x.name === name);
      if (m) return m;
    }
    return null;
  };
  const fwd = find('forward');
  return {
    constructorParams: paramSpecs(find('__init__')),
    forward: fwd ? { params: paramSpecs(fwd), ...(fwd.returns !== undefined ? { returns: fwd.returns } : {}) } : null,
    bases,
    methods: classes[0]?.methods.map((m) => m.name) ?? [],
  };
}
