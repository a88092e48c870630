// The one place tree-sitter is loaded and given the Python grammar. It sits in util/, below every stage, because
// both the sources stage (reading setup.py's install_requires as data) and the parse stage above it need a parser.
import { createRequire } from 'node:module';
import type TreeSitterParser from 'tree-sitter';
import { NnblocksError } from '../contract/diagnostics.ts';
import { collectGarbage } from './memory.ts';

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

/**
 * Frees the native memory of the trees this thread parsed and no longer uses. node-tree-sitter releases a tree
 * (about 20 bytes per character of source) only in its JS wrapper's finalizer, which runs after a GC and on a later
 * turn of the event loop; V8 never sees that memory, so nothing makes it collect, and a loop that parses without
 * yielding grows by gigabytes (the own code of 3,556 assembled modules left 8.5 GB of trees). A loop that parses
 * much calls this every few megabytes of source.
 */
export function releaseTrees(): Promise<void> {
  return collectGarbage();
}

/** The versions of tree-sitter and its Python grammar: what a parse-derived cache keys on besides its own code. */
export function grammarVersions(): string[] {
  const require = createRequire(import.meta.url);
  return ['tree-sitter', 'tree-sitter-python'].map(
    (name) => `${name}@${(require(`${name}/package.json`) as { version: string }).version}`,
  );
}
