// Cache keys of validation results: a pure function of everything that can change a block's record.
import { createHash } from 'node:crypto';
import type { RunDevice, ValidateItem } from './types.ts';

export interface CacheKeyParts {
  /** A hash of the runner's Python files (runner.py, nnblocks_runner/): a new runner re-validates everything. */
  runnerVersion: string;
  torchVersion: string;
  /** The resolved device, never `auto`: `auto` on a machine with a GPU and without one are different runs. */
  device: RunDevice;
  timeoutMs: number;
  memoryBytes: number;
  sandbox: boolean;
  /** The sandbox's walls (SANDBOX_WALLS) when sandboxed: a changed wall changes outcomes (a violation that was one). */
  walls?: string;
  /** The corpus's packages and declared extensions, sorted: they decide missing-module vs missing-dependency. */
  corpus?: { packages: string[]; native: string[] };
  /** Compiled op libraries the workers loaded: they decide whether `torch.ops` calls work. */
  nativeLibraries?: string[];
  /** The validation environment's key (pipeline/environment/): python, torch, CUDA and the installed set. */
  environment?: string;
}

/**
 * sha256 over the assembled module's hash, the recipe overrides, the blocked packages, the original (fidelity),
 * the torch version, the device, the limits, the runner version, the sandbox's walls, the corpus's packages and extensions and the
 * validation environment's installed set. The limits are in because they decide `timeout` and `memory` outcomes,
 * the corpus because it decides `missing-module` against `missing-dependency`, the installed set because it decides
 * what imports.
 */
export function cacheKey(item: ValidateItem, parts: CacheKeyParts): string {
  const material = [
    'nnblocks-validate/2',
    item.moduleHash,
    item.module,
    item.className,
    [...item.blockedPackages].sort(),
    item.overrides ?? null,
    item.usage ?? [],
    item.usageInputs ?? [],
    item.original ?? null,
    parts.runnerVersion,
    parts.torchVersion,
    parts.device,
    parts.timeoutMs,
    parts.memoryBytes,
    parts.sandbox,
    ...(parts.walls ? [{ walls: parts.walls }] : []),
    ...(parts.corpus ? [parts.corpus] : []),
    ...(parts.nativeLibraries?.length ? [parts.nativeLibraries] : []),
    ...(parts.environment ? [{ environment: parts.environment }] : []),
    ...(item.moduleSlots?.length ? [{ moduleSlots: item.moduleSlots }] : []),
  ];
  return createHash('sha256').update(JSON.stringify(material)).digest('hex');
}
