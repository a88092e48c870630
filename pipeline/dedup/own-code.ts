// What de-duplication compares of an assembled module: the block's own code, without the header comment and the
// import statements every emitted module shares. Whole statements are cut at tree-sitter's spans, never by line,
// so a multi-line import leaves no continuation lines behind:
//   from torch.nn import (Conv2d,
//                         BatchNorm2d)        # both lines go, not only the first
// and a line inside a docstring that happens to read `import x` or `# x` stays.
// The spans are what a cache keeps (cache.ts): the own code is cut from the module again without a parse.
import { treeSitterParser } from '../parse/grammar.ts';

const IMPORTS = new Set(['import_statement', 'import_from_statement', 'future_import_statement']);

/**
 * The spans kept: `[start0, end0, start1, end1, ...]`, each a top-level statement other than an import or a
 * comment, in UTF-16 code units of `code` (tree-sitter's indices for a string it parsed).
 */
export function ownCodeSpans(code: string): number[] {
  const root = treeSitterParser().parse(code).rootNode;
  const spans: number[] = [];
  for (const node of root.namedChildren) {
    if (IMPORTS.has(node.type) || node.type === 'comment') continue;
    spans.push(node.startIndex, node.endIndex);
  }
  return spans;
}

/** The kept statements of `code`, each as its upstream text, blank-line separated. */
export function ownCodeOf(code: string, spans: readonly number[]): string {
  const kept: string[] = [];
  for (let i = 0; i < spans.length; i += 2) kept.push(code.slice(spans[i], spans[i + 1]));
  return kept.join('\n\n') + (kept.length ? '\n' : '');
}

/** The module's top-level statements other than imports, each as its upstream text, blank-line separated. */
export function ownCode(code: string): string {
  return ownCodeOf(code, ownCodeSpans(code));
}
