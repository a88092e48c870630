// A minimal TOML reader for pyproject.toml, behind one function shaped like smol-toml's `parse` (a plain object
// out), so swapping in that package is a change to this file alone:
//
//   import { parse, TomlError } from 'smol-toml';
//   export function parseToml(text: string): TomlResult {
//     try { return { ok: true, value: parse(text) as TomlTable }; }
//     catch (e) { if (e instanceof TomlError) return { ok: false, error: e.message, line: e.line }; throw e; }
//   }
//
// What it reads fully: tables and arrays of tables, dotted and quoted keys, the four string forms with escapes,
// arrays (multi-line, comments, trailing commas) and inline tables. Numbers, booleans and dates are read leniently
// (nothing here looks at them). It does not reject every invalid document (duplicate keys: the last wins).

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export type TomlResult = { ok: true; value: TomlTable } | { ok: false; error: string; line: number };

/** Parses a TOML document; a message and a 1-based line when it is not one. */
export function parseToml(text: string): TomlResult {
  const r = new TomlReader(text);
  try {
    return { ok: true, value: r.document() };
  } catch (err) {
    if (err instanceof TomlSyntax) return { ok: false, error: err.message, line: r.lineAt(err.at) };
    throw err;
  }
}

/** Internal: unwinds the recursive reader to parseToml, which returns it as data. */
class TomlSyntax extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** Tables have no prototype: a hostile `[__proto__]` or `constructor.x = 1` is an ordinary key, nothing more. */
function newTable(): TomlTable {
  return Object.create(null) as TomlTable;
}

const BARE_KEY = /[A-Za-z0-9_-]+/y;
const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

class TomlReader {
  private i = 0;
  constructor(private readonly s: string) {}

  lineAt(at: number): number {
    let line = 1;
    for (let k = 0; k < at && k < this.s.length; k++) if (this.s.charCodeAt(k) === 10) line++;
    return line;
  }

  document(): TomlTable {
    const root = newTable();
    let table = root;
    for (;;) {
      this.blank(true);
      if (this.i >= this.s.length) return root;
      if (this.s[this.i] === '[') {
        const many = this.s[this.i + 1] === '[';
        this.i += many ? 2 : 1;
        const keys = this.keyPath();
        if (!this.eat(many ? ']]' : ']')) this.fail(`expected ${many ? ']]' : ']'} after the table name`);
        table = many ? this.appendTable(root, keys) : this.descend(root, keys);
      } else {
        const keys = this.keyPath();
        if (!this.eat('=')) this.fail('expected `=` after a key');
        const value = this.value();
        this.descend(table, keys.slice(0, -1))[keys[keys.length - 1]] = value;
      }
      this.blank(false);
      if (this.i < this.s.length && !this.newline()) this.fail('expected the end of the line');
    }
  }

  /** Skips spaces and tabs, a comment, and (when `lines`) newlines with more of the same. */
  private blank(lines: boolean): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t') this.i++;
      else if (c === '#') while (this.i < this.s.length && this.s[this.i] !== '\n') this.i++;
      else if (lines && (c === '\n' || c === '\r')) this.i++;
      else return;
    }
  }

  private newline(): boolean {
    if (this.s[this.i] === '\n') this.i++;
    else if (this.s.startsWith('\r\n', this.i)) this.i += 2;
    else return false;
    return true;
  }

  private eat(token: string): boolean {
    this.blank(false);
    if (!this.s.startsWith(token, this.i)) return false;
    this.i += token.length;
    return true;
  }

  private fail(message: string): never {
    throw new TomlSyntax(message, this.i);
  }

  /** `a.b."c d"` → ['a', 'b', 'c d']. */
  private keyPath(): string[] {
    const keys: string[] = [];
    do {
      this.blank(false);
      const c = this.s[this.i];
      if (c === '"') keys.push(this.basicString());
      else if (c === "'") keys.push(this.literalString());
      else {
        BARE_KEY.lastIndex = this.i;
        const m = BARE_KEY.exec(this.s);
        if (!m) this.fail('expected a key');
        keys.push(m[0]);
        this.i += m[0].length;
      }
    } while (this.eat('.'));
    return keys;
  }

  /** The table at `keys` below `from`, made when missing; the last element of an array of tables is entered. */
  private descend(from: TomlTable, keys: string[]): TomlTable {
    let t = from;
    for (const k of keys) {
      let next = Object.hasOwn(t, k) ? t[k] : undefined;
      if (Array.isArray(next)) next = next[next.length - 1];
      if (next === undefined) t[k] = next = newTable();
      if (typeof next !== 'object' || Array.isArray(next)) this.fail(`key ${JSON.stringify(k)} is not a table`);
      t = next;
    }
    return t;
  }

  private appendTable(root: TomlTable, keys: string[]): TomlTable {
    const parent = this.descend(root, keys.slice(0, -1));
    const last = keys[keys.length - 1];
    const list = Object.hasOwn(parent, last) ? parent[last] : (parent[last] = []);
    if (!Array.isArray(list)) this.fail(`key ${JSON.stringify(last)} is not an array of tables`);
    const table = newTable();
    list.push(table);
    return table;
  }

  private value(): TomlValue {
    this.blank(false);
    const c = this.s[this.i];
    if (c === '"') return this.basicString();
    if (c === "'") return this.literalString();
    if (c === '[') return this.array();
    if (c === '{') return this.inlineTable();
    // Booleans, numbers, dates (`1979-05-27 07:32:00Z` has a space): read leniently, nothing here uses them.
    const m = /(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d[^\s,\]}#]*)|[^\s,\]}#]+/y;
    m.lastIndex = this.i;
    const hit = m.exec(this.s);
    if (!hit) this.fail('expected a value');
    this.i += hit[0].length;
    if (hit[0] === 'true' || hit[0] === 'false') return hit[0] === 'true';
    const n = Number(hit[0].replace(/_/g, ''));
    return Number.isFinite(n) ? n : hit[0];
  }

  private array(): TomlValue[] {
    this.i++; // [
    const out: TomlValue[] = [];
    for (;;) {
      this.blank(true);
      if (this.s[this.i] === ']') break;
      out.push(this.value());
      this.blank(true);
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== ']') this.fail('expected `,` or `]` in an array');
    }
    this.i++; // ]
    return out;
  }

  private inlineTable(): TomlTable {
    this.i++; // {
    const out = newTable();
    for (;;) {
      this.blank(true); // newlines inside inline tables are TOML 1.1; accepted
      if (this.s[this.i] === '}') break;
      const keys = this.keyPath();
      if (!this.eat('=')) this.fail('expected `=` in an inline table');
      const value = this.value();
      this.descend(out, keys.slice(0, -1))[keys[keys.length - 1]] = value;
      this.blank(true);
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') this.fail('expected `,` or `}` in an inline table');
    }
    this.i++; // }
    return out;
  }

  private literalString(): string {
    const multi = this.s.startsWith("'''", this.i);
    const quote = multi ? "'''" : "'";
    const start = this.i + quote.length;
    const end = this.s.indexOf(quote, start);
    if (end < 0 || (!multi && this.s.slice(start, end).includes('\n'))) this.fail('a string is not closed');
    this.i = end + quote.length;
    const body = this.s.slice(start, end);
    return multi ? body.replace(/^\r?\n/, '') : body;
  }

  private basicString(): string {
    const multi = this.s.startsWith('"""', this.i);
    this.i += multi ? 3 : 1;
    if (multi) this.newline(); // a newline right after the opening quotes is trimmed
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('a string is not closed');
      const c = this.s[this.i];
      if (multi ? this.s.startsWith('"""', this.i) : c === '"') {
        this.i += multi ? 3 : 1;
        return out;
      }
      if (!multi && c === '\n') this.fail('a string is not closed on its line');
      if (c !== '\\') {
        out += c;
        this.i++;
        continue;
      }
      const e = this.s[this.i + 1];
      if (multi && /[ \t\r\n]/.test(e ?? '')) {
        // a line-ending backslash: the newline and the whitespace after it vanish
        this.i++;
        while (/[ \t\r\n]/.test(this.s[this.i] ?? '')) this.i++;
      } else if (e in ESCAPES) {
        out += ESCAPES[e];
        this.i += 2;
      } else if (e === 'u' || e === 'U' || e === 'x') {
        const len = e === 'u' ? 4 : e === 'U' ? 8 : 2;
        const hex = this.s.slice(this.i + 2, this.i + 2 + len);
        const code = /^[0-9a-fA-F]+$/.test(hex) && hex.length === len ? parseInt(hex, 16) : NaN;
        if (!(code <= 0x10ffff)) this.fail('a bad unicode escape');
        out += String.fromCodePoint(code);
        this.i += 2 + len;
      } else this.fail(`a bad escape \\${e ?? ''}`);
    }
  }
}
