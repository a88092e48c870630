// Which attribute names a piece of code reads, straight from its text: what method-level reachability needs
// (docs/resolve.md, "Methods"). A method of a needed class is followed only when some reached code reads its name.
//   self.norm(x)                  # reads 'norm'
//   super().init_weights()        # reads 'init_weights' (any receiver counts: the name is what matters)
//   getattr(self, 'extra_repr')   # reads 'extra_repr' (a literal name)
//   hasattr(m, 'init_weights')    # probes 'init_weights': runs a property of that name, calls no method
//   getattr(self, name)           # dynamic: any method of this class may be read ('self')
//   getattr(handlers, name)       # dynamic off a named object (`dynamicOn`): the resolver looks the name up
//   getattr(obj.x, name), vars(f()), operator.methodcaller(n)   # dynamic: any method of anything ('any')
//   mod = import_module(p); getattr(mod, name)    # a module's attributes are no methods: not dynamic
// Strings and comments hold no reads; an f-string's text is read as code (over-reading is safe: it only keeps
// more methods). The same pass finds where names are only type-tested (`isinstance(x, Config)`, `except E:`),
// which makes no instance of them (NameOccurrence.typeOnly).
import type { AttrReads } from './facts.ts';
import { identPart, identStart, skipSpace } from './scan-expr.ts';
import { isStringPrefix, skipString } from './strings.ts';

/**
 * Names whose use reads attributes by a name computed at run time. `eval`/`exec` of a string are not among them:
 * code in strings is not read, for names (reported unresolved) as for attributes.
 */
const DYNAMIC_NAMES = new Set(['methodcaller', 'attrgetter', 'getmembers', 'getattr_static', '__getattribute__']);
/** A property's accessors: `@width.setter` reads the property object, it calls none of its functions. */
const ACCESSORS = new Set(['setter', 'getter', 'deleter']);
const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from ' +
    'global if import in is lambda nonlocal not or pass raise return try while with yield match case'
  ).split(' '),
);

export interface AttrScanOptions {
  /** The method's first parameter (`self`, `cls`): `getattr(self, name)` reaches this class's methods only. */
  selfName?: string;
  /** Also count bare names (a class body: `run = _impl` makes method `_impl` callable as `run`). */
  identifiers?: boolean;
}

/** A dynamic read off a named object: its dotted name and where it starts (UTF-16). */
export interface RawReceiver {
  name: string;
  pos: number;
}

const DOTTED = /^[\p{XID_Start}_][\p{XID_Continue}]*(?:\s*\.\s*[\p{XID_Start}_][\p{XID_Continue}]*)*$/u;

class Scanner {
  readonly names = new Set<string>();
  /** Read off the method's first parameter only (`self.norm`), and off `super()` (`super().forward`). */
  readonly selfNames = new Set<string>();
  readonly superNames = new Set<string>();
  /** Only probed: `hasattr(x, 'init_weights')` runs a property, never calls a method. */
  readonly probeNames = new Set<string>();
  /** Where the `)` of each `super(...)` call is. */
  private readonly superCloses = new Set<number>();
  dynamic: AttrReads['dynamic'];
  readonly receivers: RawReceiver[] = [];
  /** Ranges where names are only type-tested: `isinstance`/`issubclass`'s second argument, an `except` clause. */
  readonly typeTests: [number, number][] = [];

  constructor(
    private readonly s: string,
    private readonly opts: AttrScanOptions,
  ) {}

  private flag(kind: 'self' | 'any'): void {
    if (this.dynamic !== 'any') this.dynamic = kind;
  }

  // eslint-disable-next-line complexity -- one loop over characters: its branches are the kinds of token
  scan(start: number, end: number): void {
    const s = this.s;
    // What the last token was: a name read on its own ('head'), an attribute ('attr'), the `)` closing a
    // `super(...)` call ('super'), a '.' (then `recv` says what it is read off), or anything else.
    let last: 'head' | 'attr' | 'super' | 'dot' | 'other' = 'other';
    let lastWord = '';
    let recv: 'self' | 'super' | 'other' = 'other';
    let i = start;
    while (i < end) {
      i = skipSpace(s, i, end);
      if (i >= end) break;
      const ch = s.charCodeAt(i);
      if (identStart(ch)) {
        let j = i + 1;
        while (j < end && identPart(s.charCodeAt(j))) j++;
        const word = s.slice(i, j);
        if (isStringPrefix(s, i, j)) {
          const e = skipString(s, j, end);
          if (/[fF]/.test(word)) this.scan(j + 1, e - 1); // an f-string's {expressions}
          i = e;
          last = 'other';
          continue;
        }
        const next = skipSpace(s, j, end);
        const call = s.charCodeAt(next) === 40;
        if (last === 'dot') {
          if (!KEYWORDS.has(word))
            (recv === 'self' ? this.selfNames : recv === 'super' ? this.superNames : this.names).add(word);
          // `self.__dict__` holds instance attributes only (methods live on the class); `cls.__dict__` may not.
          if (word === '__dict__' && lastWord !== 'self') this.flag(this.isSelf(lastWord) ? 'self' : 'any');
          last = 'attr';
        } else {
          if (!KEYWORDS.has(word) && lastWord !== 'def' && lastWord !== 'class') {
            if (this.opts.identifiers && !this.accessor(next, end)) this.names.add(word);
            if (call && (word === 'getattr' || word === 'hasattr')) this.getattr(next + 1, end, word === 'hasattr');
            else if (call && word === 'vars') this.vars(next + 1, end);
            else if (call && (word === 'isinstance' || word === 'issubclass')) this.typeTest(next + 1, end);
            else if (call && word === 'super') this.superCloses.add(topLevelComma(s, next + 1, end, true, true));
          } else if (word === 'except') this.exceptClause(j, end);
          last = 'head';
        }
        if (DYNAMIC_NAMES.has(word) && lastWord !== 'def') this.flag('any');
        lastWord = word;
        i = j;
        continue;
      }
      if (ch === 39 || ch === 34) {
        i = skipString(s, i, end);
        last = 'other';
        continue;
      }
      if (ch >= 48 && ch <= 57) {
        // A number (`1.5e-3`, `0x1F`, `2j`): its dot is not an attribute read.
        i++;
        while (i < end && (identPart(s.charCodeAt(i)) || s.charCodeAt(i) === 46)) i++;
        last = 'other';
        continue;
      }
      if (ch === 46 && s.charCodeAt(i + 1) !== 46) {
        recv = last === 'super' ? 'super' : last === 'head' && this.isReceiverSelf(lastWord) ? 'self' : 'other';
        last = 'dot';
      } else {
        if (ch === 46) i += 2; // `...`
        last = ch === 41 && this.superCloses.has(i) ? 'super' : 'other';
      }
      i++;
    }
  }

  /** `self.norm` in a method (its first parameter): a read dispatched on the method's own class. */
  private isReceiverSelf(word: string): boolean {
    return this.opts.selfName !== undefined && word === this.opts.selfName;
  }

  /** `width.setter`: the next tokens are `.setter`/`.getter`/`.deleter`. */
  private accessor(next: number, end: number): boolean {
    const s = this.s;
    if (s.charCodeAt(next) !== 46) return false;
    const at = skipSpace(s, next + 1, end);
    let j = at;
    while (j < end && identPart(s.charCodeAt(j))) j++;
    return ACCESSORS.has(s.slice(at, j));
  }

  /** The arguments of `getattr(` / `hasattr(` from `i`: a literal second argument is a read of that name. */
  private getattr(i: number, end: number, probe: boolean): void {
    const s = this.s;
    const comma = topLevelComma(s, i, end);
    if (comma < 0) return;
    const at = skipSpace(s, comma + 1, end);
    let j = at;
    while (j < end && /[rRuU]/.test(s[j])) j++;
    const q = s.charCodeAt(j);
    if (q === 39 || q === 34) {
      const e = skipString(s, j, end);
      const after = skipSpace(s, e, end);
      const name = s.slice(j + 1, e - 1);
      const close = s.charCodeAt(after);
      if ((close === 44 || close === 41) && /^[\p{XID_Start}_][\p{XID_Continue}]*$/u.test(name)) {
        const self = this.isReceiverSelf(s.slice(i, comma).trim());
        (probe ? this.probeNames : self ? this.selfNames : this.names).add(name);
        return;
      }
    }
    this.receiver(i, comma);
  }

  /** Classifies the object `s[i, end)` attributes are read off by a computed name. */
  private receiver(i: number, end: number): void {
    const text = this.s.slice(i, end);
    const name = text.trim();
    if (this.isSelf(name)) this.flag('self');
    else if (DOTTED.test(name) && !/^self\b/.test(name) && name.split(/\s*\./)[0] !== this.opts.selfName)
      this.receivers.push({ name: name.replace(/\s+/g, ''), pos: i + text.indexOf(name) });
    else this.flag('any');
  }

  /** `isinstance(x, (A, B))`: the second argument's range. */
  private typeTest(i: number, end: number): void {
    const comma = topLevelComma(this.s, i, end);
    if (comma < 0) return;
    const stop = topLevelComma(this.s, comma + 1, end, true);
    if (stop > comma) this.typeTests.push([comma + 1, stop]);
  }

  /** `except (A, B) as e:`: from the keyword to `as` or the colon. */
  private exceptClause(i: number, end: number): void {
    const s = this.s;
    let depth = 0;
    for (let j = i; j < end; j++) {
      const ch = s.charCodeAt(j);
      if (ch === 40 || ch === 91) depth++;
      else if (ch === 41 || ch === 93) depth--;
      else if (
        depth === 0 &&
        (ch === 58 || (ch === 97 && /^as\b/.test(s.slice(j, j + 3)) && !identPart(s.charCodeAt(j - 1))))
      ) {
        if (j > i) this.typeTests.push([i, j]);
        return;
      }
    }
  }

  /** `vars(self)` holds instance attributes only; `vars(cls)` this class's methods; `vars(obj)` anything's. */
  private vars(i: number, end: number): void {
    const close = topLevelComma(this.s, i, end, true);
    const arg = this.s.slice(i, close < 0 ? end : close).trim();
    if (arg === '' || arg === 'self') return;
    this.receiver(i, close < 0 ? end : close);
  }

  private isSelf(receiver: string): boolean {
    const self = this.opts.selfName ?? 'self';
    return receiver === self || receiver === 'self' || receiver === `type(${self})` || receiver === `${self}.__class__`;
  }
}

/**
 * Index of the first comma at bracket depth 0 from `i` (inside a call's parentheses), or -1; with `orClose`, of
 * the closing parenthesis when no comma comes first.
 */
function topLevelComma(s: string, i: number, end: number, orClose = false, closeOnly = false): number {
  let depth = 0;
  while (i < end) {
    const ch = s.charCodeAt(i);
    if (ch === 39 || ch === 34) {
      i = skipString(s, i, end);
      continue;
    }
    if (ch === 40 || ch === 91 || ch === 123) depth++;
    else if (ch === 41 || ch === 93 || ch === 125) {
      if (depth === 0) return orClose ? i : -1;
      depth--;
    } else if (ch === 44 && depth === 0 && !closeOnly) return i;
    i++;
  }
  return -1;
}

/** The right-hand side of `name = <rhs>` when it keeps a module path: `import_module(p)`, `m`, `getattr(m, part)`. */
const MODULE_CALL = /^(?:importlib\s*\.\s*)?(?:import_module|__import__)\s*\(/;
const ALIAS = /^([\p{XID_Start}_][\p{XID_Continue}]*)\s*(?:#.*)?$/u;
const GETATTR_OFF = /^getattr\s*\(\s*([\p{XID_Start}_][\p{XID_Continue}]*)\s*,/u;

/**
 * Locals that only ever hold a module or what a dotted path names in one: every binding is `m =
 * import_module(p)` (or `importlib.import_module`, `__import__`), `m = other` or `m = getattr(other, part)` with
 * `other` such a local too, and nothing else binds them (no parameter, loop, `as`, unpacking or walrus). A read by
 * computed name off them follows a dotted path given as a string, like a registry looked up by a string: what it
 * names is reached only if the closure reached it (docs/resolve.md, "Methods").
 *   module = import_module(module_name); obj = module
 *   obj = getattr(obj, part)              # mmengine's get_object_from_string: not a dynamic read of methods
 */
function moduleLocals(code: string, names: Set<string>): Set<string> {
  const rhs = new Map<string, string[]>();
  const ok = new Set<string>();
  const queue = [...names];
  const seen = new Set(names);
  for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
    const other = new RegExp(
      `\\bdef\\s+[\\p{XID_Start}_][\\p{XID_Continue}]*\\s*\\([^)]*(?<![\\p{XID_Continue}.])${n}(?![\\p{XID_Continue}])|` +
        `\\bfor\\b[^\\n]*(?<![\\p{XID_Continue}.])${n}(?![\\p{XID_Continue}])[^\\n]*\\bin\\b|\\bas\\s+${n}(?![\\p{XID_Continue}])|` +
        `\\blambda\\b[^:\\n]*(?<![\\p{XID_Continue}.])${n}(?![\\p{XID_Continue}])|(?<![\\p{XID_Continue}.])${n}\\s*:=|` +
        `(?<![\\p{XID_Continue}.])${n}\\s*,[^\\n=()]*=(?!=)|,\\s*${n}\\s*=(?!=)|(?<![\\p{XID_Continue}.])${n}\\s*:[^\\n]*=`,
      'u',
    );
    if (other.test(code)) continue;
    const values = [...code.matchAll(new RegExp(`(?<![\\p{XID_Continue}.])${n}\\s*=(?!=)([^\\n]*)`, 'gu'))].map((m) =>
      m[1].trim(),
    );
    if (!values.length) continue;
    rhs.set(n, values);
    // `obj = module`, `obj = getattr(module, part)`: module must be a module path too.
    for (const v of values) {
      const m = ALIAS.exec(v) ?? GETATTR_OFF.exec(v);
      if (m && !seen.has(m[1])) {
        seen.add(m[1]);
        queue.push(m[1]);
      }
    }
  }
  // Greatest fixpoint: assume every candidate is a module path, drop those with a binding that isn't one.
  for (const n of rhs.keys()) ok.add(n);
  for (let changed = true; changed;) {
    changed = false;
    for (const n of [...ok]) {
      const keeps = rhs.get(n)!.every((v) => {
        if (MODULE_CALL.test(v)) return true;
        const m = ALIAS.exec(v) ?? GETATTR_OFF.exec(v);
        return m !== null && ok.has(m[1]);
      });
      if (!keeps) {
        ok.delete(n);
        changed = true;
      }
    }
  }
  // ... and that hold a module at all: some binding imports one, or takes one from such a local.
  const rooted = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const n of ok) {
      if (rooted.has(n)) continue;
      const root = rhs.get(n)!.some((v) => {
        const m = ALIAS.exec(v) ?? GETATTR_OFF.exec(v);
        return MODULE_CALL.test(v) || (m !== null && rooted.has(m[1]));
      });
      if (root) {
        rooted.add(n);
        changed = true;
      }
    }
  }
  return rooted;
}

/**
 * The attribute names read in `ranges` of `text` (UTF-16 offsets, in order), whether some are read dynamically
 * (with the named objects read off, `receivers`, UTF-16), and the ranges (UTF-16, appended to `typeTests`) where
 * names are only type-tested.
 */
export function attrReads(
  text: string,
  ranges: [number, number][],
  opts: AttrScanOptions = {},
  typeTests: [number, number][] = [],
): { reads: AttrReads; receivers: RawReceiver[] } {
  const sc = new Scanner(text, opts);
  for (const [start, end] of ranges) sc.scan(start, end);
  typeTests.push(...sc.typeTests);
  const reads: AttrReads = { names: [...sc.names].sort() };
  if (sc.selfNames.size) reads.selfNames = [...sc.selfNames].sort();
  if (sc.superNames.size) reads.superNames = [...sc.superNames].sort();
  const probes = [...sc.probeNames].filter((n) => !sc.names.has(n) && !sc.selfNames.has(n));
  if (probes.length) reads.probeNames = probes.sort();
  if (sc.dynamic) reads.dynamic = sc.dynamic;
  let receivers = sc.receivers;
  if (receivers.length) {
    const code = ranges.map(([a, b]) => text.slice(a, b)).join('\n');
    const locals = new Set(receivers.filter((r) => !r.name.includes('.')).map((r) => r.name));
    const modules = moduleLocals(code, locals);
    receivers = receivers.filter((r) => !modules.has(r.name));
  }
  return { reads, receivers };
}

const GETATTR_BEFORE = /(?<![\p{XID_Continue}.])(?:getattr|hasattr)[ \t]*\([ \t]*$/u;
const GETATTR_AFTER =
  /[ \t]*,[ \t]*(?:'([\p{XID_Start}_][\p{XID_Continue}]*)'|"([\p{XID_Start}_][\p{XID_Continue}]*)")[ \t]*[,)]/uy;

const GETATTR_TABLE = /[ \t]*,[ \t]*([\p{XID_Start}_][\p{XID_Continue}]*)[ \t]*\[/uy;

/**
 * What a read of a name at `pos`..`end` as the first argument of `getattr`/`hasattr` reads off it: `attr`, the
 * literal name (`getattr(helpers, 'f')` reads f as `helpers.f` does: NameOccurrence.attrs; only a plain string on the
 * same line), or `via`, the table a computed name is taken from (`getattr(auto_module, PLACEHOLDERS[p][0])` →
 * 'PLACEHOLDERS': NameOccurrence.via). Undefined for anything else.
 */
export function getattrName(text: string, pos: number, end: number): { attr: string } | { via: string } | undefined {
  if (!GETATTR_BEFORE.test(text.slice(Math.max(0, pos - 24), pos))) return undefined;
  GETATTR_AFTER.lastIndex = end;
  const m = GETATTR_AFTER.exec(text);
  if (m) return { attr: m[1] ?? m[2] };
  GETATTR_TABLE.lastIndex = end;
  const t = GETATTR_TABLE.exec(text);
  return t ? { via: t[1] } : undefined;
}
