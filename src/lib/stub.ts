// Python text generated from a block's spec: the interface stub shown on block pages (the replay script is replay.ts).
// Generated from facts (names, annotation and default text, kinds), never copied from upstream source, so it
// carries no bodies, docstrings or comments. Upstream fragments stay plain text; Shiki escapes them on render.
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { ParamSpec } from '../../pipeline/contract/common.ts';
import { paramList } from '../../pipeline/util/params-text.ts';
import { oneLine } from './format.ts';

function def(name: string, params: ParamSpec[], returns: string | undefined): string[] {
  const items = ['self', ...paramList(params, (t) => oneLine(t, 80))];
  const ret = returns ? ` -> ${oneLine(returns, 80)}` : '';
  const flat = `    def ${name}(${items.join(', ')})${ret}: ...`;
  if (flat.length <= 88) return [flat];
  return [`    def ${name}(`, ...items.map((s) => `        ${s},`), `    )${ret}: ...`];
}

/** The class as a `.pyi`-style stub. */
export function interfaceStub(spec: BlockSpec): string {
  const { constructorParams, forward, bases, methods } = spec.interface;
  const lines = [
    `class ${spec.name}(${bases[0] ?? 'torch.nn.Module'}):`,
    ...def('__init__', constructorParams, 'None'),
  ];
  if (forward) lines.push('', ...def('forward', forward.params, forward.returns));
  const others = methods.filter((m) => m !== '__init__' && m !== 'forward');
  for (const m of others) lines.push('', `    def ${m}(self, *args, **kwargs): ...  # signature not recorded`);
  return lines.join('\n');
}
