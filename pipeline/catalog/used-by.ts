// A block's `usedBy` as published: from the usage index's construction sites and builders, only neutral facts —
// who (a block, a function, module code), where (source, path, line, permalink), how, and the literal arguments and
// class names passed. Never the text of any other argument. docs/usage.md, docs/catalog.md ("Used by").
import type { SourceSnapshot } from '../sources/types.ts';
import type { BlockUsage, UsageArg, UsageLocation } from '../usage/types.ts';
import type { LiteralValue } from '../contract/common.ts';
import { isTypeName } from '../contract/rules.ts';
import type { UsedBy, UsedByArg } from '../contract/used-by.ts';
import { RUN_LIMITS, USED_BY_LIMITS, type UsedByVia } from '../contract/vocabulary.ts';
import { permalinkOf } from './provenance.ts';

/** The block's users, sorted by source, path and line, one entry per site and way, capped (USED_BY_LIMITS). */
export function usedByOf(usage: BlockUsage, sources: ReadonlyMap<string, SourceSnapshot>): UsedBy[] {
  const out: UsedBy[] = [];
  const seen = new Set<string>();
  const add = (loc: UsageLocation, via: UsedByVia, args: UsageArg[], zeroArg?: boolean) => {
    const snapshot = sources.get(loc.sourceId);
    if (!snapshot) return;
    const name = loc.scope ? `${loc.module}.${loc.scope}` : loc.module;
    const key = `${loc.sourceId}\0${loc.path}\0${loc.line}\0${name}\0${via}`;
    if (seen.has(key) || !isTypeName(name)) return;
    seen.add(key);
    const entry: UsedBy = {
      kind: loc.inBlock ? 'block' : loc.scope ? 'function' : 'module',
      name,
      sourceId: loc.sourceId,
      path: loc.path,
      line: loc.line,
      permalink: permalinkOf(snapshot, loc.path, `L${loc.line}`),
      via,
      args: publishedArgs(args),
    };
    if (loc.inBlock) entry.blockId = loc.inBlock;
    if (zeroArg !== undefined) entry.zeroArg = zeroArg;
    out.push(entry);
  };
  for (const c of usage.constructions) add(c, c.via, c.args);
  for (const b of usage.builders) add(b, 'builder', b.args, b.zeroArg);
  out.sort((a, b) =>
    a.sourceId !== b.sourceId
      ? a.sourceId < b.sourceId
        ? -1
        : 1
      : a.path !== b.path
        ? a.path < b.path
          ? -1
          : 1
        : a.line - b.line || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.via < b.via ? -1 : a.via > b.via ? 1 : 0),
  );
  return out.slice(0, USED_BY_LIMITS.entries);
}

/** Literal values within the recipe caps and references by dotted name; everything else is left out. */
function publishedArgs(args: UsageArg[]): UsedByArg[] {
  const out: UsedByArg[] = [];
  let position = 0;
  for (const a of args) {
    if (a.star) continue;
    const at: UsedByArg = a.name !== undefined ? { name: a.name } : { position: position++ };
    if (a.name !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,99}$/.test(a.name)) continue;
    const v = a.value;
    if (v.kind === 'literal' && publishable(v.value, 0)) out.push({ ...at, value: v.value });
    else if (v.kind === 'ref' && isTypeName(v.name)) out.push({ ...at, ref: v.name });
    if (out.length >= USED_BY_LIMITS.args) break;
  }
  return out;
}

/** Within the caps a recipe's kwarg value is held to: strings of 200 characters, 64 items, 4 deep. */
function publishable(v: LiteralValue, depth: number): boolean {
  if (typeof v === 'string') return [...v].length <= RUN_LIMITS.recipeStringChars;
  if (typeof v === 'number') return Number.isFinite(v);
  if (!Array.isArray(v)) return true;
  return (
    depth < RUN_LIMITS.literalDepth && v.length <= RUN_LIMITS.recipeItems && v.every((x) => publishable(x, depth + 1))
  );
}
