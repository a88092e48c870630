// What a published string or number may be: the patterns the schemas hold values to and the same rules as
// predicates. Everything a validation run reports is as hostile as the upstream code that ran: the schemas enforce
// these (the published files and the runner-record check are built from the same constants), and the catalog step
// and the site check again with the predicates before using a value. The site builds Python text only from values
// that pass them (src/lib/replay.ts); anything else is refused, never escaped into code.
import { PYTHON_KEYWORDS, RUN_LIMITS, TORCH_DTYPES, type TorchDtype } from './vocabulary.ts';

/** Ids and slugs appear in URLs and file names: lowercase ASCII, digits, `.`, `_`, `-`; must start alphanumeric. */
export const SLUG_PATTERN = '^[a-z0-9][a-z0-9._-]{0,199}$';

/**
 * An arXiv identifier as arXiv issues them, without a version: new style `1709.01507` (4 + 4 or 5 digits) or old
 * style `cs/0112017`, `math.GT/0309136`. Upstream text is hostile: anything else is not an id.
 */
export const ARXIV_ID_PATTERN = '^(\\d{4}\\.\\d{4,5}|[a-z]+(-[a-z]+)?(\\.[A-Z]{2})?/\\d{7})$';
/** A DOI as Crossref recommends matching modern ones (`10.1109/CVPR.2016.90`), capped at 200 characters. */
export const DOI_PATTERN = '^10\\.\\d{4,9}/[-._;()/:A-Za-z0-9]{1,190}$';
const ARXIV_ID = new RegExp(ARXIV_ID_PATTERN);
const DOI = new RegExp(DOI_PATTERN);
export const isArxivId = (v: unknown): v is string => typeof v === 'string' && ARXIV_ID.test(v);
export const isDoi = (v: unknown): v is string => typeof v === 'string' && DOI.test(v);

/** A recipe's keyword argument name (and a `refs` entry): an ASCII identifier, not a keyword nor `__debug__`. */
export const KWARG_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}$';
/**
 * A config file's path relative to its source root (`configs/_base_/models/resnet50.py`, docs/config.md "configs"):
 * ASCII letters, digits, `_ - + .` in `/`-separated parts, none of them `.` or `..`, ending `.py`.
 */
export const CONFIG_PATH_PATTERN = '^(?!.*(^|/)\\.{1,2}(/|$))[A-Za-z0-9_][A-Za-z0-9_+./-]{0,198}\\.py$';

/**
 * The value of a kwarg named in `refs`: a module and an attribute, `torch.nn.BatchNorm2d`, or a leading dot and an
 * attribute of the block's own module, `.BasicBlock` (ASCII identifiers; how the runner resolves them).
 */
export const REF_TARGET_PATTERN = '^(\\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)+)$';

/**
 * A layer type in a composition (a class's `__module__` + `__qualname__` as the built module reports it): dotted
 * Python identifiers (Unicode allowed, as Python allows), where a segment after the first may be `<locals>`
 * (`pkg.mod.make.<locals>.Block`). Anything else (a path, a command line, file contents) is dropped by the catalog
 * step.
 */
export const TYPE_NAME_PATTERN =
  '^[\\p{XID_Start}_][\\p{XID_Continue}]*(\\.([\\p{XID_Start}_][\\p{XID_Continue}]*|<locals>))*$';

/**
 * Where a part sits in the model its builder makes (a composite recipe's `path`), as `named_modules()` writes it:
 * attribute names and ModuleList/Sequential indices, dotted (`rpn.anchor_generator`, `backbone.body.layer1.0`),
 * the first an identifier, at most 32 segments and RUN_LIMITS.typeNameChars characters.
 */
export const PART_PATH_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}(\\.([A-Za-z_][A-Za-z0-9_]{0,99}|[0-9]{1,6})){0,31}$';

/** A Python module's dotted name: ASCII identifiers (`torchvision.models.detection.faster_rcnn`). */
export const DOTTED_MODULE_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$';

/** An output checksum (Σ|x| in float64) as text: a decimal number, or `nan`, `inf`, `-inf`. */
export const CHECKSUM_PATTERN = '^(nan|inf|-inf|-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?)$';

/** A torch device: `cpu`, `cuda`, `cuda:0`. */
export const DEVICE_PATTERN = '^[a-z][a-z0-9_]{0,15}(:[0-9]{1,4})?$';

/** A torch version as reported (`2.6.0+cpu`, `1.13.0a0`), or `unknown`. */
export const TORCH_VERSION_PATTERN = '^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$';

/** A MACs figure as CANONICAL_MACS allows it (the site checks with this before it shows one). */
export const isMacs = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

const KWARG_NAME = new RegExp(KWARG_NAME_PATTERN);
const PART_PATH = new RegExp(PART_PATH_PATTERN);
const DOTTED_MODULE = new RegExp(DOTTED_MODULE_PATTERN);
const REF_TARGET = new RegExp(REF_TARGET_PATTERN);
const TYPE_NAME = new RegExp(TYPE_NAME_PATTERN, 'u');
const CHECKSUM = new RegExp(CHECKSUM_PATTERN);
const RESERVED: ReadonlySet<string> = new Set<string>([...PYTHON_KEYWORDS, '__debug__']);
const DTYPES: ReadonlySet<string> = new Set<string>(TORCH_DTYPES);
const chars = (s: string) => [...s].length;

/** A name Python accepts as `f(name=...)`: ASCII identifier, not reserved. */
export const isKwargName = (v: unknown): v is string => typeof v === 'string' && KWARG_NAME.test(v) && !RESERVED.has(v);

/** `torch.nn.BatchNorm2d` or `.BasicBlock`, no segment a reserved word. */
export const isRefTarget = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= RUN_LIMITS.typeNameChars &&
  REF_TARGET.test(v) &&
  v
    .split('.')
    .filter(Boolean)
    .every((seg) => !RESERVED.has(seg));

/** A part's path: PART_PATH_PATTERN within RUN_LIMITS.typeNameChars, no segment a reserved word. */
export const isPartPath = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= RUN_LIMITS.typeNameChars &&
  PART_PATH.test(v) &&
  v.split('.').every((seg) => !RESERVED.has(seg));

/** A dotted module name within RUN_LIMITS.typeNameChars, no segment a reserved word. */
export const isDottedModule = (v: unknown): v is string =>
  typeof v === 'string' &&
  v.length <= RUN_LIMITS.typeNameChars &&
  DOTTED_MODULE.test(v) &&
  v.split('.').every((seg) => !RESERVED.has(seg));

export const isTypeName = (v: unknown): v is string =>
  typeof v === 'string' && chars(v) <= RUN_LIMITS.typeNameChars && TYPE_NAME.test(v);

export const isTorchDtype = (v: unknown): v is TorchDtype => typeof v === 'string' && DTYPES.has(v);

export const isChecksum = (v: unknown): v is string => typeof v === 'string' && v.length <= 40 && CHECKSUM.test(v);

/** A shape: at most RUN_LIMITS.recipeItems non-negative integers. */
export const isShape = (v: unknown): v is number[] =>
  Array.isArray(v) &&
  v.length <= RUN_LIMITS.recipeItems &&
  v.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0);

/** At most `max` characters (code points), never splitting a surrogate pair; `…` marks a cut. */
export function capText(text: string, max: number): string {
  const cps = [...text];
  return cps.length <= max ? text : `${cps.slice(0, max - 1).join('')}…`;
}

/** A child's attribute name as `named_children()` reports it: `conv1`, `0` (an ASCII word). */
export const TREE_CHILD_NAME_PATTERN = '^[A-Za-z0-9_]{1,100}$';
const TREE_CHILD_NAME = new RegExp(TREE_CHILD_NAME_PATTERN);
export const isTreeChildName = (v: unknown): v is string => typeof v === 'string' && TREE_CHILD_NAME.test(v);

/**
 * A top-level module a blocked block imports (from the runner's `missing-dependency` record, so hostile text):
 * an ASCII identifier. The runner's record check and the schema hold it to this.
 */
export const MODULE_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,99}$';

/** A distribution name as PEP 508 allows it (`opencv-python`, `PyYAML`, `scikit-image`). */
export const DISTRIBUTION_PATTERN = '^[A-Za-z0-9]([A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$';

const MODULE_NAME = new RegExp(MODULE_NAME_PATTERN);
const DISTRIBUTION = new RegExp(DISTRIBUTION_PATTERN);
export const isModuleName = (v: unknown): v is string => typeof v === 'string' && MODULE_NAME.test(v);
export const isDistributionName = (v: unknown): v is string => typeof v === 'string' && DISTRIBUTION.test(v);

/** Citation keys: `<source><year><name>` cut, `-`, 5 hex digits of the id's SHA-256 (pipeline/catalog/citation.ts). */
export const CITE_KEY_PATTERN = '^[a-z0-9]{1,24}-[0-9a-f]{5}$';
