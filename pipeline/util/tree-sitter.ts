// The one place tree-sitter is loaded and given the Python grammar. It sits in util/, below every stage, because
// both the sources stage (reading setup.py's install_requires as data) and the parse stage above it need a parser.
import { createRequire } from 'node:module';
import type TreeSitterParser from 'tree-sitter';
import { NnblocksError } from '../contract/diagnostics.ts';

const require = createRequire(import.meta.url);

let parser: TreeSitterParser | null = null;

/**
 * The thread's Python parser (the parse stage, the sources stage's setup.py reader, de-duplication's fingerprints
 * and the tests all take it here). One parser per thread: node-tree-sitter parsers are cheap to reuse and not
 * thread-safe to share. Typed with the package's own types for callers that walk trees their own way.
 */
export function treeSitterParser(): TreeSitterParser {
  if (parser) return parser;
  try {
    const Parser = require('tree-sitter') as new () => TreeSitterParser;
    const p = new Parser();
    p.setLanguage(require('tree-sitter-python'));
    parser = p;
  } catch (err) {
    throw new NnblocksError(
      `cannot load tree-sitter / tree-sitter-python: ${(err as Error).message}`,
      'parse',
      'run `npm run setup` to rebuild the native modules for this Node version',
    );
  }
  return parser;
}
