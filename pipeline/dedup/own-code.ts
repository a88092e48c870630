// What de-duplication compares of an assembled module: the block's own code, without the header comment and the
// import statements every emitted module shares. Whole statements are cut at tree-sitter's spans, never by line,
// so a multi-line import leaves no continuation lines behind:
//   from torch.nn import (Conv2d,
//                         BatchNorm2d)        # both lines go, not only the first
// and a line inside a docstring that happens to read `import x` or `# x` stays.
// The spans are what a cache keeps (cache.ts): the own code is cut from the module again without a parse.
import type Parser from 'tree-sitter';
import { parseCode } from './features.ts';
import { fingerprint, type Fingerprint, type FingerprintContext } from './fingerprint.ts';

const IMPORTS = new Set(['import_statement', 'import_from_statement', 'future_import_statement']);
/** The module's own statements the own code leaves out (a top-level comment is no statement, and no feature). */
const CUT = new Set([...IMPORTS, 'comment']);

/**
 * The spans kept: `[start0, end0, start1, end1, ...]`, each a top-level statement other than an import or a
 * comment, in UTF-16 code units of `code` (tree-sitter's indices for a string it parsed).
 */
export function ownCodeSpans(code: string): number[] {
  return spansOf(parseCode(code));
}

/**
 * The own code's spans and its fingerprint from one parse of the whole module: the fingerprint walks the module's
 * tree without the statements cut, which is the walk of the cut text's own parse (fingerprint.ts), so a build
 * parses each module once for both, not once for the spans and again for the features.
 */
export function ownCodeAndFingerprint(
  code: string,
  ctx: FingerprintContext,
): { spans: number[]; fingerprint: Fingerprint } {
  const tree = parseCode(code);
  return { spans: spansOf(tree), fingerprint: fingerprint(code, ctx, tree, CUT) };
}

function spansOf(tree: Parser.Tree): number[] {
  const root = tree.rootNode;
  const spans: number[] = [];
  for (const node of root.namedChildren) {
    if (CUT.has(node.type)) continue;
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
