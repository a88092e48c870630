// A block's published validation record (block.schema.json `validation`): status, stages, the recipe that replays
// the check, outputs and counts, why it failed or what would unblock it. Made by pipeline/catalog/ from the
// runner's record (runner-record.ts), which is hostile data checked before it gets here.
import { common } from './common.ts';
import { RECIPE } from './recipe.ts';
import {
  CHECKSUM_PATTERN,
  CONFIG_PATH_PATTERN,
  DEVICE_PATTERN,
  DISTRIBUTION_PATTERN,
  MODULE_NAME_PATTERN,
  TORCH_VERSION_PATTERN,
} from './rules.ts';
import { Const, Enum, Type, Typed, type Static } from './schema.ts';
import { RUN_LIMITS } from './vocabulary.ts';

/**
 * `validation.canonical[].macs`: multiply-accumulates of one forward at the figure's `input`, as torch's own counter
 * (`torch.utils.flop_counter`, torch >= 2.1) counts them on the meta device, halved: it counts 2 FLOPs per
 * multiply-add of matrix products and convolutions (attention's included) and nothing for elementwise ops,
 * normalisation, activations or pooling. MACs, not FLOPs: the unit of torchvision's published `_ops` (resnet50
 * 4.089 G). An integer up to 2^53 - 1, the largest a JSON reader holds exactly; absent under older torch. The
 * runner's record and the catalog both hold a figure to this.
 */
export const CANONICAL_MACS = { minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/** A stage name as the catalog publishes it: `import`, `build`, `forward`... */
const stageName = () => Type.String({ maxLength: 32, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' });

/**
 * `blocked`: it failed only because a distribution is not installed (`missing-dependency`, see `blockedBy`).
 * `not-run`: the harness could not run it — no constructor arguments found, past the time budget on a large model,
 * an input it could not make (contract/harness.ts, first matching rule); `failed`: everything else, the code's own
 * failure. Neither `blocked` nor `not-run` is an attempt: the pass rate is passed / (passed + failed).
 */
export const VALIDATION_STATUSES = ['passed', 'failed', 'not-run', 'blocked'] as const;

/** What a blocked block needs: install `distribution` (pip's name) to make `import module` work. */
const blockedBy = Type.Object(
  {
    distribution: Type.String({ pattern: DISTRIBUTION_PATTERN }),
    module: Type.String({ pattern: MODULE_NAME_PATTERN }),
    /** false when nnblocks' module table did not know the module and assumed the distribution shares its name. */
    known: Type.Boolean(),
  },
  { additionalProperties: false },
);

/**
 * Why a block failed or is blocked, in neutral form (pipeline/catalog/failure-reason.ts derives it from the runner's
 * stage error, `Type: message`). Upstream text: capped, without traceback lines or source lines, paths of the
 * machine that ran it replaced by module-relative paths or `<tmp>`, `<sandbox>`, `<host>`; render as text.
 */
const reason = Type.Object(
  {
    /** The stage it failed in (`import`, `build`, `forward`...); null when the run ended before any stage reported. */
    stage: Type.Union([Type.Null(), stageName()]),
    /**
     * The exception's type as Python names it: `TypeError`, `torch.OutOfMemoryError` (dotted identifiers,
     * TYPE_NAME_PATTERN); null when the run ended without one (a timeout, a crash, a violation, a broken record).
     */
    exceptionType: Type.Union([Type.Null(), common.ref.typeName()]),
    /** The exception's message (or how the run ended), one line, at most RUN_LIMITS.detailChars; may be empty. */
    message: Type.String({ maxLength: RUN_LIMITS.detailChars }),
    /**
     * The constructor kwargs and forward inputs of the run that failed, when the runner recorded them (today: a block
     * that built and ran forward, then failed); null otherwise. The same schema as `recipe`, by reference.
     */
    recipeTried: Type.Union([
      Type.Null(),
      Typed<Static<typeof RECIPE>>({ $ref: '#/properties/validation/properties/recipe' }),
    ]),
    /** needs-arguments: required constructor parameters inference had no value for (what a reader must supply). */
    missing: Type.Optional(
      Type.Array(common.ref.kwargName(), {
        description: 'needs-arguments: the required constructor parameters inference had no value for.',
        maxItems: 16,
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Why a failed, not-run or blocked block did not pass, neutral (FailureReason in contract/validation.ts): the message capped at RUN_LIMITS.detailChars, without traceback or source lines or host paths; set exactly when status is failed, not-run or blocked.',
  },
);

const canonical = Type.Object(
  {
    builder: common.ref.kwargName(),
    config: Type.Optional(
      Type.String({
        pattern: CONFIG_PATH_PATTERN,
        description:
          "The config file this configuration was read from, relative to the source root (`configs/_base_/models/resnet50.py`); `builder` is then the file's name as an identifier (`vit-base-p16.py`: `vit_base_p16`). Absent for a builder function's configuration.",
      }),
    ),
    params: common.ref.count(),
    /** The input the output shapes were computed for (`[1, 3, 224, 224]`), on torch's meta device (no arithmetic). */
    input: Type.Optional(
      common.ref.shape({
        description:
          "The default input the output shapes were computed for, e.g. [1, 3, 224, 224] (on torch's meta device: shapes, no arithmetic).",
      }),
    ),
    outputs: Type.Optional(
      Type.Array(common.ref.shape(), {
        description: 'Output shapes at `input`; absent with it when no default input ran.',
        maxItems: 8,
      }),
    ),
    macs: Type.Optional(
      Type.Integer({
        description:
          "Multiply-accumulates (MACs, not FLOPs) of one forward at `input`: torch.utils.flop_counter's count on the meta device, halved (it counts 2 FLOPs per multiply-add of matrix products and convolutions, attention's included, and nothing for elementwise ops, normalisation, activations or pooling). The unit of torchvision's published `_ops` (resnet50: 4,089,184,256). Absent when torch has no counter (< 2.1) or counting failed or ran long.",
        ...CANONICAL_MACS,
      }),
    ),
  },
  // MACs are of the forward at `input`: a figure without the input it was counted at says nothing.
  { additionalProperties: false, dependencies: { macs: ['input'] } },
);

export const VALIDATION = Type.Object(
  {
    status: Enum(VALIDATION_STATUSES),
    /**
     * Kebab-case cause, one of the runner's classes (docs/validate.md): `needs-arguments`, `forward-error`,
     * `timeout`...
     */
    failureClass: Type.Optional(common.ref.kebab()),
    /**
     * The class's detail (the missing module, the unresolved name, the violation, how the process died), without
     * paths of the machine that ran it; upstream text, render escaped.
     */
    failureDetail: Type.Optional(Type.String({ maxLength: RUN_LIMITS.detailChars })),
    /** In execution order: parse, compile, import, build, forward, backward. */
    stages: Type.Array(
      Type.Object(
        { stage: stageName(), status: Enum(['ok', 'failed', 'skipped']), ms: Type.Number({ minimum: 0 }) },
        { additionalProperties: false },
      ),
    ),
    /**
     * Set when `status` is `passed`: everything needed to replay the check (`npx nnblocks extract <id>`, then run with
     * these). Absent otherwise: what a failed block tried is `reason.recipeTried`.
     */
    recipe: Type.Optional(RECIPE),
    /** Observed outputs of forward, in order; empty when forward did not run. */
    outputs: Type.Array(
      Type.Object(
        {
          shape: common.ref.shape(),
          dtype: common.ref.torchDtype(),
          /** Σ|x| in float64, as text (CHECKSUM_PATTERN). */
          checksum: Type.String({
            description: 'Σ|x| of the output in float64, as text: a number, or nan, inf, -inf.',
            maxLength: 40,
            pattern: CHECKSUM_PATTERN,
          }),
          /**
           * A fixed random projection, Σ x·(2r − 1) in float64 with r = torch.rand of the output's shape (float64)
           * from `torch.Generator().manual_seed(0)`: it sees signs and positions, which Σ|x| can't, at the output's
           * own scale. Absent in records made before it was measured.
           */
          projection: Type.Optional(
            Type.String({
              description:
                "A fixed random projection of the output, Σ x·(2r − 1) in float64, r = torch.rand of the output's shape (dtype float64) from torch.Generator().manual_seed(0), as text; absent in records made before it was measured.",
              maxLength: 40,
              pattern: CHECKSUM_PATTERN,
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /**
     * Set only when every output is all zeros, one of them floating and not empty (ViT's logits from its
     * zero-initialised head), and the recipe is not a part's: what Σ|x| and the projection can't check, how the
     * outputs' projection moves with the block's parameters and floating inputs, Σ|∂P/∂θ| + Σ|∂P/∂x| in float64
     * (P the sum of the projections, one eval-mode forward with gradients after the recipe's seed and build).
     */
    sensitivity: Type.Optional(
      Type.String({
        description:
          "Only when every output is all zeros (one floating and not empty) and the recipe is not a part's: Σ|∂P/∂θ| + Σ|∂P/∂x| in float64 over the block's parameters and floating inputs, P the sum of the outputs' projections, from one eval-mode forward with gradients after the recipe's seed and build; as text.",
        maxLength: 40,
        pattern: CHECKSUM_PATTERN,
      }),
    ),
    /**
     * Parameter count (elements) of the module as the recipe built it: measured **at the test configuration** (the
     * small widths and depths validation chose, e.g. one block per stage), not the block's size as upstream uses it.
     * Absent when the block never built. The size at a builder's configuration ("at resnet50") is `canonical`.
     */
    params: Type.Optional(common.ref.count()),
    /** Buffer count (elements), at the same configuration; absent when the block never built. */
    buffers: Type.Optional(common.ref.count()),
    /**
     * Parameter counts at the configurations of the source's zero-argument builders, labelled with the builder
     * (`resnet50`: 25,557,032). `params` is the count at the test configuration the recipe built. `outputs`: the
     * output shapes at the default `input` (`[1, 3, 224, 224]` -> `[[1, 1000]]`), computed on torch's meta device;
     * absent when no default input ran (a detector's forward needs real values). `macs`: CANONICAL_MACS.
     */
    canonical: Type.Optional(
      Type.Array(canonical, {
        description:
          "Parameter counts at the configurations of the source's zero-argument builders, each labelled with the builder's name (`resnet50`: 25,557,032), with output shapes and MACs at a default input where one runs; `params` is the count at the test configuration.",
        maxItems: 8,
      }),
    ),
    /** `eval` when the backward check ran in eval mode: the training-mode forward raised (a detector wants targets). */
    gradientMode: Type.Optional(
      Enum(['eval'], {
        description:
          '`eval` when the backward check ran in eval mode because the training-mode forward raised (a detector that wants targets); absent when it ran in training mode.',
      }),
    ),
    /** e.g. `cpu`, `cuda:0`. */
    device: Type.String({ pattern: DEVICE_PATTERN }),
    torchVersion: Type.String({ pattern: TORCH_VERSION_PATTERN }),
    /**
     * Extracted block vs. the original import: `exact` (bit-identical outputs), `close` (within tolerance),
     * `mismatch`, or `not-compared` (original not importable, or validation stopped earlier).
     */
    fidelity: Enum(['exact', 'close', 'mismatch', 'not-compared']),
    /** Set when `status` is `blocked`: what to install to unblock it, sorted by distribution. */
    blockedBy: Type.Optional(
      Type.Array(blockedBy, {
        description:
          'What a blocked block needs installed (BlockedBy in contract/validation.ts); set exactly when status is blocked.',
        minItems: 1,
        maxItems: 16,
      }),
    ),
    /** Why it did not pass; set exactly when `status` is `failed`, `not-run` or `blocked` (absent in older catalogs). */
    reason: Type.Optional(reason),
  },
  {
    additionalProperties: false,
    allOf: [
      {
        description:
          'A failed, not-run or blocked block has a class and a reason and no replay recipe; a passed one has its recipe.',
        if: { properties: { status: { enum: ['failed', 'not-run', 'blocked'] } } },
        then: { required: ['failureClass', 'reason'], not: { required: ['recipe'] } },
        else: { required: ['recipe'], not: { anyOf: [{ required: ['reason'] }, { required: ['failureClass'] }] } },
      },
      {
        if: { properties: { status: Const('blocked') } },
        then: { required: ['blockedBy'], properties: { failureClass: Const('missing-dependency') } },
        else: { not: { required: ['blockedBy'] } },
      },
    ],
  },
);

export type ValidationRecord = Static<typeof VALIDATION>;
export type FailureReason = Static<typeof reason>;
export type BlockedBy = Static<typeof blockedBy>;
