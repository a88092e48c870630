// Forward inputs: what config overrides write, the runner draws and the catalog publishes, beyond a tensor's shape
// and dtype (dict keys, literal values, boxes). One schema: the catalog's block schema and the runner-record check
// are both built from `inputSpec` below; the site checks with the predicates before it renders a replay
// (src/lib/replay.ts). The config schema (content/corpus.schema.json) states the same rules; a test compares them.
import { common } from './common.ts';
import { Type, Typed, type Static, type TSchema } from './schema.ts';
import { isShape } from './rules.ts';
import { RUN_LIMITS } from './vocabulary.ts';

/** A dict input's key, and a name in a literal input (`names: List[str]`): letters, digits, underscores. */
export const INPUT_NAME_PATTERN = '^[A-Za-z0-9_]{1,32}$';

export const INPUT_LIMITS = {
  /** Keys of a dict input. */
  keys: 16,
  /** Items of a literal list input: names, image sizes. */
  literalItems: 16,
  /** Ints in one item of a list of int lists (an image size has 2). */
  literalInts: 4,
  /** The largest int of a literal input (a window size, an image side), and the largest side of a boxes image. */
  maxInt: 4096,
} as const;

/** A non-tensor forward input: an int, names, int lists (image sizes, passed as tuples), or a tuple of ints. */
export type InputLiteral = number | string[] | number[][] | { tuple: number[] };

const INPUT_INT = Type.Integer({ minimum: 0, maximum: INPUT_LIMITS.maxInt });
const INPUT_NAME = Type.String({ pattern: INPUT_NAME_PATTERN });
const literalList = <T extends TSchema>(items: T) =>
  Type.Array(items, { minItems: 1, maxItems: INPUT_LIMITS.literalItems });
const intTuple = () => Type.Array(INPUT_INT, { minItems: 1, maxItems: INPUT_LIMITS.literalInts });

/** JSON Schemas of InputSpec's optional fields. */
export const INPUT_FIELD_SCHEMAS = {
  /** Exclusive upper bound for integer inputs (token ids, class indices); for boxes, the images they index. */
  high: Type.Integer({ minimum: 1 }),
  /** Pass this many tensors of the spec as one list argument (feature levels, one boxes tensor per image). */
  list: Type.Integer({ minimum: 1, maximum: RUN_LIMITS.recipeItems }),
  /** Pass a dict of tensors of the spec under these keys as one argument (`Dict[str, Tensor]` feature maps). */
  keys: Type.Array(INPUT_NAME, { minItems: 1, maxItems: INPUT_LIMITS.keys }),
  /**
   * Boxes valid inside a `boxes` x `boxes` image instead of noise: shape [K, 4] (x1, y1, x2, y2) or [K, 5] with the
   * image index first, row i on image i % high (`rois` of torchvision's roi_align).
   */
  boxes: Type.Integer({ minimum: 2, maximum: INPUT_LIMITS.maxInt }),
  /** Pass this literal instead of a tensor (an `int` window size, `List[str]` level names, image sizes); shape []. */
  value: Typed<InputLiteral>({
    anyOf: [
      INPUT_INT,
      literalList(INPUT_NAME),
      literalList(intTuple()),
      // A tuple of ints (`size=(8, 8)`, a `Tuple[int, int]` argument), written `{"tuple": [8, 8]}`.
      Type.Object({ tuple: intTuple() }, { additionalProperties: false }),
    ],
  }),
};

/** An InputSpec with `boxes` has a two-dimensional shape, [K, 4] or [K, 5] (isBoxesShape checks the last). */
export const INPUT_BOXES_RULE = {
  if: { required: ['boxes'] },
  then: { properties: { shape: { type: 'array', minItems: 2, maxItems: 2 } } },
};

/**
 * One forward input: a random tensor of this shape and dtype (float with `randn`, integer with `randint(0, high)`,
 * boxes with `boxes`); with `list`, a list of that many such tensors (the feature levels of a detection head); with
 * `levels`, a list of one tensor of each of those shapes, in order (a feature pyramid whose levels differ in channels
 * and size: an FPN's [2, 16, 32, 32], [2, 32, 16, 16]; `shape` is the first level's); with `value`, no tensor at
 * all. Drawn in the order docs/validate.md ("Replay protocol") gives. `shape` and `dtype` are `$ref`s in the
 * catalog's files and written out in the runner's record schema.
 */
export function inputSpec<S extends TSchema, D extends TSchema>(shape: S, dtype: D) {
  const f = INPUT_FIELD_SCHEMAS;
  return Type.Object(
    {
      shape,
      /** A torch dtype name without the `torch.` prefix: float32, int64, bool... */
      dtype,
      high: Type.Optional(f.high),
      list: Type.Optional(f.list),
      keys: Type.Optional(f.keys),
      boxes: Type.Optional(f.boxes),
      value: Type.Optional(f.value),
      levels: Type.Optional(
        Type.Array(shape, { minItems: 2, maxItems: RUN_LIMITS.recipeItems, description: 'one tensor per level' }),
      ),
    },
    { additionalProperties: false, ...INPUT_BOXES_RULE },
  );
}

/** A forward input as the catalog publishes it (block.schema.json `validation.recipe.inputs`). */
export const INPUT_SPEC = inputSpec(common.ref.shape(), common.ref.torchDtype());

/**
 * A forward input wherever one is written: the catalog's, the runner's, and a config override's. Its dtype is text
 * here because a config's inputs are held to the config schema (content/corpus.schema.json), not to TORCH_DTYPES;
 * the catalog's and the runner's schemas hold theirs to the enum.
 */
export type InputSpec = Omit<Static<typeof INPUT_SPEC>, 'dtype'> & { dtype: string };

const INPUT_NAME_RE = new RegExp(INPUT_NAME_PATTERN);
const isInputInt = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v <= INPUT_LIMITS.maxInt;
const isInputName = (v: unknown): v is string => typeof v === 'string' && INPUT_NAME_RE.test(v);
const isListOf = <T>(v: unknown, max: number, item: (x: unknown) => x is T): v is T[] =>
  Array.isArray(v) && v.length >= 1 && v.length <= max && v.every(item);

/** `{"tuple": [8, 8]}`: 1 to INPUT_LIMITS.literalInts ints, passed as a Python tuple. */
export const isInputTuple = (v: unknown): v is { tuple: number[] } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  isListOf((v as { tuple?: unknown }).tuple, INPUT_LIMITS.literalInts, isInputInt);

/** A dict input's keys: 1 to INPUT_LIMITS.keys names. */
export const isInputKeys = (v: unknown): v is string[] => isListOf(v, INPUT_LIMITS.keys, isInputName);

/** A literal input: an int, a list of names, a list of int lists, or a tuple of ints (INPUT_FIELD_SCHEMAS.value). */
export const isInputLiteral = (v: unknown): v is InputLiteral =>
  isInputInt(v) ||
  isInputTuple(v) ||
  isListOf(v, INPUT_LIMITS.literalItems, isInputName) ||
  isListOf(v, INPUT_LIMITS.literalItems, (x): x is number[] => isListOf(x, INPUT_LIMITS.literalInts, isInputInt));

/**
 * A pyramid input's levels with its `shape`: 2 to RUN_LIMITS.recipeItems shapes, the first of them `shape` (a level
 * list the runner drew from a shape that names another would publish a first level nobody drew).
 */
export const isInputLevels = (levels: unknown, shape: unknown): levels is number[][] =>
  Array.isArray(levels) &&
  levels.length >= 2 &&
  levels.length <= RUN_LIMITS.recipeItems &&
  levels.every(isShape) &&
  isShape(shape) &&
  levels[0].length === shape.length &&
  levels[0].every((d: number, k: number) => d === shape[k]);

/** A boxes input's shape and image side: [K, 4] or [K, 5], inside a side x side image (side 2 to maxInt). */
export const isBoxesInput = (shape: unknown, side: unknown): boolean =>
  isShape(shape) && shape.length === 2 && (shape[1] === 4 || shape[1] === 5) && isInputInt(side) && side >= 2;
