// Config validation: the JSON Schema through ajv, then checks a schema cannot express; every problem names the
// field path (`sources[2].ref`), what is wrong and the fix. Fix hints live in the schema as `x-fix` keywords.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { isRefTarget } from '../contract/rules.ts';
import { RUN_LIMITS } from '../contract/vocabulary.ts';
import { globProblem } from '../util/glob.ts';

export interface ConfigProblem {
  /** Field path in JS notation: `sources[2].ref`, `validate.overrides["a.b"]`, or `(file)`. */
  path: string;
  message: string;
  fix: string;
}

type Json = Record<string, unknown>;

export const SCHEMA_PATH = new URL('../../content/corpus.schema.json', import.meta.url);

interface Compiled {
  validate: ValidateFunction;
  /** Each schema node's parent node: ajv hands back the node that failed, fixes may sit on an ancestor. */
  parents: Map<object, Json>;
}

let compiled: Compiled | null = null;

function parentMap(node: unknown, parent: Json | null, out: Map<object, Json>): Map<object, Json> {
  if (node && typeof node === 'object') {
    if (parent) out.set(node, parent);
    for (const v of Object.values(node)) parentMap(v, node as Json, out);
  }
  return out;
}

function compile(): Compiled {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Json;
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false });
    // An annotation keyword: ajv ignores it while validating; we read it back from `parentSchema` for the fix.
    ajv.addKeyword({ keyword: 'x-fix', schemaType: 'string' });
    compiled = { validate: ajv.compile(schema), parents: parentMap(schema, null, new Map()) };
  }
  return compiled;
}

/** `/sources/2/ref` → `sources[2].ref`; keys that are not identifiers are quoted. `more`: segments after those. */
export function fieldPath(pointer: string, extra?: string, more: string[] = []): string {
  const segs =
    pointer === ''
      ? []
      : pointer
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) segs.push(extra);
  segs.push(...more);
  let out = '';
  for (const s of segs) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out || '(top level)';
}

/** The nearest schema node at or above `node` that has `key` (ajv's `parentSchema` is the original object). */
function nearest(parents: Map<object, Json>, node: Json, key: string): Json | undefined {
  for (let n: Json | undefined = node; n; n = parents.get(n)) if (key in n) return n;
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value);
}

/** Closest known name within edit distance 2, for "did you mean". */
function closest(name: string, known: string[]): string | null {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)] as number[]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++)
        d[i][j] = Math.min(
          d[i - 1][j] + 1,
          d[i][j - 1] + 1,
          d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
        );
    return d[a.length][b.length];
  };
  let best: string | null = null;
  let bestD = 3;
  for (const k of known) {
    const dk = dist(name, k);
    if (dk < bestD) [best, bestD] = [k, dk];
  }
  return best;
}

function translate(e: ErrorObject, parents: Map<object, Json>): ConfigProblem | null {
  const parent = (e.parentSchema ?? {}) as Json;
  // Array items (`shape[1]`) carry no hint of their own; the array's hint applies.
  const fix = (nearest(parents, parent, 'x-fix')?.['x-fix'] as string | undefined) ?? '';
  switch (e.keyword) {
    case 'if':
      return null; // the failing `then` reports the concrete missing field
    case 'anyOf':
      return {
        path: fieldPath(e.instancePath),
        message: `is none of the allowed forms (got ${describe(e.data)})`,
        fix: fix || 'see content/corpus.schema.json',
      };
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      // `then: { required }` inside a source: the field schemas are on the enclosing object schema.
      const owner = nearest(parents, parent, 'properties') ?? parent;
      const field = ((owner.properties ?? {}) as Record<string, Json>)[missing] ?? {};
      const kind = /allOf\/(\d)\/then/.exec(e.schemaPath);
      const why = kind ? ` (a ${['git', 'python', 'path'][Number(kind[1])]} source needs it)` : '';
      return {
        path: fieldPath(e.instancePath, missing),
        message: `is missing${why}`,
        fix: `add it: ${(field['x-fix'] as string) ?? (field.description as string) ?? missing}`,
      };
    }
    case 'additionalProperties': {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys((parent.properties ?? {}) as Json);
      const guess = closest(extra, known);
      return {
        path: fieldPath(e.instancePath, extra),
        message: 'is not a known field',
        fix: guess ? `did you mean "${guess}"? rename it` : `remove it; known fields here: ${known.join(', ')}`,
      };
    }
    case 'enum':
      return {
        path: fieldPath(e.instancePath),
        message: `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')} (got ${describe(e.data)})`,
        fix: fix || 'use one of the allowed values',
      };
    case 'type': {
      const t = (e.params as { type: string }).type;
      return {
        path: fieldPath(e.instancePath),
        message: `must be ${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t} (got ${describe(e.data)})`,
        fix: fix || 'change the value to the right type',
      };
    }
    case 'pattern':
      return {
        path: fieldPath(e.instancePath),
        message: `has the wrong form (got ${describe(e.data)})`,
        fix: fix || `match ${(e.params as { pattern: string }).pattern}`,
      };
    default:
      return {
        path: fieldPath(e.instancePath),
        message: `${e.message ?? e.keyword} (got ${describe(e.data)})`,
        fix: fix || 'see content/corpus.schema.json',
      };
  }
}

const KIND_FIELDS: Record<string, string[]> = {
  url: ['git'],
  ref: ['git'],
  repository: ['git', 'path'],
  distribution: ['python'],
  releaseDate: ['python'],
  path: ['path'],
};

/** Checks ajv can't do: unique ids, globs that can never match, fields of another kind, folders that don't exist. */
function semanticProblems(data: Json, projectRoot: string, resolvePath: (p: string) => string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (typeof data.python === 'string' && data.python.includes('/') && !existsSync(resolvePath(data.python))) {
    problems.push({
      path: 'python',
      message: `interpreter ${resolvePath(data.python)} does not exist`,
      fix: 'point it at an interpreter that imports torch (e.g. "/usr/bin/python3"), or remove the field to auto-detect',
    });
  }
  const env = data.environment as Json | undefined;
  if (env && typeof env.python === 'string' && env.python.includes('/') && !existsSync(resolvePath(env.python))) {
    problems.push({
      path: 'environment.python',
      message: `interpreter ${resolvePath(env.python)} does not exist`,
      fix: 'point it at a Python 3 with the venv module (e.g. "/usr/bin/python3"), or remove the field',
    });
  }
  if (!Array.isArray(data.sources)) return problems;
  const seen = new Map<string, number>();
  data.sources.forEach((raw, i) => {
    if (!raw || typeof raw !== 'object') return;
    const s = raw as Json;
    const at = (f: string) => `sources[${i}].${f}`;
    if (typeof s.id === 'string') {
      const first = seen.get(s.id);
      if (first !== undefined)
        problems.push({
          path: at('id'),
          message: `"${s.id}" is already the id of sources[${first}]`,
          fix: 'give every source its own id, e.g. add a suffix such as "-fork"',
        });
      else seen.set(s.id, i);
    }
    if (typeof s.kind === 'string') {
      for (const [field, kinds] of Object.entries(KIND_FIELDS)) {
        if (field in s && !kinds.includes(s.kind))
          problems.push({
            path: at(field),
            message: `only applies to ${kinds.join(' and ')} sources, but this source is kind "${s.kind}"`,
            fix: `remove "${field}", or set "kind": "${kinds[0]}"`,
          });
      }
    }
    for (const list of ['include', 'exclude', 'configs'] as const) {
      const globs = s[list];
      if (!Array.isArray(globs)) continue;
      globs.forEach((g, j) => {
        if (typeof g !== 'string') return;
        const p = globProblem(g);
        if (p) return problems.push({ path: `${at(list)}[${j}]`, message: `glob ${p.message}`, fix: p.fix });
        const last = g.split('/').pop()!;
        // Only Python files are indexed: `docs/*.md` or `**/*.pyc` can never select one.
        const ext = /\*[^/*]*\.([A-Za-z0-9]+)$/.exec(last);
        if (list !== 'exclude' && ext && ext[1] !== 'py')
          problems.push({
            path: `${at(list)}[${j}]`,
            message: `glob "${g}" can never match a Python (.py) file, and only Python files are indexed`,
            fix: `end it with ".py", e.g. "${g.replace(/\.[A-Za-z0-9]+$/, '.py')}"`,
          });
        if (list === 'exclude' && /^(\*\*)(\/\*+)?$/.test(g))
          problems.push({
            path: `${at(list)}[${j}]`,
            message: `glob "${g}" excludes every file, so the source would be empty`,
            fix: 'exclude specific folders, e.g. "**/tests/**"',
          });
      });
    }
    if (typeof s.importRoot === 'string' && (s.importRoot.startsWith('/') || s.importRoot.split('/').includes('..'))) {
      problems.push({
        path: at('importRoot'),
        message: `"${s.importRoot}" points outside the source root`,
        fix: 'use a folder relative to the source root, e.g. "src", or "" for the root',
      });
    }
    if (s.kind === 'path' && typeof s.path === 'string') {
      const abs = resolvePath(s.path);
      if (!existsSync(abs))
        problems.push({
          path: at('path'),
          message: `folder ${abs} does not exist (relative paths resolve against ${projectRoot})`,
          fix: 'correct the path, or create the folder',
        });
      else if (!statSync(abs).isDirectory())
        problems.push({
          path: at('path'),
          message: `${abs} is a file, not a folder`,
          fix: 'point it at the folder that holds the Python package',
        });
    }
  });
  return problems;
}

/** How deep a recipe value may nest (lists, tuples, instances): the runner's record is refused past it. */
const MAX_OVERRIDE_DEPTH = RUN_LIMITS.literalDepth;

/**
 * An override's constructor arguments, beyond their shapes (the schema's `overrideValue`): an object is a tuple or an
 * instance, never both nor neither; `kwargs` belongs to an instance; `refs` names plain strings; the nesting stays
 * within what a recipe records.
 */
function overrideProblems(data: Json): ConfigProblem[] {
  const overrides = (data.validate as Json | undefined)?.overrides;
  if (!overrides || typeof overrides !== 'object') return [];
  const problems: ConfigProblem[] = [];
  const walk = (v: unknown, at: string[], depth: number) => {
    const path = fieldPath('', undefined, at);
    if (
      Array.isArray(v) ||
      (v && typeof v === 'object' && 'tuple' in v) ||
      (v && typeof v === 'object' && 'class' in v)
    )
      if (depth >= MAX_OVERRIDE_DEPTH) {
        problems.push({
          path,
          message: `nests lists, tuples and instances more than ${MAX_OVERRIDE_DEPTH} deep`,
          fix: 'flatten it, or build the innermost part with a default of its class',
        });
        return;
      }
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, [...at, String(i)], depth + 1));
    if (!v || typeof v !== 'object') return;
    const o = v as Json;
    if ('class' in o && 'tuple' in o)
      problems.push({
        path,
        message: 'has both "class" and "tuple"',
        fix: 'keep "class" (with "kwargs") for an instance, or "tuple" for a tuple',
      });
    else if (!('class' in o) && !('tuple' in o))
      problems.push({
        path,
        message: 'is an object that is neither an instance nor a tuple',
        fix: 'add "class" (and "kwargs") for an instance, e.g. { "class": ".TwoWayTransformer", "kwargs": { "depth": 2 } }, or write { "tuple": [8, 8] }',
      });
    else if ('tuple' in o && 'kwargs' in o)
      problems.push({
        path: fieldPath('', undefined, [...at, 'kwargs']),
        message: 'belongs to an instance, not a tuple',
        fix: 'remove it, or use "class" instead of "tuple"',
      });
    if (Array.isArray(o.tuple)) o.tuple.forEach((x, i) => walk(x, [...at, 'tuple', String(i)], depth + 1));
    if (o.kwargs && typeof o.kwargs === 'object' && !Array.isArray(o.kwargs))
      for (const [k, x] of Object.entries(o.kwargs)) walk(x, [...at, 'kwargs', k], depth + 1);
  };
  for (const [key, o] of Object.entries(overrides as Json)) {
    if (!o || typeof o !== 'object') continue;
    const kwargs = (o as Json).kwargs;
    if (!kwargs || typeof kwargs !== 'object' || Array.isArray(kwargs)) continue;
    const at = ['validate', 'overrides', key, 'kwargs'];
    for (const [k, v] of Object.entries(kwargs as Json)) walk(v, [...at, k], 0);
    const refs = (o as Json).refs;
    for (const [i, r] of (Array.isArray(refs) ? refs : []).entries()) {
      if (typeof r !== 'string') continue;
      const v = (kwargs as Json)[r];
      const path = fieldPath('', undefined, ['validate', 'overrides', key, 'refs', String(i)]);
      if (v === undefined)
        problems.push({
          path,
          message: `names kwarg "${r}", which kwargs does not have`,
          fix: `add "${r}" to kwargs with a dotted name such as "torch.nn.BatchNorm2d", or remove it from refs`,
        });
      else if (!isRefTarget(v))
        problems.push({
          path,
          message: `names kwarg "${r}", whose value is not a dotted name (got ${JSON.stringify(v)})`,
          fix:
            typeof v === 'string'
              ? `write a module and a name ("torch.nn.${v}"), or ".${v}" for a class of the block's package`
              : `give "${r}" a dotted name such as "torch.nn.BatchNorm2d", or remove it from refs (an instance is { "class": ..., "kwargs": ... } without refs)`,
        });
    }
  }
  return problems;
}

/** All problems of a parsed config: schema first, then semantic checks; empty when valid. */
export function validateConfig(
  data: unknown,
  projectRoot: string,
  resolvePath: (p: string) => string,
): ConfigProblem[] {
  const { validate, parents } = compile();
  const problems: ConfigProblem[] = [];
  if (!validate(data)) {
    for (const e of validate.errors ?? []) {
      // The branches of an `anyOf` each fail on their own; the `anyOf` error itself says it once, with the fix.
      if (/\/anyOf\/\d+\//.test(e.schemaPath)) continue;
      const p = translate(e, parents);
      if (p && !problems.some((q) => q.path === p.path && q.message === p.message)) problems.push(p);
    }
  }
  if (data && typeof data === 'object' && !Array.isArray(data))
    problems.push(
      ...semanticProblems(data as Json, projectRoot, resolvePath),
      ...overrideProblems(data as Json).filter((p) => !problems.some((q) => q.path === p.path)),
    );
  return problems;
}
