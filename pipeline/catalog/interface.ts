// A block's interface as facts: constructor and forward parameters (names, kinds, annotation and default *text*,
// literal defaults, an inferred role), the base chain and method names. Inherited signatures are followed
// through internal bases; nothing here copies a function body.
import type { ClassFact, FunctionFact, ParamFact } from '../parse/facts.ts';
import type { BlockInterface, ParamSpec } from './contract.ts';

const ROLES: [RegExp, string][] = [
  [/^(in|out|hidden|mid|inner)?_?(channels?|chans|planes|ch)$|_channels$|^inplanes$|^planes$/, 'channels'],
  [/(^|_)(features|in_features|out_features)$/, 'features'],
  [/(^|_)(dim|dims|embed_dim|d_model|hidden_dim|hidden_size|width)$/, 'dimension'],
  [/(^|_)(heads|num_heads|nhead|n_heads)$/, 'heads'],
  [/kernel_size|^kernel$|^k$/, 'kernel-size'],
  [/stride/, 'stride'],
  [/padding|^pad$/, 'padding'],
  [/dilation/, 'dilation'],
  [/groups/, 'groups'],
  [/drop|dropout|p_drop/, 'dropout'],
  [/^bias$/, 'bias'],
  [/^eps$|epsilon/, 'epsilon'],
  [/momentum/, 'momentum'],
  [/act|activation/, 'activation'],
  [/norm/, 'norm-layer'],
  [/depth|num_layers|layers$|blocks$/, 'depth'],
  [/size$|^size|resolution/, 'size'],
];

export function roleOf(p: ParamFact): string | undefined {
  for (const [re, role] of ROLES) if (re.test(p.name)) return role;
  if (p.defaultLiteral === true || p.defaultLiteral === false) return 'flag';
  return undefined;
}

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
