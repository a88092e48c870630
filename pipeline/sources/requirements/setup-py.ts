// setup.py's runtime requirements: the `install_requires=` of its `setup(...)` call, read from the tree-sitter
// syntax tree and never run. What can be read statically is read; anything else is a `requirements-not-static`
// diagnostic naming the expression:
//
//   install_requires=['numpy>=1.20', 'scipy']                 # a literal list (`+` of lists, `*spread` too)
//   install_requires=reqs                                      # a name assigned one of these in setup.py
//   install_requires=parse_requirements('requirements/runtime.txt')   # a local function given a literal path:
//   install_requires=parse_requirements()                      #   ... or its default (`fname='requirements/...'`)
//   install_requires=open('requirements.txt').read().splitlines()      # a file opened with a literal path
//   with open('requirements.txt') as f: reqs = f.read().splitlines()   # ... also through `with ... as f`
//
// A file found this way is read as a requirements file. `reqs.append('x')`, `reqs += [...]` and `.extend` after
// the assignment are read the same way; `install_requires = choose(...)` in a loop is reported, not guessed.
import type Parser from 'tree-sitter';
import { posix } from 'node:path';
import type { Span } from '../../contract/diagnostics.ts';
import { treeSitterParser } from '../../util/tree-sitter.ts';
import type { RequirementSink } from './types.ts';

type Node = Parser.SyntaxNode;

const FILE = 'setup.py';
/** Bounds the name → value → name chase (`a = b`, `b = a` must not loop). */
const MAX_DEPTH = 8;
/** Functions that open a file by path: `open(p)`, `io.open(p)`, `codecs.open(p)`, `Path(p)`. */
const OPENERS = /^(?:(?:io|codecs)\.)?open$|^(?:pathlib\.)?Path$/;

type Event =
  | { kind: 'assign'; name: string; value: Node; at: number }
  | { kind: 'append' | 'extend' | '+='; name: string; value: Node; at: number };

export function readSetupPy(sink: RequirementSink): void {
  const text = sink.metadataText(FILE);
  if (text === undefined) return;
  new SetupPyReader(text, treeSitterParser().parse(text).rootNode, sink).read();
}

class SetupPyReader {
  /** Module-level `def`s: a call of one with a literal path reads that file. */
  private readonly defs = new Map<string, Node>();
  /** `with open('r.txt') as f`: f → the path. */
  private readonly opened = new Map<string, string>();
  private readonly events: Event[] = [];
  /** Bodies already collected (the module, the functions holding a setup() call). */
  private readonly collected = new Set<number>();

  constructor(
    private readonly text: string,
    private readonly root: Node,
    private readonly sink: RequirementSink,
  ) {}

  read(): void {
    const setups = this.root
      .descendantsOfType('call')
      .filter((c) => /^(?:[A-Za-z_][\w.]*\.)?setup$/.test(c.childForFieldName('function')?.text ?? ''));
    for (const call of setups) {
      const args = call.childForFieldName('arguments')?.namedChildren ?? [];
      const kw = args.find(
        (a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === 'install_requires',
      );
      const value = kw?.childForFieldName('value');
      if (value) {
        this.collectOnce(this.root);
        const fn = enclosingFunction(call);
        if (fn) this.collectOnce(fn.childForFieldName('body')!);
        this.value(value, call.startIndex, 0);
      } else if (args.some((a) => a.type === 'dictionary_splat'))
        this.notStatic(call, 'setup() takes its arguments from `**...`');
    }
  }

  private collectOnce(body: Node): void {
    if (this.collected.has(body.id)) return;
    this.collected.add(body.id);
    this.collect(body);
    this.events.sort((a, b) => a.at - b.at);
  }

  /** The statements of a body, through if/try/with/for/while but not into nested functions and classes. */
  private collect(body: Node): void {
    for (const node of body.namedChildren) {
      switch (node.type) {
        case 'function_definition':
          if (body === this.root) this.defs.set(node.childForFieldName('name')!.text, node);
          break;
        case 'decorated_definition':
        case 'class_definition':
          break;
        case 'expression_statement':
          this.statement(node.firstNamedChild);
          break;
        case 'with_statement':
          for (const item of node.namedChildren.find((c) => c.type === 'with_clause')?.namedChildren ?? []) {
            const pattern = item.childForFieldName('value');
            const alias = pattern?.type === 'as_pattern' ? pattern.childForFieldName('alias')?.firstNamedChild : null;
            const path = pattern?.firstNamedChild ? this.openedPath(pattern.firstNamedChild, 0) : undefined;
            if (alias?.type === 'identifier' && path !== undefined) this.opened.set(alias.text, path);
          }
          this.collect(node.childForFieldName('body')!);
          break;
        default:
          // if/elif/else, try/except/finally, for, while, match: their blocks and clauses hold statements of this
          // same scope (`if LITE: reqs = [...]` binds the module's `reqs`)
          if (node.type === 'block' || /_clause$/.test(node.type)) this.collect(node);
          else
            for (const child of node.namedChildren)
              if (child.type === 'block' || /_clause$/.test(child.type)) this.collect(child);
      }
    }
  }

  private statement(node: Node | null): void {
    if (!node) return;
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    if (node.type === 'assignment' && left?.type === 'identifier' && right)
      this.events.push({ kind: 'assign', name: left.text, value: right, at: node.startIndex });
    else if (
      node.type === 'augmented_assignment' &&
      left?.type === 'identifier' &&
      right &&
      node.childForFieldName('operator')?.text === '+='
    )
      this.events.push({ kind: '+=', name: left.text, value: right, at: node.startIndex });
    else if (node.type === 'call') {
      const fn = node.childForFieldName('function');
      const method = fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text : undefined;
      const target = fn?.childForFieldName('object');
      const args = node.childForFieldName('arguments')?.namedChildren ?? [];
      if (target?.type === 'identifier' && (method === 'append' || method === 'extend') && args.length === 1)
        this.events.push({ kind: method, name: target.text, value: args[0], at: node.startIndex });
      else if (target?.type === 'identifier' && method === 'insert' && args.length === 2)
        this.events.push({ kind: 'append', name: target.text, value: args[1], at: node.startIndex });
    }
  }

  /** Reads an install_requires value (or part of one) that sits before `before`. */
  private value(node: Node, before: number, depth: number): void {
    if (depth > MAX_DEPTH) return this.notStatic(node, 'names chase each other too deep');
    switch (node.type) {
      case 'list':
      case 'tuple':
      case 'set':
        for (const item of node.namedChildren) {
          if (item.type === 'comment') continue;
          if (item.type === 'list_splat') this.value(item.firstNamedChild!, before, depth + 1);
          else this.requirementString(item);
        }
        return;
      case 'parenthesized_expression':
        return this.value(node.firstNamedChild!, before, depth + 1);
      case 'binary_operator':
        if (node.childForFieldName('operator')?.text !== '+') break;
        this.value(node.childForFieldName('left')!, before, depth + 1);
        return this.value(node.childForFieldName('right')!, before, depth + 1);
      case 'string':
      case 'concatenated_string': {
        // setuptools accepts one string of requirements, one per line
        const s = stringValue(node);
        if (s === undefined) break;
        for (const line of s.split('\n')) if (line.trim()) this.sink.declare(line.trim(), this.origin(node));
        return;
      }
      case 'identifier':
        return this.name(node, before, depth);
    }
    const files = this.filesRead(node, depth);
    if (!files.length) return this.notStatic(node);
    for (const f of files) this.sink.namedFile(f, this.origin(node));
  }

  /** A name's last assignment before `before`, then what is appended or added to it until `before`. */
  private name(node: Node, before: number, depth: number): void {
    const events = this.events.filter((e) => e.name === node.text && e.at < before);
    const assigns = events.filter((e) => e.kind === 'assign');
    const last = assigns[assigns.length - 1];
    if (!last) return this.notStatic(node, `\`${node.text}\` is not assigned in ${FILE} before it is used`);
    if (assigns.length > 1)
      this.sink.report({
        code: 'requirements-conditional',
        severity: 'info',
        message: `\`${node.text}\` is assigned ${assigns.length} times in ${FILE} (lines ${assigns.map((a) => this.line(a.value)).join(', ')}); the last before it is used is read`,
        path: FILE,
        span: this.span(last.value),
      });
    this.value(last.value, last.at, depth + 1);
    for (const e of events)
      if (e.at > last.at && e.kind !== 'assign') {
        if (e.kind === 'append') this.requirementString(e.value);
        else this.value(e.value, e.at, depth + 1);
      }
  }

  private requirementString(node: Node): void {
    const s = /string$/.test(node.type) ? stringValue(node) : undefined;
    if (s === undefined) this.notStatic(node);
    else this.sink.declare(s, this.origin(node));
  }

  /**
   * The files an expression reads with a literal path: a call of a local function given one (or defaulting to one,
   * or whose body opens one), an opener call (`open`, `Path`) or a `with ... as f` name anywhere inside it.
   */
  private filesRead(node: Node, depth: number): string[] {
    if (depth > MAX_DEPTH) return [];
    const found = new Set<string>();
    const visit = (n: Node) => {
      if (n.type === 'identifier' && this.opened.has(n.text)) found.add(this.opened.get(n.text)!);
      if (n.type === 'binary_operator' && n.childForFieldName('operator')?.text === '/' && isRead(n)) {
        const p = this.path(n, depth + 1); // `(Path(__file__).parent / 'r.txt').read_text()`
        if (p) return void found.add(p);
      }
      if (n.type === 'call') {
        const fn = n.childForFieldName('function');
        const def = fn?.type === 'identifier' ? this.defs.get(fn.text) : undefined;
        const opened = this.openedPath(n, depth);
        if (opened !== undefined) return void found.add(opened);
        if (def) {
          for (const f of this.localCall(n, def, depth)) found.add(f);
          return;
        }
      }
      for (const c of n.namedChildren) visit(c);
    };
    visit(node);
    return [...found];
  }

  /** `parse_requirements('a.txt')`, `(fname='a.txt')`, `()` with `def parse_requirements(fname='a.txt')`. */
  private localCall(call: Node, def: Node, depth: number): string[] {
    const args = call.childForFieldName('arguments')?.namedChildren ?? [];
    for (const a of args) {
      const p = this.path(a.type === 'keyword_argument' ? a.childForFieldName('value')! : a, depth + 1);
      if (p) return [p]; // '' is the folder itself (`here`), not a file
    }
    if (!args.length) {
      for (const param of def.childForFieldName('parameters')?.namedChildren ?? []) {
        const dflt = param.type === 'default_parameter' ? param.childForFieldName('value') : null;
        const p = dflt ? this.path(dflt, depth + 1) : undefined;
        if (p) return [p];
      }
      return this.filesRead(def.childForFieldName('body')!, depth + 1);
    }
    return [];
  }

  /** The literal path an opener call opens (`open('r.txt')`, `Path(here, 'r.txt')`). */
  private openedPath(call: Node, depth: number): string | undefined {
    const fn = call.type === 'call' ? (call.childForFieldName('function')?.text ?? '') : '';
    if (!OPENERS.test(fn)) return undefined;
    const args = call.childForFieldName('arguments')?.namedChildren ?? [];
    let p: string | undefined;
    if (fn.endsWith('Path')) {
      // `Path('requirements', 'runtime.txt')` joins its arguments; it reads only as `.read_text()` or `.open()`
      if (isRead(call)) p = this.path(call, depth + 1);
    } else {
      // `open(path)`, `open(path, 'r')`; a file opened to write (`'w'`, `'a'`, `'x'`, `'+'`) is not read from
      const mode = args.find((a, i) =>
        a.type === 'keyword_argument' ? a.childForFieldName('name')?.text === 'mode' : i === 1,
      );
      const modeText = mode?.type === 'keyword_argument' ? mode.childForFieldName('value')?.text : mode?.text;
      if (args[0] && args[0].type !== 'keyword_argument' && !/[waxWAX+]/.test(modeText ?? ''))
        p = this.path(args[0], depth + 1);
    }
    return p || undefined; // '' is the folder itself, not a file
  }

  /**
   * A path relative to setup.py's folder (the root): a string literal; `os.path.join(...)` or `/` of paths; a name
   * assigned one; '' for "this folder" (`os.path.dirname(__file__)`, `Path(__file__).parent`, `os.getcwd()`).
   */
  private path(node: Node, depth: number): string | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const t = node.text;
    if (isHere(node)) return '';
    if (node.type === 'string' || node.type === 'concatenated_string') return stringValue(node);
    if (node.type === 'identifier') {
      const assigns = this.events.filter((e) => e.kind === 'assign' && e.name === t);
      return assigns.length ? this.path(assigns[assigns.length - 1].value, depth + 1) : undefined;
    }
    if (
      node.type === 'call' &&
      /^(?:os\.path\.|path\.)?join$|^(?:pathlib\.)?Path$/.test(node.childForFieldName('function')?.text ?? '')
    ) {
      const parts = (node.childForFieldName('arguments')?.namedChildren ?? []).map((a) => this.path(a, depth + 1));
      return parts.length && parts.every((p) => p !== undefined) ? pyJoin(parts as string[]) : undefined;
    }
    if (node.type === 'binary_operator' && node.childForFieldName('operator')?.text === '/') {
      const l = this.path(node.childForFieldName('left')!, depth + 1);
      const r = this.path(node.childForFieldName('right')!, depth + 1);
      return l !== undefined && r !== undefined ? pyJoin([l, r]) : undefined;
    }
    return undefined;
  }

  private notStatic(node: Node, why?: string): void {
    const snippet = node.text.length > 80 ? node.text.slice(0, 77) + '...' : node.text;
    this.sink.report({
      code: 'requirements-not-static',
      severity: 'warning',
      message: `install_requires in ${FILE}: \`${snippet.replace(/\s+/g, ' ')}\` (line ${this.line(node)}) cannot be read without running it${why ? ` (${why})` : ''}; it is never run`,
      hint: 'nnblocks reads a literal list, a name assigned one, or a call reading a requirements file with a literal path; list the rest in the corpus config',
      path: FILE,
      span: this.span(node),
    });
  }

  private origin(node: Node) {
    return { file: FILE, span: this.span(node) };
  }

  private line(node: Node): number {
    return node.startPosition.row + 1;
  }

  /** tree-sitter's indices are UTF-16 code units of the parsed string; spans are UTF-8 bytes. */
  private span(node: Node): Span {
    const startByte = Buffer.byteLength(this.text.slice(0, node.startIndex));
    return {
      startByte,
      endByte: startByte + Buffer.byteLength(this.text.slice(node.startIndex, node.endIndex)),
      startLine: node.startPosition.row + 1,
      endLine: node.endPosition.row + 1,
    };
  }
}

/** os.path.join: an absolute part discards what came before (so `/etc/passwd` stays absolute, and is refused). */
function pyJoin(parts: string[]): string {
  let out = '';
  for (const p of parts) out = p.startsWith('/') ? p : out ? posix.join(out, p) : p;
  return out;
}

/** Whether a path expression is read from: `(expr).read_text()`, `.read_bytes()`, `.open()` (not `.write_text`). */
function isRead(node: Node): boolean {
  let n = node;
  while (n.parent?.type === 'parenthesized_expression') n = n.parent;
  const attr = n.parent?.type === 'attribute' ? n.parent.childForFieldName('attribute')?.text : undefined;
  return attr === 'read_text' || attr === 'read_bytes' || attr === 'open';
}

/**
 * "The folder of setup.py": `os.path.dirname(__file__)` (also under `abspath`/`realpath`), `Path(__file__).parent`
 * (also after `.resolve()`), `os.getcwd()` — setup.py runs from its folder.
 */
function isHere(node: Node): boolean {
  const t = node.text;
  if (t.length > 200 || !/__file__|getcwd/.test(t)) return false;
  if (/^os\.getcwd\(\)$/.test(t)) return true;
  if (node.type === 'attribute') return node.childForFieldName('attribute')?.text === 'parent';
  if (node.type !== 'call') return false;
  const fn = node.childForFieldName('function')?.text ?? '';
  const args = node.childForFieldName('arguments')?.namedChildren ?? [];
  if (/(?:^|\.)dirname$/.test(fn)) return args.length === 1;
  return /(?:^|\.)(?:abspath|realpath)$/.test(fn) && args.length === 1 && isHere(args[0]);
}

function enclosingFunction(node: Node): Node | null {
  for (let n = node.parent; n; n = n.parent) if (n.type === 'function_definition') return n;
  return null;
}

/** A string literal's value; undefined for f-strings with fields and bytes. `'a' 'b'` concatenates. */
function stringValue(node: Node): string | undefined {
  if (node.type === 'concatenated_string') {
    const parts = node.namedChildren.filter((c) => c.type === 'string').map(stringValue);
    return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
  }
  if (node.type !== 'string' || node.namedChildren.some((c) => c.type === 'interpolation')) return undefined;
  const start = node.firstChild;
  const end = node.lastChild;
  if (start?.type !== 'string_start' || end?.type !== 'string_end') return undefined;
  const prefix = start.text.replace(/['"]+$/, '');
  if (/[bB]/.test(prefix)) return undefined;
  const body = node.text.slice(start.text.length, node.text.length - end.text.length);
  return /[rR]/.test(prefix) ? body : unescape(body);
}

/** Python's string escapes, the ones a requirement string could hold. */
function unescape(body: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '\n': '' };
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])/g, (all, e: string) =>
    e in simple ? simple[e] : e.length > 1 ? String.fromCodePoint(parseInt(e.slice(1), 16)) : all,
  );
}
