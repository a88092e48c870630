// Extraction: resolves each block's closure and writes one importable module per block plus `manifest.json`,
// so that `sys.path.insert(0, importRoot); getattr(importlib.import_module(module), className)` loads it.
// See docs/resolve.md ("Assemble").
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { Block } from '../discover/discover.ts';
import { gitBlobSha1, sha256 } from '../index/hash.ts';
import type { IndexedModule } from '../index/types.ts';
import type { Closure } from '../resolve/closure-record.ts';
import { computeClosure } from '../resolve/closure.ts';
import { registrationInputs } from '../resolve/registry-keys.ts';
import { AssemblyCache, type AssemblyCacheStore } from './cache.ts';
import { writeModule } from './write-module.ts';
import { Lookup, type Reach } from '../resolve/lookup.ts';
import type { Program } from '../resolve/program.ts';
import { decodePython } from '../parse/decode.ts';
import { STDLIB } from './stdlib.ts';
import { emitModule, type EmittedDefinition, type SourceLabel } from './emit.ts';

export interface Requirement {
  name: string;
  version: string | null;
}

export interface ManifestEntry {
  id: string;
  file: string;
  importRoot: string;
  module: string;
  className: string;
  requires: Requirement[];
  /** sha256 of the emitted file: the validation cache keys on it. */
  sha256: string;
  /**
   * `nnblocks extract` only: links to the installed compiled op libraries the module loads, put where its own loader
   * looks (op-libraries.ts). Absent when it loads none.
   */
  nativeLibraries?: string[];
}

export interface ExtractedBlock {
  entry: ManifestEntry;
  /**
   * The emitted names of the builders the module holds besides the block (`resnet50`), in the order given: what
   * validation may build the block through.
   */
  builders: string[];
  /**
   * Zero-argument builders of other modules of the block's source whose model holds the block (a composite
   * recipe's candidates, docs/validate.md "Recipes"), that the module holds under their own names: `name` there and
   * upstream, `module` the upstream module defining it.
   */
  parts: { name: string; module: string }[];
  /** Whether a module was assembled (false: its closure failed; `code` is empty). Reads no text. */
  hasCode: boolean;
  /**
   * The module's text. Read when asked for, from the cache of assembled modules where there is one: held for all
   * blocks, the texts were 1.1 GB of the build's memory on the paper's corpus.
   */
  readonly code: string;
  /**
   * The module without the builders, when it holds any: what de-duplication compares (a block's definition, not
   * the set of configurations its source happens to offer).
   */
  coreCode?: string;
  definitions: EmittedDefinition[];
  /**
   * The top-level modules the emitted module imports (stdlib included), sorted: what validation refuses of them
   * tells a corpus package the block's code asks for from one a library it uses asks for (blocked-packages.ts).
   */
  imports: string[];
  /** The definitions of the module as written, when it holds builders or layer classes besides `definitions`. */
  writtenDefinitions?: EmittedDefinition[];
  diagnostics: Diagnostic[];
  ms: number;
  /** Taken from the cache of assembled modules (cache.ts): nothing it depends on changed since it was made. */
  reused?: boolean;
}

export interface ExtractOptions {
  outDir: string;
  labels: Map<string, SourceLabel>;
  /** Sources whose blocks keep imports of other sources (`resolveAcross: false`); the others inline them. */
  isolated?: ReadonlySet<string>;
  /** Write files (false: assemble in memory only, e.g. for dedup/spec). */
  write?: boolean;
  /**
   * Zero-argument builder functions of a block's own module (`resnet50` for ResNet) the emitted module holds too,
   * from usage mining: validation builds the block through them and counts their configurations.
   */
  builders?: (block: Block) => string[];
  /**
   * Classes of a block's own module the emitted module holds too, for constructor parameters that take a class
   * (`conv_builder: Callable[..., nn.Module]` → `Conv3DSimple`): the runner fills such a parameter with one of the
   * module's classes (docs/validate.md, "Recipes"). Not the block's dependencies: the core module omits them.
   */
  layers?: (block: Block, mod: IndexedModule) => string[];
  /**
   * Zero-argument builders of other modules of the block's source whose model holds the block (usage mining,
   * `partBuilders`): the emitted module holds them too, so the instance such a builder makes is of the emitted
   * class, and validation can build the block as that model's part. Not the block's dependencies either.
   */
  parts?: (block: Block) => { path: string; name: string }[];
  /**
   * Classes of modules of the block's source that a config override builds instances of for it
   * (`{"class": ".TwoWayTransformer"}` for SAM's MaskDecoder): the emitted module holds them too, under their own
   * names, so the recipe's `.Name` resolves in it. Not the block's dependencies either.
   */
  instances?: (block: Block) => { path: string; name: string }[];
  /**
   * Registered names the block's recipes ask a registry for by string (`backbone=dict(type='ResNet')` of a config
   * file): their registrations come with the module written and validated (registry-keys.ts).
   */
  asks?: (block: Block) => string[];
  /** Where assembled modules are kept between runs (cache.ts); none: every block is assembled. */
  cache?: AssemblyCacheStore;
  /** Called with each block as it is extracted (extract-package.ts calls it without one). */
  onDone?: (block?: ExtractedBlock) => void;
}

/** Longest emitted module name kept as it is (torchvision's longest is 86 characters). */
const PLAIN_CHARS = 100;
/** Readable part of a hashed module name (see moduleNameForBlock). */
const READABLE_CHARS = 80;

/**
 * An ASCII Python identifier for a block's emitted module, and its file name (`<name>.py`): deterministic, and
 * never near NAME_MAX (255 bytes). Upstream names can be 300-character class names or PEP 3131 identifiers
 * (`ünï_cödé.Blöck`); a name over PLAIN_CHARS or with characters replaced keeps a readable ASCII prefix of
 * READABLE_CHARS characters plus `_` and 12 hex digits of the SHA-256 of the block id, so two blocks that differ
 * only in the cut or replaced part stay apart. ASCII, because the file name must not depend on how a file
 * system normalises Unicode. See docs/index.md ("Long and non-ASCII names").
 */
export function moduleNameForBlock(block: Block): string {
  const raw = `${block.sourceId}__${block.module.replace(/\./g, '_')}__${block.qualname.replace(/\./g, '_')}`;
  const ascii = raw.replace(/[^A-Za-z0-9_]/g, '_');
  const ident = /^[A-Za-z_]/.test(ascii) ? ascii : `b_${ascii}`;
  if (ident.length <= PLAIN_CHARS && ascii === raw) return ident;
  return `${ident.slice(0, READABLE_CHARS)}_${sha256(block.id).slice(0, 12)}`;
}

/**
 * Top-level packages that stay imports when another source provides them: the runtime every block runs on and
 * the standard library. They are never inlined into another source's block nor refused by validation.
 */
export const RUNTIME_PACKAGES: ReadonlySet<string> = new Set(['torch']);

/** Whether a top-level package is the runtime's or the standard library's (never inlined across sources, never blocked). */
export function isRuntimePackage(top: string): boolean {
  return RUNTIME_PACKAGES.has(top) || STDLIB.has(top);
}

const OPAQUE: ReadonlySet<string> = new Set([...RUNTIME_PACKAGES, ...STDLIB]);

/** What assembling needs across blocks: one lookup per reach, the modules by source and path, their text. */
export interface Assembly {
  lookupFor(sourceId: string): Lookup;
  module(sourceId: string, path: string): IndexedModule | undefined;
  readText(mod: IndexedModule): Buffer;
  /**
   * The extra roots of a block's module (builders, layer classes, parts, override instances; ExtractOptions) and how
   * many of the first three, in that order.
   */
  roots(
    block: Block,
    mod: IndexedModule,
  ): {
    roots: { stmt: number; name: string; mod?: IndexedModule }[];
    builders: number;
    layers: number;
    parts: { name: string; mod: IndexedModule }[];
    /** Registered names its recipes ask for by string (ExtractOptions `asks`). */
    asks: string[];
  };
}

export function assembly(program: Program, opts: ExtractOptions): Assembly {
  // Closures reach every source of the corpus, except from a source that opted out (`resolveAcross: false`),
  // whose closures stop at its own boundary. One lookup (and its cache) per reach.
  const lookups = new Map<string, Lookup>();
  const lookupFor = (sourceId: string): Lookup => {
    const isolated = opts.isolated?.has(sourceId) ?? false;
    const key = isolated ? `only:${sourceId}` : '*';
    let lookup = lookups.get(key);
    if (!lookup) {
      const reach: Reach = isolated ? { only: sourceId } : { opaque: OPAQUE };
      lookups.set(key, (lookup = new Lookup(program, reach)));
    }
    return lookup;
  };
  const texts = new Map<string, Buffer>();
  const readText = (mod: IndexedModule): Buffer => {
    let buf = texts.get(mod.absPath);
    if (!buf) {
      buf = readFileSync(mod.absPath);
      // The facts' byte spans belong to the indexed blob: a file edited since indexing would be sliced wrongly.
      if (gitBlobSha1(buf) !== mod.blob) {
        throw new Error(`${mod.path} changed since it was indexed; run \`nnblocks index\` again`);
      }
      buf = Buffer.from(decodePython(buf).text, 'utf8');
      texts.set(mod.absPath, buf);
    }
    return buf;
  };
  const roots: Assembly['roots'] = (block, mod) => {
    // A builder's statement in the block's module: module-level functions only (`def resnet50(...)`).
    const builderRoots = (opts.builders?.(block) ?? []).flatMap((name) => {
      const fn = mod.facts.functions.find((f) => f.qualname === name);
      return fn ? [{ stmt: fn.statementIndex, name }] : [];
    });
    const layerRoots = (opts.layers?.(block, mod) ?? []).flatMap((name) => {
      const cls = mod.facts.classes.find((c) => c.qualname === name);
      return cls ? [{ stmt: cls.statementIndex, name }] : [];
    });
    // A part's builder lives in another module of the block's source (`faster_rcnn.py` for `rpn.py`'s block).
    const partRoots = (opts.parts?.(block) ?? []).flatMap(({ path, name }) => {
      const home = program.moduleAt(block.sourceId, path);
      const fn = home?.facts.functions.find((f) => f.qualname === name);
      return home && fn ? [{ stmt: fn.statementIndex, name, mod: home }] : [];
    });
    // A class a config override builds an instance of (`.TwoWayTransformer` for SAM's MaskDecoder).
    const instanceRoots = (opts.instances?.(block) ?? []).flatMap(({ path, name }) => {
      const home = program.moduleAt(block.sourceId, path);
      const cls = home?.facts.classes.find((c) => c.qualname === name);
      return home && cls ? [{ stmt: cls.statementIndex, name, mod: home }] : [];
    });
    return {
      roots: [...builderRoots, ...layerRoots, ...partRoots, ...instanceRoots],
      builders: builderRoots.length,
      layers: layerRoots.length,
      parts: partRoots,
      asks: opts.asks?.(block) ?? [],
    };
  };
  return { lookupFor, module: (sourceId, path) => program.moduleAt(sourceId, path), readText, roots };
}

/** A block's assembly as made: everything but where it is written (which depends on the selection). */
type Assembled = Omit<ExtractedBlock, 'entry' | 'ms' | 'reused' | 'hasCode' | 'code' | 'coreCode'> & {
  className: string;
  requires: Requirement[];
  code: string;
  coreCode?: string;
};

/** An assembly as cached: its texts are kept apart, by sha256 (cache.ts). */
type Stored = Omit<Assembled, 'code' | 'coreCode'> & { codeSha: string; coreSha?: string };

export function extractBlocks(program: Program, blocks: Block[], opts: ExtractOptions): ExtractedBlock[] {
  const { lookupFor, readText, ...a } = assembly(program, opts);
  const cache = opts.cache
    ? new AssemblyCache(opts.cache, program.modules, {
        labels: [...opts.labels].sort(),
        isolated: [...(opts.isolated ?? [])].sort(),
      })
    : null;
  const importRoot = resolve(opts.outDir, 'blocks');
  if (opts.write !== false) mkdirSync(importRoot, { recursive: true });
  const used = new Set<string>();
  // Registrations anywhere in the corpus may come with a block (registry-keys.ts): what they are is an input.
  const registrations = cache ? sha256(registrationInputs(program).join('\n')) : '';
  const out: ExtractedBlock[] = [];
  for (const block of blocks) {
    const t0 = performance.now();
    const mod = a.module(block.sourceId, block.path)!;
    let moduleName = moduleNameForBlock(block);
    for (let i = 2; used.has(moduleName); i++) moduleName = `${moduleNameForBlock(block)}_${i}`;
    used.add(moduleName);
    const planned = a.roots(block, mod);
    // What the module is asked to hold besides the block: with the files read, all that decides its text.
    const inputs = [
      planned.roots.map((r) => [r.mod?.path ?? null, r.stmt, r.name]),
      planned.builders,
      planned.layers,
      planned.asks,
      registrations,
    ];
    // Nothing prunes the kv table, and a record is stored with its texts: a kept record's texts are there.
    let stored = cache?.get<Stored>(block.id, inputs);
    const reused = stored !== undefined;
    let made: Assembled | undefined;
    if (!stored) {
      const lookup = lookupFor(block.sourceId);
      const { result, read } = lookup.tracking(() =>
        assembleBlock(program, lookup, block, mod, planned, readText, opts.labels),
      );
      made = result.asm;
      const { code, coreCode, ...rest } = made;
      stored = { ...rest, codeSha: sha256(code), ...(coreCode !== undefined ? { coreSha: sha256(coreCode) } : {}) };
      // A failure may come from the infrastructure (a file edited since indexing): never kept.
      if (cache && !failed(made)) {
        cache.putText(stored.codeSha, code);
        if (coreCode !== undefined) cache.putText(stored.coreSha!, coreCode);
        cache.put(block.id, inputs, [...read, ...result.files], stored);
      }
    }
    const { className, requires, codeSha, coreSha, ...rest } = stored;
    // Without a cache (or a failed assembly, never kept) the texts are held; with one, read from it when asked for.
    const held = made && (!cache || failed(made)) ? { code: made.code, coreCode: made.coreCode } : undefined;
    const hasCode = made ? made.code !== '' : codeSha !== EMPTY_SHA;
    const file = join(importRoot, `${moduleName}.py`);
    if (opts.write !== false && hasCode)
      writeModule(file, codeSha, () => made?.code ?? textIn(cache!, codeSha), cache ?? undefined);
    const base = {
      entry: { id: block.id, file, importRoot, module: moduleName, className, requires, sha256: codeSha },
      ...rest,
      ...(reused ? { reused } : {}),
      ms: performance.now() - t0,
    };
    const done = withTexts(base, hasCode, { code: codeSha, core: coreSha }, held, cache);
    out.push(done);
    opts.onDone?.(done);
  }
  return out;
}

/**
 * An extracted block with its texts: held (`held`: no cache, or a failed assembly) or read from the cache when asked
 * for. Made in a function of its own, not in the loop: V8 keeps one context per scope for all the closures made in
 * it, so getters made beside the loop's `made` kept every assembly, texts and all, alive for the whole build (1.6 GB
 * of the paper corpus's cold build).
 */
function withTexts(
  base: Omit<ExtractedBlock, 'hasCode' | 'code' | 'coreCode'>,
  hasCode: boolean,
  shas: { code: string; core?: string },
  held: { code: string; coreCode?: string } | undefined,
  cache: AssemblyCache | null,
): ExtractedBlock {
  return {
    ...base,
    hasCode,
    get code() {
      return hasCode ? (held ? held.code : textIn(cache!, shas.code)) : '';
    },
    // A getter in this literal, not spread into it: a spread reads the getter (`{...{get x() {}}}` copies the
    // value), which held every core text in memory for the whole build (250 MB on the paper corpus).
    get coreCode() {
      if (shas.core === undefined) return undefined;
      return held ? held.coreCode : textIn(cache!, shas.core);
    },
  };
}

/** The assembled text kept in the cache under `sha`. */
function textIn(cache: AssemblyCache, sha: string): string {
  const text = cache.text(sha);
  if (text === undefined) throw new Error(`the assembled module ${sha} is not in the cache; build again`);
  return text;
}

/** Whether an assembly failed (never kept: the failure may be the infrastructure's). */
const failed = (asm: Assembled) => asm.diagnostics.some((d) => d.code === 'assemble-failed');

/** sha256 of the empty module a failed assembly has. */
const EMPTY_SHA = sha256('');

/** Computes a block's closures and emits its module; `files`: the modules whose statements it copied. */
function assembleBlock(
  program: Program,
  lookup: Lookup,
  block: Block,
  mod: IndexedModule,
  planned: ReturnType<Assembly['roots']>,
  readText: (mod: IndexedModule) => Buffer,
  labels: Map<string, SourceLabel>,
): { asm: Assembled; files: string[] } {
  const { roots, builders: nBuilders, layers: nLayers, parts: partRoots, asks } = planned;
  const asm: Assembled = {
    className: block.name,
    requires: [],
    builders: [],
    parts: [],
    code: '',
    definitions: [],
    imports: [],
    diagnostics: [],
  };
  const files = new Set<string>();
  const note = (c: Closure) => {
    for (const st of c.stmts.values()) files.add(`${st.mod.sourceId}\0${st.mod.path}`);
    return c;
  };
  try {
    // The block's own closure says what the block depends on (definitions, requirements, diagnostics); with
    // builders, the module written and validated also holds them and what they need.
    const closure = note(computeClosure(program, lookup, mod, block.stmt, block.name, [], { readText }));
    const emitted = emitModule(block.id, closure, readText, labels, isRuntimePackage, (t) =>
      program.providesPackage(t),
    );
    asm.code = emitted.code;
    asm.className = emitted.className;
    const imports = new Set(closure.externals);
    if (roots.length > 0 || asks.length > 0) {
      const whole = note(computeClosure(program, lookup, mod, block.stmt, block.name, roots, { readText, asks }));
      for (const top of whole.externals) imports.add(top);
      const withBuilders = emitModule(block.id, whole, readText, labels, isRuntimePackage, (t) =>
        program.providesPackage(t),
      );
      asm.coreCode = asm.code;
      asm.code = withBuilders.code;
      asm.className = withBuilders.className;
      asm.builders = withBuilders.rootNames.slice(0, nBuilders);
      // Kept only under its upstream name: the recipe names it so, in the emitted module and for fidelity alike.
      const partNames = withBuilders.rootNames.slice(nBuilders + nLayers, nBuilders + nLayers + partRoots.length);
      asm.parts = partRoots.flatMap((r, i) =>
        partNames[i] === r.name && r.mod.module ? [{ name: r.name, module: r.mod.module }] : [],
      );
      asm.writtenDefinitions = withBuilders.definitions;
    }
    asm.definitions = emitted.definitions;
    asm.diagnostics.push(...closure.diagnostics, ...emitted.diagnostics);
    asm.imports = [...imports].sort();
    asm.requires = [...closure.externals]
      .filter((top) => !STDLIB.has(top))
      .sort()
      .map((top) => ({ name: top, version: null }));
  } catch (err) {
    asm.diagnostics.push({
      code: 'assemble-failed',
      severity: 'error',
      stage: 'assemble',
      source: block.sourceId,
      path: block.path,
      message: (err as Error).message,
    });
  }
  return { asm, files: [...files] };
}

/**
 * `outDir/manifest.json`: one entry per block; with `packageName`, the package every entry's module is in (blocks
 * extracted together, docs/resolve.md "Several blocks: one package").
 */
export function writeManifest(outDir: string, entries: ManifestEntry[], packageName?: string): string {
  const file = join(outDir, 'manifest.json');
  const head = packageName ? { package: packageName } : {};
  writeFileSync(file, JSON.stringify({ ...head, blocks: entries }, null, 2) + '\n');
  return file;
}
