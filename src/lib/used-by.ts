// Text for a block's "Used by" entries: how the user builds it and the arguments it passes, as Python-like text
// (rendered escaped, never as code to run). Only what the catalog holds: literal values and names of classes.
import type { LiteralValue } from '../../pipeline/contract/common.ts';
import type { UsedBy, UsedByArg } from '../../pipeline/contract/used-by.ts';
import type { UsedByVia } from '../../pipeline/contract/vocabulary.ts';

const VIA: Record<UsedByVia, string> = {
  call: 'builds it',
  partial: 'binds it with partial()',
  registry: 'builds it through a registry',
  super: 'calls its __init__ from a subclass',
  parameter: 'builds it through a parameter',
  variable: 'builds it through a variable',
  reference: 'passes it as a layer factory',
  builder: 'returns a new one',
};

/** `returns a new one (no arguments)`, `builds it`. */
export function viaText(u: UsedBy): string {
  return u.via === 'builder' && u.zeroArg ? `${VIA.builder}, callable without arguments` : VIA[u.via];
}

function literal(v: LiteralValue): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

const argText = (a: UsedByArg): string =>
  `${a.name !== undefined ? `${a.name}=` : ''}${a.ref !== undefined ? a.ref.split('.').pop()! : literal(a.value ?? null)}`;

/**
 * `(Bottleneck, [3, 4, 6, 3], stride=2)`; positions without a published value show as `…`, so the text never
 * suggests a call with fewer arguments than the upstream one. Empty when nothing is known.
 */
export function argsText(u: UsedBy): string {
  if (u.args.length === 0) return '';
  const positional = u.args.filter((a) => a.position !== undefined);
  const last = positional.reduce((n, a) => Math.max(n, a.position! + 1), 0);
  const parts: string[] = [];
  for (let i = 0; i < last; i++) {
    const a = positional.find((p) => p.position === i);
    parts.push(a ? argText(a) : '…');
  }
  for (const a of u.args) if (a.name !== undefined) parts.push(argText(a));
  return `(${parts.join(', ')})`;
}
