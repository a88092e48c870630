// The taxonomy of architectural ideas (data/taxonomy.json, docs/taxonomy.md): loaded once, checked (slugs, aliases,
// patterns, paper ids), and used to say which methods a block implements. Every verdict carries the rule that fired,
// so a method page can say why a block is listed. Search reads the synonyms through `taxonomySynonyms()`.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MethodHit } from '../contract/block.ts';
import type { PaperRecord } from '../contract/methods.ts';
import { isArxivId, isDoi, SLUG_PATTERN } from '../contract/rules.ts';
import { CATEGORIES, type Category } from '../contract/vocabulary.ts';
import { CHILD_ROLES, structureOf, type ChildFact, type ChildRole } from './roles.ts';
import { FEATURES, type Feature } from './structure/features.ts';

/** One match rule: every condition given must hold. Patterns are JavaScript regular expressions. */
export interface MatchRule {
  /** Over the class name (`SqueezeExcitation`), case-insensitively. */
  name?: string;
  /** Class names, compared without case, spaces, `-` or `_`: `"SE block"` matches `SEBlock`, `SE_Block`, `seblock`. */
  names?: string[];
  /** Over any qualified base (`torchvision.ops.misc.SqueezeExcitation`). */
  base?: string;
  /** Over the dotted module (`torchvision.models.mobilenetv2`). */
  module?: string;
  notModule?: string;
  /** Composition: each pattern matches some layer type recorded for the block. */
  layersAll?: string[];
  /** Composition: every layer type matches one of these. */
  layersOnly?: string[];
  /**
   * Structure: the block's direct submodules, in registration order and without neutral ones (dropout, drop path,
   * identity, layer scale), have exactly these roles (roles.ts: `norm`, `attention`, `mlp`, `other`).
   */
  children?: ChildRole[];
  /**
   * Structure: the same roles, space-separated, match this pattern (`^(norm )?attention (norm )?mlp( norm)?$`: one
   * attention and one MLP, pre- or post-norm).
   */
  roles?: string;
  /** Structure: the block's own forward shows each of these features (structure/features.ts). */
  flow?: Feature[];
  /**
   * Structure: ... and none of these, in its forward nor in its direct submodules' (a squeeze-and-excitation gate that
   * is not half of a CBAM, whether the other half is inline or a child).
   */
  notFlow?: Feature[];
  /** Structure: the corpus classes of its direct submodules show these features between them. */
  childFlow?: Feature[];
  /**
   * Structure: the block's own forward and the corpus classes of its direct submodules show these features between
   * them, each in either place: one idea written in one forward or split over submodules (a CBAM's two gates inline
   * or as two children; Swin's shift in the block and its attention in a child, or both in one function).
   */
  anyFlow?: Feature[];
  /** Structure: some method the class (or a corpus base) defines matches (`^(switch_to_deploy|reparameterize)$`). */
  defines?: string;
}

export interface TaxonomyMethod {
  slug: string;
  name: string;
  summary: string;
  categories: Category[];
  aliases: string[];
  match: MatchRule[];
  /** Paper ids, `arxiv:<id>` or `doi:<doi>`, introducing paper first. */
  papers: string[];
}

export interface TaxonomyPaper {
  id: string;
  title: string;
  authors: string[];
  year: number;
}

export interface Taxonomy {
  methods: TaxonomyMethod[];
  papers: TaxonomyPaper[];
}

/** What a block offers the matcher: the facts the catalog has before de-duplication. */
export interface MethodInput {
  name: string;
  module: string;
  bases: string[];
  layers: string[];
  /** The direct submodules of the built module, in order (validation's module tree); absent when it never built. */
  children?: ChildFact[];
  /** The static structure (structure/reader.ts): roles (the built tree's when there is one), features. */
  structure?: { roles: ChildRole[]; features: Feature[]; childFeatures: Feature[]; methods: string[] };
}

const FILE = join(dirname(fileURLToPath(import.meta.url)), 'data', 'taxonomy.json');
const SLUG = new RegExp(SLUG_PATTERN);

/** Problems in the taxonomy file, one message each (empty when it is sound). A test keeps the shipped file clean. */
export function checkTaxonomy(t: Taxonomy): string[] {
  const errors: string[] = [];
  const slugs = new Set<string>();
  const aliasOwner = new Map<string, string>();
  const paperIds = new Set(t.papers.map((p) => p.id));
  for (const p of t.papers) {
    if (!isPaperId(p.id)) errors.push(`paper '${p.id}': not arxiv:<id> or doi:<doi> by the strict patterns`);
    if (!p.title || p.authors.length === 0) errors.push(`paper '${p.id}': title and authors are required`);
    if (!Number.isInteger(p.year) || p.year < 1950 || p.year > 2100) errors.push(`paper '${p.id}': bad year`);
  }
  for (const m of t.methods) {
    const at = `method '${m.slug}'`;
    if (!SLUG.test(m.slug)) errors.push(`${at}: slug does not match ${SLUG_PATTERN}`);
    if (slugs.has(m.slug)) errors.push(`${at}: duplicate slug`);
    slugs.add(m.slug);
    if (!m.name || !m.summary) errors.push(`${at}: name and summary are required`);
    for (const c of m.categories) if (!CATEGORIES.includes(c)) errors.push(`${at}: unknown category '${c}'`);
    for (const a of m.aliases) {
      const key = a.toLowerCase();
      const owner = aliasOwner.get(key);
      // One synonym expanding to two methods is fine for search ("depthwise"), but not twice in one method.
      if (owner === m.slug) errors.push(`${at}: alias '${a}' listed twice`);
      aliasOwner.set(key, m.slug);
    }
    if (m.match.length === 0) errors.push(`${at}: no match rule`);
    for (const [i, r] of m.match.entries()) errors.push(...ruleProblems(r).map((e) => `${at}: rule ${i} ${e}`));
    for (const p of m.papers) if (!paperIds.has(p)) errors.push(`${at}: paper '${p}' is not in the papers list`);
  }
  return errors;
}

/** Problems of one match rule: no positive condition, an unknown role or feature, a pattern that does not compile. */
function ruleProblems(r: MatchRule): string[] {
  const errors: string[] = [];
  const structural =
    r.children !== undefined || r.roles || r.defines || r.flow?.length || r.childFlow?.length || r.anyFlow?.length;
  if (!r.name && !r.names?.length && !r.base && !r.module && !r.layersAll && !structural)
    errors.push('has no positive condition');
  const roles: readonly ChildRole[] = CHILD_ROLES.filter((x) => x !== 'neutral');
  for (const role of r.children ?? [])
    if (!roles.includes(role)) errors.push(`child role '${role}' is not one of ${roles.join(', ')}`);
  for (const f of [...(r.flow ?? []), ...(r.notFlow ?? []), ...(r.childFlow ?? []), ...(r.anyFlow ?? [])])
    if (!FEATURES.includes(f)) errors.push(`feature '${f}' is not one of ${FEATURES.join(', ')}`);
  const patterns = [
    r.name,
    r.base,
    r.module,
    r.notModule,
    r.roles,
    r.defines,
    ...(r.layersAll ?? []),
    ...(r.layersOnly ?? []),
  ];
  for (const p of patterns) {
    if (p === undefined) continue;
    try {
      new RegExp(p);
    } catch {
      errors.push(`pattern '${p}' is not a regular expression`);
    }
  }
  return errors;
}

export function isPaperId(id: string): boolean {
  if (id.startsWith('arxiv:')) return isArxivId(id.slice(6));
  if (id.startsWith('doi:')) return isDoi(id.slice(4));
  return false;
}

let cached: Taxonomy | undefined;

/** The shipped taxonomy; a broken file is our bug, so it throws (with the problems) rather than publish guesses. */
export function taxonomy(): Taxonomy {
  if (cached) return cached;
  const raw = JSON.parse(readFileSync(FILE, 'utf8')) as Taxonomy;
  const t: Taxonomy = { methods: raw.methods, papers: raw.papers };
  const errors = checkTaxonomy(t);
  if (errors.length > 0) throw new Error(`pipeline/catalog/data/taxonomy.json: ${errors.join('; ')}`);
  cached = t;
  return t;
}

interface Compiled {
  slug: string;
  rules: { label: string; test: (b: MethodInput) => boolean }[];
}

/** Compiled once per taxonomy object: a build matches every block against every rule. */
const compiled = new WeakMap<Taxonomy, Compiled[]>();

/** A class name or a `names` entry as compared: `SE_Block`, `SE block` and `seblock` are one. */
export const nameKey = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');

/** The roles a rule compares: from the structure when it was read, else from the built tree's children. */
function rolesOf(b: MethodInput): ChildRole[] | undefined {
  if (b.structure) return b.structure.roles;
  return b.children ? structureOf(b.children) : undefined;
}

function compile(r: MatchRule): (b: MethodInput) => boolean {
  const re = (p?: string, flags = '') => (p === undefined ? undefined : new RegExp(p, flags));
  // Names are compared without case: `SEModule`, `SeModule` and `seModule` are one name.
  const [name, base, mod, notMod, roles] = [re(r.name, 'i'), re(r.base), re(r.module), re(r.notModule), re(r.roles)];
  const defines = re(r.defines);
  const names = r.names ? new Set(r.names.map(nameKey)) : undefined;
  const all = (r.layersAll ?? []).map((p) => new RegExp(p));
  const only = r.layersOnly?.map((p) => new RegExp(p));
  const shape = r.children?.join(' ');
  const flow = r.flow ?? [];
  const notFlow = r.notFlow ?? [];
  const childFlow = r.childFlow ?? [];
  const anyFlow = r.anyFlow ?? [];
  return (b) => {
    const seq = shape !== undefined || roles ? rolesOf(b)?.join(' ') : undefined;
    return (
      (!name || name.test(b.name)) &&
      (!names || names.has(nameKey(b.name))) &&
      (!base || b.bases.some((x) => base.test(x))) &&
      (!mod || mod.test(b.module)) &&
      (!notMod || !notMod.test(b.module)) &&
      all.every((p) => b.layers.some((l) => p.test(l))) &&
      (!only || (b.layers.length > 0 && b.layers.every((l) => only.some((p) => p.test(l))))) &&
      (shape === undefined || seq === shape) &&
      (!roles || (seq !== undefined && roles.test(seq))) &&
      flow.every((f) => b.structure?.features.includes(f)) &&
      !notFlow.some((f) => b.structure?.features.includes(f) || b.structure?.childFeatures.includes(f)) &&
      childFlow.every((f) => b.structure?.childFeatures.includes(f)) &&
      anyFlow.every((f) => b.structure?.features.includes(f) || b.structure?.childFeatures.includes(f)) &&
      (!defines || (b.structure?.methods.some((m) => defines.test(m)) ?? false))
    );
  };
}

/** A rule that reads the static structure (roles, forward features, defined methods): `structure#<i>`. */
export function isStructural(r: MatchRule): boolean {
  return Boolean(r.flow || r.childFlow || r.anyFlow || r.roles || r.defines);
}

/**
 * The kind of evidence a rule is, for the block's record: `name#0`, `base#2`, `composition#1` (layers, children),
 * `structure#3` (forward data flow, roles), `module#0`.
 */
function labelOf(r: MatchRule, i: number): string {
  const kind = isStructural(r)
    ? 'structure'
    : r.layersAll || r.layersOnly || r.children
      ? 'composition'
      : r.base
        ? 'base'
        : r.name || r.names
          ? 'name'
          : 'module';
  return `${kind}#${i}`;
}

/** Methods a block implements by its name, bases, module and composition, sorted by slug; first rule per method. */
export function matchMethods(b: MethodInput, t: Taxonomy = taxonomy()): MethodHit[] {
  let c = compiled.get(t);
  if (!c) {
    c = t.methods.map((m) => ({
      slug: m.slug,
      rules: m.match.map((r, i) => ({ label: labelOf(r, i), test: compile(r) })),
    }));
    compiled.set(t, c);
  }
  return hits(c, b);
}

function hits(methods: Compiled[], b: MethodInput): MethodHit[] {
  const out: MethodHit[] = [];
  for (const m of methods) {
    const r = m.rules.find((x) => x.test(b));
    if (r) out.push({ slug: m.slug, rule: r.label });
  }
  return out.sort((x, y) => (x.slug < y.slug ? -1 : 1));
}

/**
 * The synonym table search expands queries with: one row per alias and per method name, `expands` the method's
 * slug, name and other aliases. Lower-cased terms; a term used by two methods expands to both.
 */
export function taxonomySynonyms(t: Taxonomy = taxonomy()): { term: string; expands: string[] }[] {
  const rows = new Map<string, Set<string>>();
  for (const m of t.methods) {
    const words = [m.name, ...m.aliases];
    for (const term of words) {
      const key = term.toLowerCase();
      const set = rows.get(key) ?? new Set<string>();
      for (const w of [m.slug, ...words]) if (w.toLowerCase() !== key) set.add(w);
      rows.set(key, set);
    }
  }
  return [...rows]
    .map(([term, set]) => ({ term, expands: [...set].sort() }))
    .sort((a, b) => (a.term < b.term ? -1 : 1));
}

/** BibTeX for a paper the taxonomy describes: `@misc` with arXiv's eprint fields, or `@article` with a DOI. */
export function bibtexOf(p: TaxonomyPaper): string {
  const first = p.authors[0]
    .split(' ')
    .pop()!
    .normalize('NFD')
    .replace(/[^A-Za-z]/g, '')
    .toLowerCase();
  const word = p.title.split(/\W+/).find((w) => w.length > 3 && !/^(with|from|using|over|into)$/i.test(w)) ?? 'paper';
  const key = `${first}${p.year}${word.toLowerCase()}`;
  const esc = (s: string) => s.replace(/[{}\\]/g, '');
  const fields: [string, string][] = [
    ['title', `{${esc(p.title)}}`],
    ['author', p.authors.map(esc).join(' and ')],
    ['year', String(p.year)],
  ];
  if (p.id.startsWith('arxiv:')) {
    const id = p.id.slice(6);
    fields.push(['eprint', id], ['archivePrefix', 'arXiv'], ['url', `https://arxiv.org/abs/${id}`]);
  } else {
    const doi = p.id.slice(4);
    fields.push(['doi', doi], ['url', `https://doi.org/${doi}`]);
  }
  const type = p.id.startsWith('arxiv:') ? 'misc' : 'article';
  return `@${type}{${key},\n${fields.map(([k, v]) => `  ${k} = {${v}}`).join(',\n')}\n}`;
}

/** The published paper record of a taxonomy paper. */
export function paperRecord(p: TaxonomyPaper): PaperRecord {
  const ref = p.id.startsWith('arxiv:') ? { arxiv: p.id.slice(6) } : { doi: p.id.slice(4) };
  return { id: p.id, ...ref, title: p.title, authors: p.authors, year: p.year, bibtex: bibtexOf(p) };
}
