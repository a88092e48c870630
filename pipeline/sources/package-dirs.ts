// setup.py's `package_dir`: the packages a checkout installs from a folder of another name, read from the syntax
// tree and never run. detectron2 installs `projects/PointRend/point_rend` as `detectron2.projects.point_rend`:
//
//   PROJECTS = {"detectron2.projects.point_rend": "projects/PointRend/point_rend"}
//   setup(..., package_dir=PROJECTS)                # a module-level name assigned a dict literal, or
//   setup(..., package_dir={"pkg.sub": "src/sub"})  # the dict literal itself
//
// Only string keys and values are read; a key of '' (the root of every package, `{'': 'src'}`) is the import root's
// business (detectImportRoot), and a folder that leaves the checkout is refused. See docs/index.md.
import type Parser from 'tree-sitter';
import { posix } from 'node:path';
import { treeSitterParser } from '../util/tree-sitter.ts';
import { controlChar, moduleNameProblem } from '../util/identifier.ts';
import { RootedFiles } from './requirements/rooted-files.ts';
import type { PackageDir } from './types.ts';

type Node = Parser.SyntaxNode;

/** The `package_dir` entries of the checkout's setup.py (at `root`), sorted by package; [] when there are none. */
export function readPackageDirs(root: string, maxFileBytes: number): PackageDir[] {
  const got = new RootedFiles(root, maxFileBytes).read('setup.py');
  if (!got.ok) return [];
  const tree = treeSitterParser().parse(got.text).rootNode;
  const found = new Map<string, string>();
  for (const call of tree.descendantsOfType('call')) {
    if (!/^(?:[A-Za-z_][\w.]*\.)?setup$/.test(call.childForFieldName('function')?.text ?? '')) continue;
    const kw = (call.childForFieldName('arguments')?.namedChildren ?? []).find(
      (a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === 'package_dir',
    );
    const dict = literalDict(kw?.childForFieldName('value') ?? null, tree, call.startIndex);
    for (const pair of dict?.namedChildren ?? []) {
      if (pair.type !== 'pair') continue;
      const pkg = stringValue(pair.childForFieldName('key'));
      const folder = stringValue(pair.childForFieldName('value'));
      if (pkg === undefined || folder === undefined || !isDottedName(pkg)) continue;
      const rel = posix.normalize(folder.replace(/\/+$/, ''));
      // Outside the checkout, or named with a control character (which corrupts every log that prints its paths).
      if (rel === '.' || rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel) || controlChar(rel)) continue;
      found.set(pkg, rel);
    }
  }
  return [...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([pkg, folder]) => ({ package: pkg, folder }));
}

/** A dict literal, or a name assigned one at module level before `before` (the last such assignment). */
function literalDict(node: Node | null, root: Node, before: number): Node | undefined {
  if (node?.type === 'dictionary') return node;
  if (node?.type !== 'identifier') return undefined;
  let last: Node | undefined;
  for (const stmt of root.namedChildren) {
    if (stmt.startIndex >= before) break;
    const a = stmt.type === 'expression_statement' ? stmt.firstNamedChild : null;
    if (a?.type === 'assignment' && a.childForFieldName('left')?.text === node.text)
      last = a.childForFieldName('right') ?? undefined;
  }
  return last?.type === 'dictionary' ? last : undefined;
}

/** A plain string literal's value (no f-string, no escapes needed for paths and dotted names). */
function stringValue(node: Node | null): string | undefined {
  if (node?.type !== 'string') return undefined;
  if (node.namedChildren.some((c) => c.type === 'interpolation' || c.type === 'escape_sequence')) return undefined;
  const m = /^([rRuU]?)(['"])([^'"\\\n]*)\2$/.exec(node.text);
  return m ? m[3] : undefined;
}

function isDottedName(s: string): boolean {
  return s !== '' && s.split('.').every((p) => moduleNameProblem(p) === null);
}
