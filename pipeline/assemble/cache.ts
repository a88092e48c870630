// Reuse of assembled modules across runs: a block's module is a function of the files its closure read (their git
// blob hashes), the set of modules in the corpus, what it was asked to hold besides the block (builders, layer
// classes, parts), the source labels its provenance lines print, and the assembler's own code. A warm run with
// nothing changed assembles nothing. See docs/resolve.md ("Reuse across runs").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '../index/hash.ts';
import type { IndexedModule } from '../index/types.ts';

/** A keyed store of JSON strings (the index's `kv` table, namespace `assembled`). */
export interface AssemblyCacheStore {
  get(key: string): string | undefined;
  put(key: string, value: string): void;
}

/**
 * What a cached assembly holds besides its result: the corpus layout and assembler it was made with, and the files
 * it read, each with the blob it read. One entry per block and inputs, overwritten when it is made again.
 */
interface Stored<T> {
  layout: string;
  reads: [string, string][];
  value: T;
}

let ownCode: string | undefined;

/**
 * A fingerprint of the code that turns facts into modules (pipeline/resolve, pipeline/assemble): any change to it
 * assembles again, with no version number to forget. Run from a bundle, the bundle file itself.
 */
export function assemblerFingerprint(): string {
  if (ownCode) return ownCode;
  const here = dirname(fileURLToPath(import.meta.url));
  const dirs = [here, join(here, '..', 'resolve')].filter((d) => existsSync(d));
  const files = dirs.flatMap((d) =>
    readdirSync(d)
      .filter((f) => /\.(ts|mjs|js|json)$/.test(f))
      .sort()
      .map((f) => join(d, f)),
  );
  const texts = files.length ? files.map((f) => `${f.slice(here.length)}\0${readFileSync(f, 'utf8')}`) : [];
  if (!texts.length) texts.push(readFileSync(fileURLToPath(import.meta.url), 'utf8'));
  ownCode = sha256(texts.join('\0'));
  return ownCode;
}

export class AssemblyCache {
  private readonly blobs = new Map<string, string>();
  /** Which modules exist: a file added or removed may change what any name resolves to. */
  private readonly layout: string;

  constructor(
    private readonly store: AssemblyCacheStore,
    modules: IndexedModule[],
    /** Everything else the modules depend on for all blocks alike (labels, isolated sources). */
    common: unknown,
  ) {
    for (const m of modules) this.blobs.set(`${m.sourceId}\0${m.path}`, m.blob);
    this.layout = sha256(JSON.stringify([assemblerFingerprint(), [...this.blobs.keys()].sort(), common]));
  }

  private key(blockId: string, inputs: unknown): string {
    return sha256(JSON.stringify([blockId, inputs]));
  }

  /** The stored result for a block and its inputs, when every file it read is still the blob it read. */
  get<T>(blockId: string, inputs: unknown): T | undefined {
    const raw = this.store.get(this.key(blockId, inputs));
    if (!raw) return undefined;
    const stored = JSON.parse(raw) as Stored<T>;
    if (stored.layout !== this.layout) return undefined;
    return stored.reads.every(([file, blob]) => this.blobs.get(file) === blob) ? stored.value : undefined;
  }

  put<T>(blockId: string, inputs: unknown, reads: Iterable<string>, value: T): void {
    const files = [...new Set(reads)].sort().map((f): [string, string] => [f, this.blobs.get(f) ?? '']);
    const stored: Stored<T> = { layout: this.layout, reads: files, value };
    this.store.put(this.key(blockId, inputs), JSON.stringify(stored));
  }

  /**
   * Keeps a module's text apart from its record, under its sha256: a record is parsed on every warm run, the text
   * (a third of a megabyte on average in the paper's corpus, 1.1 GB in all) only when something reads it.
   */
  putText(sha: string, text: string): void {
    this.store.put(`text:${sha}`, text);
  }

  /** The text kept under `sha`. */
  text(sha: string): string | undefined {
    return this.store.get(`text:${sha}`);
  }

  /** What `remember` noted of a written file: the text's sha256, its size and mtime (write-module.ts). */
  written(file: string): string | undefined {
    return this.store.get(`written:${file}`);
  }

  remember(file: string, note: string): void {
    this.store.put(`written:${file}`, note);
  }
}
