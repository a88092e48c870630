// Types of the validate stage: what it receives per block, its options, and the JSON-serializable record it returns.

import type { InputSpec } from '../contract/inputs.ts';
import { RUN_DEVICES, type FailureClass, type Fidelity, type RunnerRecord } from '../contract/runner-record.ts';
import type { Device } from '../config/device.ts';
import type { ValidateOverride } from '../config/types.ts';

export type { Device, InputSpec, ValidateOverride };

/** The devices a run resolves a request (`Device`) to: RUN_DEVICES, the runner record's (contract/runner-record.ts). */
export type RunDevice = (typeof RUN_DEVICES)[number];

/** A reported device as a `RunDevice`, or null for anything else (a runner never reports another). */
export function runDevice(reported: unknown): RunDevice | null {
  return RUN_DEVICES.find((d) => d === reported) ?? null;
}

/** One assembled block to validate (produced by the assemble stage). */
export interface ValidateItem {
  /** e.g. 'torchvision:torchvision.models.resnet.BasicBlock'. */
  id: string;
  /** Absolute folder put on sys.path (bound read-only into the sandbox). */
  importRoot: string;
  /** Module name to import from importRoot. */
  module: string;
  className: string;
  /** Top-level packages the import must not be able to use, e.g. ['torchvision']. */
  blockedPackages: string[];
  /** sha256 of the assembled file (part of the cache key). */
  moduleHash: string;
  overrides?: ValidateOverride;
  /**
   * Ways to build it that the corpus shows (usage mining), tried in order before inference: zero-argument builders
   * of its source (`resnet50`), then literal construction sites; and, after inference, the models of builders that
   * hold it (`part`). Builders are functions of the block's own assembled module (the assemble stage includes them).
   */
  usage?: RecipeCandidate[];
  /** Forward inputs the corpus calls the block with (literal tensor shapes), tried before probing. */
  usageInputs?: InputSpec[][];
  /**
   * Required parameters that take a module (or a config the block builds one from), read off its source
   * (usage/instances.ts): inference never guesses a number for them (`backbone=16`).
   */
  moduleSlots?: string[];
  /** The original class, for fidelity; imported with its package unblocked. */
  original?: { importRoot: string; module: string; className: string };
}

/** The validation cache (run/ backs it with the SQLite index); values are JSON records. */
export interface ValidateCache {
  get(key: string): string | undefined;
  put(key: string, value: string): void;
}

export interface ValidateOptions {
  /** Interpreter that imports torch, e.g. /usr/bin/python3. */
  python: string;
  /**
   * Folders the interpreter reads besides its own prefix, shown read-only in every sandbox: the base environment
   * below a requirements layer (pipeline/environment/).
   */
  pythonRoots?: string[];
  /**
   * Site folders the runner appends to sys.path itself, the interpreter started with `-S`: no `.pth` file or
   * `sitecustomize` of an installed package (a requirements layer is upstream's choice) runs in a worker. Runtime
   * first. Undefined: the interpreter's own site processing (an interpreter the tests name directly).
   */
  sites?: string[];
  /**
   * Site folders of the runtime (the environment's base: torch, torchvision), like /usr: an original installed
   * there is imported once by the workers; anything else (a checkout, a requirements layer) only by a block's child.
   */
  runtimeRoots?: string[];
  /**
   * The validation environment's identity (python, torch, CUDA, a digest of the installed set): part of the cache
   * key, so records of one environment are never served for another.
   */
  environmentKey?: string;
  /**
   * Import root → the modules of heavy installed libraries (seaborn, scipy.stats...) its sources import at module
   * level (companions.libraryImports): that root's workers import them once, before any block. Only speed.
   */
  libraryImports?: ReadonlyMap<string, readonly string[]>;
  device: Device;
  /** false only with the user's --no-sandbox. */
  sandbox: boolean;
  /**
   * A block's budget, wall clock: all its candidates, canonical counts and fidelity (config `validate.blockBudgetMs`);
   * default 60_000. The runner's deadline; the TypeScript backstop waits a little longer.
   */
  timeoutMs?: number;
  /**
   * The run's budget, wall clock, from the start of the run (config `validate.runBudgetMs`); default 90 minutes.
   * Once spent, no block starts: each left is `skipped`, saying so, and not cached.
   */
  runBudgetMs?: number;
  /**
   * Address space a block may add to what the worker had mapped after importing torch (RLIMIT_AS, not applied on
   * CUDA); default 4 GiB. Relative because a CUDA build of torch maps over 3 GiB before any block runs.
   */
  memoryBytes?: number;
  /** Size of each block's private /tmp in the sandbox; default 256 MiB. */
  tmpBytes?: number;
  /** Default os.availableParallelism(). */
  workers?: number;
  /**
   * Compiled op libraries of installed distributions (`.../torchvision/_C*.so`) each worker loads before any block
   * runs: the runtime the assembled Python calls into through `torch.ops` (docs/validate.md, "Compiled ops").
   */
  nativeLibraries?: string[];
  cache?: ValidateCache;
  /**
   * Where the first worker's hello is remembered between runs (remembered.ts): with it, a run whose every record
   * is cached starts no worker.
   */
  workerFacts?: ValidateCache;
  onProgress?: (done: number, total: number) => void;
  /**
   * Top-level packages the whole corpus provides (the run's blocked lists are added to them): a missing one is
   * `missing-module` (our resolver's fault), a missing module outside them and not installed `missing-dependency`.
   */
  corpusPackages?: string[];
  /** Extension modules the corpus's setup.py files declare (extensions.ts): missing, they are `native-extension`. */
  nativeModules?: string[];
}

/** `blocked`: failed only because a distribution is not installed (class `missing-dependency`); not an attempt. */
export type ValidationStatus = 'passed' | 'failed' | 'blocked' | 'skipped';

/** One way to build a block, as usage mining found it (see ValidateItem.usage). */
export interface RecipeCandidate {
  /**
   * `config`: a configuration read from a config file (`dict(type='ResNet', depth=50)`), counted as a canonical
   * configuration only (docs/validate.md, "Canonical configurations"); never a recipe the search tries.
   */
  origin: 'builder' | 'usage' | 'part' | 'instance' | 'config';
  /**
   * An `instance` candidate: the class of the block's source (`.ResNetBackbone`, assembled with the block) each
   * parameter gets an instance of, built with the block's own width choices; `config`: a config dict naming it
   * instead (`dict(type='ResNetBackbone', ...)`), for a block that builds it through its registry.
   */
  instances?: Record<string, { class: string; module?: string; config?: true }>;
  /**
   * A function of the block's module to call instead of the class, e.g. `resnet50`; for a part, the builder of
   * the model that holds the block (`fasterrcnn_resnet50_fpn`, assembled into the block's module).
   */
  builder?: string;
  /**
   * The upstream module defining `builder`, when it is not the block's own (fidelity calls the original package's):
   * a part's, or a builder of a sibling module (`segment_anything.build_sam`). Recorded in a part's recipe only.
   */
  builderModule?: string;
  kwargs?: Record<string, unknown>;
  refs?: string[];
  /** The site left some arguments unknown: inference fills the required parameters `kwargs` lacks. */
  fill?: boolean;
  /**
   * A builder's arguments that only size its per-image work for the check (`min_size`, `image_size`): merged into
   * `kwargs` for validation, left out of the canonical count, which is the builder's own configuration.
   */
  sizing?: Record<string, unknown>;
  /** For `config`: the file it was read from, relative to the source root; `builder` is its name as an identifier. */
  config?: string;
}

/**
 * What validation returns for a block: the runner's record (checked, pipeline/contract/runner-record.ts) with the
 * block's id, whether it came from the cache, and the statuses TypeScript decides (`blocked`, `skipped`).
 */
export interface ValidationRecord extends Omit<RunnerRecord, 'status' | 'device'> {
  id: string;
  status: ValidationStatus;
  /** Where it ran; `none` when it never reached a worker (skipped before any started). */
  device: RunDevice | 'none';
  cached: boolean;
}

export interface ValidationSummary {
  total: number;
  /** By status; `not-run`: failed records the catalog shows as not run automatically (contract/harness.ts). */
  byStatus: Record<ValidationStatus | 'not-run', number>;
  byFailureClass: Partial<Record<FailureClass, number>>;
  /** passed / (passed + failed); skipped, not-run and blocked blocks are not attempts. */
  passRate: number | null;
  /** Wilson score 95% interval of passRate. */
  interval: { low: number; high: number } | null;
  fidelity: Record<Fidelity['status'], number>;
  /** Blocked blocks per distribution they need (a block needing two counts under each), most first. */
  blockedBy: { distribution: string; blocks: number }[];
}
