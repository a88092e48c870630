// Dedup items from the installed torchvision, for the benchmark's uniqueness table.
//
// An approximation until assemble exists: each class whose bases mention `Module` or `nn.` becomes one item
// whose code is the class text alone (no helper definitions pulled in, nothing validated).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type Parser from 'tree-sitter';
import type { DedupItem } from '../../pipeline/dedup/types.ts';
import { treeSitterParser } from '../../pipeline/parse/grammar.ts';

export const TORCHVISION_ROOT = '/usr/lib/python3/dist-packages/torchvision';

function pythonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...pythonFiles(full));
    else if (name.endsWith('.py')) out.push(full);
  }
  return out;
}

/** Every nn.Module-looking class (top level or nested) as an item; nested classes are dedented. */
export function torchvisionItems(root = TORCHVISION_ROOT): DedupItem[] {
  const parser = treeSitterParser();
  const items: DedupItem[] = [];
  for (const file of pythonFiles(root)) {
    const text = readFileSync(file, 'utf8');
    const path = relative(root, file);
    const module = `torchvision.${path
      .replace(/\.py$/, '')
      .replace(/\//g, '.')
      .replace(/\.__init__$/, '')}`;
    const tree = parser.parse(text, null, { bufferSize: 2 * text.length + 64 });
    const visit = (node: Parser.SyntaxNode, qual: string[]) => {
      for (const child of node.namedChildren) {
        if (child.type === 'class_definition') {
          const name = child.childForFieldName('name')?.text ?? '?';
          const bases = child.childForFieldName('superclasses')?.text ?? '';
          const q = [...qual, name];
          if (/Module|nn\./.test(bases)) {
            const indent = ' '.repeat(child.startPosition.column);
            const code = (indent + child.text)
              .split('\n')
              .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
              .join('\n');
            items.push({
              id: `torchvision:${module}.${q.join('.')}`,
              sourceId: 'torchvision',
              path,
              priority: 1,
              validated: false,
              code: code + '\n',
            });
          }
          visit(child, q);
        } else if (child.type === 'function_definition') {
          visit(child, [...qual, child.childForFieldName('name')?.text ?? '?', '<locals>']);
        } else if (child.childCount > 0) {
          visit(child, qual);
        }
      }
    };
    visit(tree.rootNode, []);
  }
  // Same-named classes in one module (e.g. under if/else) would collide: keep the first, ids must be unique.
  const seen = new Set<string>();
  return items.filter((it) => (seen.has(it.id) ? false : (seen.add(it.id), true)));
}
