// A published recipe: everything needed to replay a block's check (`nnblocks extract <id>`, then build it with
// these kwargs and feed it these inputs). Part of a block's validation record, as the recipe that passed or the
// one that was tried (block.schema.json `validation.recipe`, `validation.reason.recipeTried`).
import { common } from './common.ts';
import { INPUT_SPEC } from './inputs.ts';
import { DOTTED_MODULE_PATTERN, PART_PATH_PATTERN, REF_TARGET_PATTERN } from './rules.ts';
import { Enum, Type, type Static } from './schema.ts';
import { RECIPE_ORIGINS, RUN_LIMITS } from './vocabulary.ts';

const ITEMS = RUN_LIMITS.recipeItems;

/** A kwarg as a list entry: names are upstream names, never object keys. */
const kwargs = () =>
  Type.Array(
    Type.Object({ name: common.ref.kwargName(), value: common.ref.recipeValue() }, { additionalProperties: false }),
    { maxItems: ITEMS },
  );

export const RECIPE = Type.Object(
  {
    seed: Type.Integer(),
    /**
     * A function of the block's module that built it (`resnet50`), called with `kwargs` instead of the class; for a
     * part (origin `part`), the builder of the model that holds the block (`fasterrcnn_resnet50_fpn`), which the
     * extracted module holds too.
     */
    builder: Type.Optional(
      common.ref.kwargName({
        description:
          "A function of the block's module the block was built by (`resnet50`), called with kwargs instead of the class; for a part (origin `part`), the builder of the model that holds the block, which the extracted module holds too.",
      }),
    ),
    /** A part: the upstream module that defines `builder` (`torchvision.models.detection.faster_rcnn`). */
    builderModule: Type.Optional(
      Type.String({
        description: 'A part: the upstream module that defines `builder` (`torchvision.models.detection.faster_rcnn`).',
        maxLength: RUN_LIMITS.typeNameChars,
        pattern: DOTTED_MODULE_PATTERN,
      }),
    ),
    /**
     * A part: where the block sits in the model `builder` makes (`rpn.anchor_generator`; PART_PATH_PATTERN). Then
     * `kwargs` are the builder's and `inputs` the model's: the block is fed what the model's forward passes it
     * (docs/validate.md, "Replay protocol").
     */
    path: Type.Optional(
      Type.String({
        description:
          "A part: where the block sits in the model `builder` makes (`rpn.anchor_generator`, `blocks.0`); kwargs are the builder's and inputs the model's, the block is fed what the model's forward passes it.",
        maxLength: RUN_LIMITS.typeNameChars,
        pattern: PART_PATH_PATTERN,
      }),
    ),
    /** Where the recipe came from (docs/validate.md, "Recipes"). */
    origin: Type.Optional(
      Enum(RECIPE_ORIGINS, {
        description:
          'Where the recipe came from: a config override, a builder function of the source, a construction site in the corpus, inference, or the model of a builder that holds the block (part).',
      }),
    ),
    /** Constructor keyword arguments, in constructor order. A list, since names are upstream names. */
    kwargs: kwargs(),
    /**
     * Instances passed as kwargs: a class (`.MBConvConfig`, a class of the block's package; `torch.nn.Linear`) called
     * with kwargs, which may hold tuples and instances in turn (a config override's `{"class": ...}`).
     */
    calls: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: common.ref.kwargName(),
            target: Type.String({ maxLength: RUN_LIMITS.typeNameChars, pattern: REF_TARGET_PATTERN }),
            kwargs: kwargs(),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'Instances the block is built with: a class (`.MBConvConfig` of its package, `torch.nn.Linear`) called with kwargs (literals, tuples, instances in turn), passed as the kwarg `name`.',
          maxItems: ITEMS,
        },
      ),
    ),
    /**
     * Names of kwargs whose value is a dotted name (`torch.nn.BatchNorm2d`; `.BasicBlock` in the block's own module),
     * resolved with importlib before building. Absent when none.
     */
    refs: Type.Optional(
      Type.Array(common.ref.kwargName(), {
        description:
          'Names of kwargs whose value is a dotted name; checkCatalog checks that each names a kwarg whose value matches REF_TARGET_PATTERN.',
        maxItems: ITEMS,
        uniqueItems: true,
      }),
    ),
    /** Positional inputs to forward, in order. */
    inputs: Type.Array(INPUT_SPEC, { maxItems: ITEMS }),
  },
  {
    additionalProperties: false,
    description:
      "A part recipe (origin `part`) names its builder, the builder's module and the path; no other recipe names a module or a path.",
    if: { required: ['origin'], properties: { origin: { const: 'part' } } },
    then: { required: ['builder', 'builderModule', 'path'] },
    else: { not: { anyOf: [{ required: ['builderModule'] }, { required: ['path'] }] } },
  },
);

export type ValidationRecipe = Static<typeof RECIPE>;
