// The parse stage's entry: bytes of one Python file → ModuleFacts. Pure and synchronous; safe in a worker thread
// (each thread gets its own tree-sitter parser, reused across files).
import { decodePython } from './decode.ts';
import type { ModuleFacts } from './facts.ts';
import { parseTree } from './grammar.ts';
import { buildFacts } from './build-facts.ts';
import { usageFacts } from './calls.ts';
import { dictFacts } from './dict-entries.ts';
import { syntaxErrors } from './syntax-errors.ts';
import { TextMap } from './text-map.ts';
import { ModuleWalker } from './walk-stmt.ts';

export interface ParseOptions {
  /**
   * Read plain expressions and simple statements from their text (scan-expr.ts) instead of visiting their
   * nodes. Default true: the facts are the same, only faster. false forces the full tree walk everywhere — the
   * trusted slow path the scanner is checked against (test/parse/scan-vs-walk.test.ts).
   */
  textScan?: boolean;
}

/** Decodes (UTF-8, PEP 263, latin-1 fallback) and extracts the facts of one module. */
export function parseModule(bytes: Buffer | Uint8Array, opts: ParseOptions = {}): ModuleFacts {
  const decoded = decodePython(bytes);
  const facts = parseText(decoded.text, decoded.encoding, opts);
  if (decoded.diagnostics.length) facts.diagnostics.unshift(...decoded.diagnostics);
  return facts;
}

/** Extracts the facts of already-decoded text; spans are bytes of its UTF-8 encoding. */
export function parseText(text: string, encoding = 'utf-8', opts: ParseOptions = {}): ModuleFacts {
  const tree = parseTree(text);
  const map = new TextMap(text);
  const walker = new ModuleWalker(tree.walk(), text, map, opts.textScan ?? true);
  walker.module();
  const errors = syntaxErrors(tree.rootNode, map);
  const dicts = dictFacts(tree.rootNode, walker.statements, text, map);
  const usage = usageFacts(tree, walker, text, map);
  return buildFacts(walker, map, encoding, errors.diagnostics, errors.ranges, dicts, usage);
}
