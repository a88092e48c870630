// Syntax errors as data: tree-sitter's ERROR and MISSING nodes become `syntax-error` diagnostics with a span.
// Error recovery keeps the rest of the tree, so everything around the error is still extracted.
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { TsNode } from './grammar.ts';
import type { TextMap } from './text-map.ts';

/** More than this many errors in one file are summarized in one extra diagnostic. */
const MAX_REPORTED = 20;

export interface SyntaxErrors {
  diagnostics: Diagnostic[];
  /** UTF-16 [start, end) of each ERROR/MISSING node, for marking the statements that contain them. */
  ranges: [number, number][];
}

export function syntaxErrors(root: TsNode, map: TextMap): SyntaxErrors {
  const out: SyntaxErrors = { diagnostics: [], ranges: [] };
  if (!root.hasError) return out;
  // Only subtrees flagged hasError are visited: node objects are slow, but broken files are rare.
  const stack: TsNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    const isError = node.type === 'ERROR';
    const isMissing = !isError && node.isMissing;
    if (isError || isMissing) {
      out.ranges.push([node.startIndex, node.endIndex]);
      continue;
    }
    if (!node.hasError) continue;
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  out.ranges.sort((a, b) => a[0] - b[0]);
  for (const [start, end] of out.ranges.slice(0, MAX_REPORTED)) {
    const snippet = map.text
      .slice(start, Math.min(end, start + 60))
      .split('\n')[0]
      .trim();
    const missing = start === end;
    out.diagnostics.push({
      code: 'syntax-error',
      severity: 'error',
      stage: 'parse',
      message: missing
        ? `syntax error at line ${map.line(start)}: something is missing here`
        : `syntax error at line ${map.line(start)}: unexpected \`${snippet}\``,
      hint: 'the statements around it are still indexed; a statement containing the error is never copied into an assembled module',
      span: map.span(start, end),
    });
  }
  if (out.ranges.length > MAX_REPORTED) {
    out.diagnostics.push({
      code: 'syntax-error',
      severity: 'error',
      stage: 'parse',
      message: `${out.ranges.length - MAX_REPORTED} more syntax errors in this file`,
      hint: 'the file may not be Python 3, or may be a template; exclude it in the source config if so',
    });
  }
  return out;
}
