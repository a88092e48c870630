// Types of the validate stage: what it receives per block, its options, and the JSON-serializable record it returns.

import type { InputSpec, RecipeOriginName } from '../catalog/contract.ts';
import type { Device } from '../config/device.ts';
import type { ValidateOverride } from '../config/types.ts';

export type { Device, InputSpec, ValidateOverride };

/**
 * The devices a run resolves a request (`Device`) to, as runner.py reports them in its hello and in every record:
 * `auto` became one of these before any block ran. The one list the record check and the hello's reading use.
 */
export const RUN_DEVICES = ['cpu', 'cuda'] as const;

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

export const FAILURE_CLASSES = [
  'syntax',
  'compile',
  'missing-module',
  'missing-dependency',
  'unresolved-name',
  'native-extension',
  'needs-arguments',
  'forward-error',
  'backward-error',
  'timeout',
  'memory',
  'crashed',
  'sandbox-violation',
  'protocol-error',
  // The validation environment failed the block (no account entry, a broken runtime): never the block's own
  // failure, and never cached as its result.
  'environment',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export const STAGES = ['parse', 'compile', 'import', 'build', 'forward', 'backward'] as const;
export type StageName = (typeof STAGES)[number];

export interface StageRecord {
  stage: StageName;
  status: 'passed' | 'failed';
  /** Wall time; for build and forward, summed over the candidates tried. */
  ms: number;
  /** Trimmed error text (the first candidate's, when several were tried). */
  error?: string;
}

/**
 * Where a recipe came from: a config override, a builder function, a construction site, inference, or the model
 * of a builder that holds the block as a part.
 */
export type RecipeOrigin = RecipeOriginName;

/** One way to build a block, as usage mining found it (see ValidateItem.usage). */
export interface RecipeCandidate {
  origin: 'builder' | 'usage' | 'part';
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
}

/**
 * A builder's configuration as upstream ships it: its parameter count, and its output shapes and MACs at a default
 * input.
 */
export interface CanonicalFigure {
  builder: string;
  params: number;
  /** The input the output shapes were computed for (`[1, 3, 224, 224]`), on torch's meta device (no arithmetic). */
  input?: number[];
  outputs?: number[][];
  /**
   * Multiply-accumulates of that forward at `input` (torch.utils.flop_counter's FLOPs / 2; contract.ts
   * CANONICAL_MACS says what is counted). Absent under torch < 2.1, or when counting failed or ran long.
   */
  macs?: number;
}

/** Everything needed to replay the recorded run; see docs/validate.md ("Replay protocol"). */
export interface Recipe {
  seed: number;
  /**
   * Set when the block was built by calling this function of its module with `kwargs`, not the class; for a part
   * (origin `part`), the builder of the model that holds it.
   */
  builder?: string;
  /** A part: the upstream module of `builder` (dotted identifiers). */
  builderModule?: string;
  /**
   * A part: where the block sits in the model `builder` makes (`rpn.anchor_generator`, `blocks.0`); `inputs` are
   * then the model's, and the block is fed what the model's forward passes it.
   */
  path?: string;
  /**
   * Kwargs whose value is a config object to build, `{ call: '.MBConvConfig', kwargs: {...} }`: a class of the
   * block's module called with literal kwargs before the block is built. Absent when there are none.
   */
  calls?: string[];
  origin: RecipeOrigin;
  kwargs: Record<string, unknown>;
  /**
   * Kwargs whose value is a dotted name, resolved with importlib before building: `torch.nn.BatchNorm2d`, or
   * `.BasicBlock` for an attribute of the block's own module. Absent when there are none.
   */
  refs?: string[];
  inputs: InputSpec[];
}

export interface OutputRecord {
  shape: number[];
  dtype: string;
  /** Σ|x| in float64; a string ('nan', 'inf') when not finite. */
  checksum: number | string;
}

export interface ModuleTree {
  /** Qualified class name; torch.nn layers as `torch.nn.Conv2d`. */
  type: string;
  /** Direct parameters only, name → shape. */
  params: Record<string, number[]>;
  children: Record<string, ModuleTree>;
  /** Set when the node budget (2000) ran out below this node. */
  truncated?: boolean;
}

export interface Fidelity {
  status: 'identical' | 'differs' | 'n/a';
  reason?: string;
}

export interface ValidationRecord {
  id: string;
  status: ValidationStatus;
  failureClass: FailureClass | null;
  /** The missing module, the unresolved name, the signal, the violation or why it was skipped. */
  failureDetail: string | null;
  stages: StageRecord[];
  recipe: Recipe | null;
  /** When nothing passed: the first candidate that was tried (with its first inputs once one built). */
  attempt?: Recipe | null;
  /** `needs-arguments`: required constructor parameters inference had no value for. */
  uninferred?: string[];
  outputs: OutputRecord[];
  /** Number of parameter elements. */
  params: number | null;
  /** Number of buffer elements. */
  buffers: number | null;
  /**
   * Parameter tensors that got a finite gradient, and those that got none; `mode` says whether the backward ran
   * in training mode, or in eval mode because the training-mode forward raised `trainError`.
   */
  gradients: { withGrad: number; without: number; mode?: 'train' | 'eval'; trainError?: string } | null;
  /** CPU: peak RSS the block added over the worker's; CUDA: torch.cuda.max_memory_allocated(). */
  peakMemoryBytes: number | null;
  /** Where it ran; `none` when it never reached a worker (skipped before any started). */
  device: RunDevice | 'none';
  gpuName: string | null;
  torchVersion: string | null;
  moduleTree: ModuleTree | null;
  /** Parameter counts at the configurations of the source's zero-argument builders (passed blocks only). */
  canonical?: CanonicalFigure[];
  fidelity: Fidelity;
  stdoutTail: string;
  stderrTail: string;
  cached: boolean;
}

/** What the runner reports for a block: the record minus the fields TypeScript owns. */
export type RunnerRecord = Omit<ValidationRecord, 'id' | 'cached'>;

export interface ValidationSummary {
  total: number;
  byStatus: Record<ValidationStatus, number>;
  byFailureClass: Partial<Record<FailureClass, number>>;
  /** passed / (passed + failed); skipped and blocked blocks are not attempts. */
  passRate: number | null;
  /** Wilson score 95% interval of passRate. */
  interval: { low: number; high: number } | null;
  fidelity: Record<Fidelity['status'], number>;
  /** Blocked blocks per distribution they need (a block needing two counts under each), most first. */
  blockedBy: { distribution: string; blocks: number }[];
}
