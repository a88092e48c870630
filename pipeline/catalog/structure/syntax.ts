// The syntax tree the structure readers walk: tree-sitter's Python nodes, from the parser util/ owns. Only plain
// records leave the readers (read-class.ts, read-flow.ts); nothing tree-sitter-shaped crosses into a spec.
import type Parser from 'tree-sitter';
import { treeSitterParser } from '../../util/tree-sitter.ts';

export type Node = Parser.SyntaxNode;

/** A module's syntax tree; its indices are UTF-16 code units of `text`. */
export function parsePython(text: string): Node {
  return treeSitterParser().parse(text).rootNode;
}
