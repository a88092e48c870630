// A parameter list as Python text, from published facts: the one renderer behind the site's interface stubs and
// the change feed's interface diffs. On the ground floor (it imports only the contract's types), so the site may
// use it. Upstream annotation and default text pass through `clip` (the site keeps them to one short line).
import type { ParamSpec } from '../contract/common.ts';

/** `*args`, `**kwargs`, `name: int = 3`, or PEP 8's `name=3` when there is no annotation. */
function paramText(p: ParamSpec, clip: (text: string) => string): string {
  const star = p.kind === 'var-positional' ? '*' : p.kind === 'var-keyword' ? '**' : '';
  const ann = p.annotation !== undefined ? `: ${clip(p.annotation)}` : '';
  const def = p.default !== undefined ? `${ann ? ' = ' : '='}${clip(p.default)}` : '';
  return `${star}${p.name}${ann}${def}`;
}

/** Parameters in order with the `/` and `*` markers Python needs to restate their kinds. */
export function paramList(params: ParamSpec[], clip: (text: string) => string = (t) => t): string[] {
  const out: string[] = [];
  const lastPosOnly = params.map((p) => p.kind).lastIndexOf('positional-only');
  const hasVarPos = params.some((p) => p.kind === 'var-positional');
  let starred = false;
  params.forEach((p, i) => {
    if (p.kind === 'keyword-only' && !hasVarPos && !starred) {
      out.push('*');
      starred = true;
    }
    out.push(paramText(p, clip));
    if (i === lastPosOnly) out.push('/');
  });
  return out;
}
