// `nnblocks extract` of several blocks: one importable package under `outDir` (package.ts), so that blocks
// extracted together share their definitions, and a manifest entry per block naming the module that holds it.
// See docs/resolve.md ("Several blocks: one package").
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { NnblocksError, type Diagnostic } from '../contract/diagnostics.ts';
import type { Block } from '../discover/discover.ts';
import { sha256 } from '../index/hash.ts';
import type { Closure } from '../resolve/closure-record.ts';
import { computeClosure } from '../resolve/closure.ts';
import type { Program } from '../resolve/program.ts';
import { assembly, isRuntimePackage, type ExtractOptions, type ManifestEntry } from './extract.ts';
import { emitPackage, PACKAGE_MARKER, type PackageModule } from './package.ts';
import { STDLIB } from './stdlib.ts';

export interface PackagedEntry {
  entry: ManifestEntry;
  diagnostics: Diagnostic[];
  ms: number;
  /** Paths (inside the package) of the modules importing the block's module runs; empty when it has none. */
  reached: string[];
}

export interface ExtractedPackage {
  /** The package's folder: `<outDir>/<name>`. Blocks that could not be assembled have no `entry.module`. */
  dir: string;
  name: string;
  modules: PackageModule[];
  blocks: PackagedEntry[];
  diagnostics: Diagnostic[];
}

/** Default name of the package `nnblocks extract` writes: `from blocks.torchvision.models.resnet import ResNet`. */
export const DEFAULT_PACKAGE = 'blocks';

export function extractPackage(
  program: Program,
  blocks: Block[],
  opts: ExtractOptions & { packageName?: string },
): ExtractedPackage {
  const name = opts.packageName ?? DEFAULT_PACKAGE;
  const a = assembly(program, opts);
  const outDir = resolve(opts.outDir);
  const inputs: { blockId: string; closure: Closure }[] = [];
  const entries: PackagedEntry[] = [];
  for (const block of blocks) {
    const t0 = performance.now();
    const diagnostics: Diagnostic[] = [];
    let requires: ManifestEntry['requires'] = [];
    try {
      const mod = a.module(block.sourceId, block.path)!;
      const lookup = a.lookupFor(block.sourceId);
      const own = computeClosure(program, lookup, mod, block.stmt, block.name, [], { readText: a.readText });
      const { roots, asks } = a.roots(block, mod);
      // The package holds what the block's standalone module holds: its builders and layer classes too.
      const closure =
        roots.length || asks.length
          ? computeClosure(program, lookup, mod, block.stmt, block.name, roots, { readText: a.readText, asks })
          : own;
      diagnostics.push(...own.diagnostics);
      requires = [...own.externals]
        .filter((top) => !STDLIB.has(top))
        .sort()
        .map((top) => ({ name: top, version: null }));
      inputs.push({ blockId: block.id, closure });
    } catch (err) {
      diagnostics.push(failed(block, err));
    }
    entries.push({
      entry: { id: block.id, file: '', importRoot: outDir, module: '', className: block.name, requires, sha256: '' },
      diagnostics,
      ms: performance.now() - t0,
      reached: [],
    });
    opts.onDone?.();
  }
  const pkgDir = join(outDir, name);
  if (!inputs.length) return { dir: pkgDir, name, modules: [], blocks: entries, diagnostics: [] };
  let emitted: ReturnType<typeof emitPackage>;
  try {
    emitted = emitPackage(inputs, a.readText, opts.labels, isRuntimePackage);
  } catch (err) {
    // One broken statement would take every block down with it: say so on each, write nothing.
    for (const e of entries)
      e.diagnostics.push(
        failed(
          blocks.find((b) => b.id === e.entry.id)!,
          err,
        ),
      );
    return { dir: pkgDir, name, modules: [], blocks: entries, diagnostics: [] };
  }
  const codeOf = new Map(emitted.modules.map((m) => [m.path, m.code]));
  for (const pb of emitted.blocks) {
    const e = entries.find((x) => x.entry.id === pb.blockId)!;
    // What importing its module needs installed, which may be more than the block's own closure needs.
    const names = new Set([...e.entry.requires.map((r) => r.name), ...pb.imports.filter((t) => !STDLIB.has(t))]);
    Object.assign(e.entry, {
      requires: [...names].sort().map((name) => ({ name, version: null })),
      file: join(pkgDir, pb.path),
      module: `${name}.${pb.module}`,
      className: pb.className,
      sha256: sha256(codeOf.get(pb.path)!),
    });
    e.reached = pb.reached;
  }
  if (opts.write !== false) writePackage(pkgDir, emitted.modules);
  return {
    dir: pkgDir,
    name,
    modules: emitted.modules,
    blocks: entries,
    diagnostics: emitted.diagnostics,
  };
}

function failed(block: Block, err: unknown): Diagnostic {
  return {
    code: 'assemble-failed',
    severity: 'error',
    stage: 'assemble',
    source: block.sourceId,
    path: block.path,
    message: (err as Error).message,
  };
}

/**
 * Writes the package's modules, replacing a package an earlier extraction wrote there (its `__init__.py` carries
 * the marker), so no module of an earlier selection lingers; any other existing folder is refused.
 */
function writePackage(dir: string, modules: PackageModule[]): void {
  const init = join(dir, '__init__.py');
  if (existsSync(dir)) {
    if (!existsSync(init) || !readFileSync(init, 'utf8').startsWith(PACKAGE_MARKER)) {
      throw new NnblocksError(
        `${dir} exists and is not a package nnblocks wrote`,
        'extract',
        'choose another --out or --package, or remove the folder',
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  for (const m of modules) {
    const file = join(dir, m.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, m.code);
  }
}
