// Validates a catalog directory against the catalog's schemas (pipeline/contract/) plus the cross-file rules no
// schema can say (slug = file name, unique ids, known sources, SWHID = blob hash, references that resolve).
// Problems come back as a list of messages, never thrown: the build prints them and fails; tests assert on them.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BlockSpec } from '../contract/block.ts';
import type { ClustersFile } from '../contract/clusters.ts';
import type { CatalogSchemaName } from '../contract/files.ts';
import type { MethodsFile } from '../contract/methods.ts';
import { isNotRun } from '../contract/harness.ts';
import { isRefTarget } from '../contract/rules.ts';
import type { SourcesFile } from '../contract/sources.ts';
import type { StatsFile } from '../contract/stats.ts';
import { checkAgainstSchema as check } from '../contract/validators.ts';

/** Where the build keeps the validators' generated code: `build/schemas/` at the top of the package. */
const CODE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'build', 'schemas');

/**
 * One parsed value against one catalog schema, with the validators' code kept between processes: messages prefixed
 * with `label`, empty when it holds.
 */
export function checkAgainstSchema(name: CatalogSchemaName, value: unknown, label: string): string[] {
  return check(name, value, label, CODE_DIR);
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Checks every file of the catalog in `dir`. `build-info.json` is optional (a fixture may omit it);
 * the other files are required. Errors are capped per file so a systematic bug doesn't print 10,000 lines.
 */
export function checkCatalog(dir: string): { errors: string[] } {
  const errors: string[] = [];
  const load = (file: string, schema: CatalogSchemaName, required: boolean): unknown => {
    const path = join(dir, file);
    if (!existsSync(path)) {
      if (required) errors.push(`${file}: missing (the build writes it; rerun \`nnblocks build\`)`);
      return undefined;
    }
    let value: unknown;
    try {
      value = readJson(path);
    } catch (err) {
      errors.push(`${file}: not JSON (${(err as Error).message})`);
      return undefined;
    }
    errors.push(...checkAgainstSchema(schema, value, file).slice(0, 20));
    return value;
  };

  const sources = load('sources.json', 'sources', true) as SourcesFile | undefined;
  const clusters = load('clusters.json', 'clusters', true) as ClustersFile | undefined;
  const stats = load('stats.json', 'stats', true) as StatsFile | undefined;
  load('build-info.json', 'build-info', false);
  // Optional like build-info: a catalog written by an older build or a hand-made fixture has no methods.
  const methods = load('methods.json', 'methods', false) as MethodsFile | undefined;

  const sourceIds = new Set((sources?.sources ?? []).map((s) => s.id));
  const ids = new Set<string>();
  const citeKeys = new Set<string>();
  const nearestRefs: { from: string; to: string }[] = [];
  const blockDir = join(dir, 'blocks');
  const files = existsSync(blockDir)
    ? readdirSync(blockDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  if (!existsSync(blockDir)) errors.push('blocks/: missing');

  for (const file of files) {
    const label = `blocks/${file}`;
    let block: BlockSpec;
    try {
      block = readJson(join(blockDir, file)) as BlockSpec;
    } catch (err) {
      errors.push(`${label}: not JSON (${(err as Error).message})`);
      continue;
    }
    const schemaErrors = checkAgainstSchema('block', block, label);
    if (schemaErrors.length > 0) {
      errors.push(...schemaErrors.slice(0, 20));
      continue;
    }
    if (`${block.slug}.json` !== file) errors.push(`${label}: slug '${block.slug}' does not match the file name`);
    if (ids.has(block.id)) errors.push(`${label}: duplicate id '${block.id}'`);
    ids.add(block.id);
    // A key is a hash prefix: unique in practice, and a collision would make one block's citation name another.
    const key = block.citation.key;
    if (key && citeKeys.has(key)) errors.push(`${label}: duplicate citation key '${key}'`);
    if (key) citeKeys.add(key);
    if (sources && !sourceIds.has(block.sourceId)) errors.push(`${label}: unknown source '${block.sourceId}'`);
    if (block.provenance.sourceId !== block.sourceId)
      errors.push(`${label}: provenance.sourceId differs from sourceId`);
    const p = block.provenance;
    if (p.swhid !== `swh:1:cnt:${p.blobSha1}`) errors.push(`${label}: swhid does not match blobSha1`);
    if (!p.swhidQualified.startsWith(`${p.swhid};`)) errors.push(`${label}: swhidQualified does not start with swhid`);
    if (p.commit && !p.swhidQualified.includes(`;anchor=swh:1:rev:${p.commit}`)) {
      errors.push(`${label}: swhidQualified lacks the commit anchor`);
    }
    if (p.lines[0] > p.lines[1]) errors.push(`${label}: provenance.lines is reversed`);
    const recipe = block.validation?.recipe;
    for (const ref of recipe?.refs ?? []) {
      // A reference is resolved with importlib on replay: it must name a kwarg holding a dotted name, nothing else.
      const kw = recipe!.kwargs.find((k) => k.name === ref);
      if (!kw || !isRefTarget(kw.value))
        errors.push(`${label}: recipe.refs '${ref}' names no kwarg with a dotted name`);
    }
    errors.push(...harnessErrors(label, block));
    for (const n of block.dedup?.nearest ?? []) nearestRefs.push({ from: label, to: n.id });
  }

  for (const ref of nearestRefs) {
    if (!ids.has(ref.to)) errors.push(`${ref.from}: dedup.nearest refers to unknown block '${ref.to}'`);
  }
  for (const c of clusters?.clusters ?? []) {
    for (const m of c.members) if (!ids.has(m)) errors.push(`clusters.json: ${c.id} has unknown member '${m}'`);
    if (!c.members.includes(c.representative)) errors.push(`clusters.json: ${c.id} representative is not a member`);
  }
  for (const m of methods?.methods ?? []) {
    for (const x of m.members)
      if (!ids.has(x.blockId)) errors.push(`methods.json: ${m.slug} has unknown member '${x.blockId}'`);
  }
  if (stats && stats.blocks !== files.length) {
    errors.push(`stats.json: blocks is ${stats.blocks} but blocks/ holds ${files.length} files`);
  }
  if (stats?.byKind && stats.byKind.reduce((n, k) => n + k.count, 0) !== stats.blocks) {
    errors.push(`stats.json: byKind adds up to ${stats.byKind.reduce((n, k) => n + k.count, 0)}, not ${stats.blocks}`);
  }
  errors.push(...outcomeErrors(stats));
  if (stats && sources && stats.sources !== sources.sources.length) {
    errors.push(`stats.json: sources is ${stats.sources} but sources.json lists ${sources.sources.length}`);
  }
  return { errors };
}

/** One table says what the harness could not run (contract/harness.ts): a status that disagrees with it is a bug. */
function harnessErrors(label: string, block: BlockSpec): string[] {
  const v = block.validation;
  if (!v || (v.status !== 'failed' && v.status !== 'not-run')) return [];
  return isNotRun(v) === (v.status === 'not-run')
    ? []
    : [`${label}: status ${v.status} disagrees with the harness table for ${v.failureClass ?? 'no class'}`];
}

/**
 * Every validated block has one outcome: the four counts add up to `validated`; and every block that did not pass
 * sits in one cause group: the groups add up to failed + notRun + blocked.
 */
function outcomeErrors(stats: StatsFile | undefined): string[] {
  if (!stats) return [];
  const v = stats.validation;
  const outcomes = v.passed + v.failed + v.notRun + v.blocked;
  const errors =
    outcomes === v.validated
      ? []
      : [`stats.json: passed + failed + notRun + blocked is ${outcomes}, not validated (${v.validated})`];
  const grouped = stats.causeGroups?.reduce((n, g) => n + g.count, 0);
  if (grouped !== undefined && grouped !== v.failed + v.notRun + v.blocked)
    errors.push(`stats.json: causeGroups add up to ${grouped}, not failed + notRun + blocked (${outcomes - v.passed})`);
  return errors;
}
