// Python text generated from a block's spec: the interface stub shown on block pages and the replay recipe.
// Generated from facts (names, annotation and default text, kinds), never copied from upstream source, so it
// carries no bodies, docstrings or comments. Upstream fragments stay plain text; Shiki escapes them on render.
import type { BlockSpec, LiteralValue, ParamSpec } from '../../pipeline/catalog/contract.ts';
import { paramList } from '../../pipeline/catalog/params-text.ts';
import { oneLine } from './format.ts';

/** A JSON literal as Python source: lists become tuples (recipes and defaults use tuples for shapes). */
export function pyLiteral(v: LiteralValue): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number')
    return Number.isFinite(v) ? String(v) : v > 0 ? "float('inf')" : v < 0 ? "float('-inf')" : "float('nan')";
  if (typeof v === 'string') return JSON.stringify(v);
  return v.length === 1 ? `(${pyLiteral(v[0])},)` : `(${v.map(pyLiteral).join(', ')})`;
}

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

/** Python that replays the validation check on an extracted block. */
export function replayScript(spec: BlockSpec): string | undefined {
  const v = spec.validation;
  if (!v) return undefined;
  const kwargs = v.recipe.kwargs.map((k) => `${k.name}=${pyLiteral(k.value)}`).join(', ');
  const inputs = v.recipe.inputs.map((inp, i) => {
    const shape = pyLiteral(inp.shape);
    return inp.high !== undefined
      ? `x${i} = torch.randint(0, ${inp.high}, ${shape}, dtype=torch.${inp.dtype})`
      : `x${i} = torch.randn(${shape}, dtype=torch.${inp.dtype})`;
  });
  const args = v.recipe.inputs.map((_, i) => `x${i}`).join(', ');
  const expected = v.outputs.map(
    (o, i) => `# output ${i}: shape ${pyLiteral(o.shape)}, ${o.dtype}, checksum ${o.checksum}`,
  );
  // `nnblocks extract <id> --out blocks` writes one module per block and blocks/manifest.json naming it.
  return [
    'import importlib, json, sys',
    'import torch',
    '',
    `entry = next(b for b in json.load(open("blocks/manifest.json"))["blocks"] if b["id"] == ${JSON.stringify(spec.id)})`,
    'sys.path.insert(0, entry["importRoot"])',
    'Block = getattr(importlib.import_module(entry["module"]), entry["className"])',
    '',
    `torch.manual_seed(${v.recipe.seed})`,
    `model = Block(${kwargs}).to(${JSON.stringify(v.device)}).eval()`,
    ...inputs,
    'with torch.no_grad():',
    `    out = model(${args})`,
    ...(expected.length > 0 ? expected : ['# validation recorded no outputs (it stopped before forward)']),
  ].join('\n');
}
