// The build's extract step: assembles the selected blocks (written under `outDir`, or in memory only), with
// progress, then asks the configured Python once which installed distribution provides each import.
import { extractBlocks, writeManifest, type ExtractedBlock } from '../assemble/extract.ts';
import { attachRequirementVersions } from '../assemble/requirements.ts';
import { lookupPython } from '../config/python.ts';
import type { Block } from '../discover/discover.ts';
import { sourceLabels, type Prepared, type RunContext } from './prepare.ts';

export interface ExtractStepOptions {
  outDir: string;
  /** false: assemble in memory only (de-duplication of unvalidated blocks needs the code, not the files). */
  write?: boolean;
  /** Look up requirement versions (a Python subprocess); off when nothing reads them. */
  versions?: boolean;
}

export function runExtraction(
  ctx: RunContext,
  p: Prepared,
  blocks: Block[],
  opts: ExtractStepOptions,
): ExtractedBlock[] {
  const progress = ctx.progress('extract', blocks.length);
  const extracted = extractBlocks(p.program, blocks, {
    outDir: opts.outDir,
    labels: sourceLabels(p.snapshots),
    isolated: new Set(ctx.config.sources.filter((s) => !s.resolveAcross).map((s) => s.id)),
    write: opts.write,
    builders: (b) => zeroArgBuilders(p, b),
    onDone: () => progress.tick(),
  });
  if (opts.versions !== false) {
    const py = lookupPython(ctx.config);
    attachRequirementVersions(py.ok ? py.python.path : null, extracted);
  }
  progress.done(`${extracted.length} blocks`);
  return extracted;
}

/** `nnblocks extract`: the modules and their `manifest.json` in `outDir`, on the user's machine only. */
export function extractToFolder(
  ctx: RunContext,
  p: Prepared,
  blocks: Block[],
  outDir: string,
): { manifest: string; extracted: ExtractedBlock[] } {
  const extracted = runExtraction(ctx, p, blocks, { outDir });
  return { manifest: writeManifest(outDir, extracted), extracted };
}

/** Most builder configurations a block's module holds (ResNet has 9 builders: resnet18 ... wide_resnet101_2). */
const MAX_BUILDERS = 8;

/**
 * The zero-argument builders of a block that live in its own module (`resnet50` beside ResNet), in source order:
 * the emitted module holds them, and validation builds the block through them (docs/validate.md, "Recipes").
 */
export function zeroArgBuilders(p: Prepared, block: Block): string[] {
  const own = p
    .usage()
    .usageOf(block.id)
    .builders.filter(
      (f) => f.zeroArg && f.sourceId === block.sourceId && f.path === block.path && !f.scope.includes('.'),
    )
    .sort((a, b) => a.line - b.line);
  return [...new Set(own.map((f) => f.name))].slice(0, MAX_BUILDERS);
}
