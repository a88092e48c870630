// What de-duplication compares of an assembled module: the block's own code, without the header comment and the
// import statements every emitted module shares. Whole statements are cut at tree-sitter's spans, never by line,
// so a multi-line import leaves no continuation lines behind:
//   from torch.nn import (Conv2d,
//                         BatchNorm2d)        # both lines go, not only the first
// and a line inside a docstring that happens to read `import x` or `# x` stays.
import { treeSitterParser } from '../parse/grammar.ts';

const IMPORTS = new Set(['import_statement', 'import_from_statement', 'future_import_statement']);

/** The module's top-level statements other than imports, each as its upstream text, blank-line separated. */
export function ownCode(code: string): string {
  const root = treeSitterParser().parse(code).rootNode;
  const kept: string[] = [];
  for (const node of root.namedChildren) {
    if (IMPORTS.has(node.type) || node.type === 'comment') continue;
    // tree-sitter's indices are UTF-16 code units of the string it parsed: slice the same string.
    kept.push(code.slice(node.startIndex, node.endIndex));
  }
  return kept.join('\n\n') + (kept.length ? '\n' : '');
}
