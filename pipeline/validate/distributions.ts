// Which distribution to install for a top-level module a blocked block could not import (`missing-dependency`):
// `import cv2` needs `opencv-python`. A module and its distribution are often named alike, not always; the table
// holds the ones that are not (and the common ones that are, so the table documents what we checked). A module the
// table does not know maps to itself, marked `known: false`: the name is a guess, shown as one.
// docs/validate.md ("Blocked blocks") renders this table; test/validate/distributions.test.ts keeps them in step.

/** A distribution that would unblock a block, and the top-level module that asked for it. */
export interface Requirement {
  /** The PyPI distribution to install, e.g. `opencv-python`. */
  distribution: string;
  /** The top-level module the block imports, e.g. `cv2`. */
  module: string;
  /** false when the table did not know the module and the distribution is assumed to share its name. */
  known: boolean;
}

/** Top-level module → PyPI distribution, sorted by module. */
export const MODULE_DISTRIBUTIONS: ReadonlyArray<readonly [module: string, distribution: string]> = [
  ['PIL', 'Pillow'],
  ['albumentations', 'albumentations'],
  ['av', 'av'],
  ['bs4', 'beautifulsoup4'],
  ['cv2', 'opencv-python'],
  ['dateutil', 'python-dateutil'],
  ['einops', 'einops'],
  ['fairscale', 'fairscale'],
  ['fvcore', 'fvcore'],
  ['git', 'GitPython'],
  ['h5py', 'h5py'],
  ['huggingface_hub', 'huggingface-hub'],
  ['iopath', 'iopath'],
  ['lvis', 'lvis'],
  ['matplotlib', 'matplotlib'],
  ['mmcv', 'mmcv'],
  ['mmdet', 'mmdet'],
  ['mmengine', 'mmengine'],
  ['mmseg', 'mmsegmentation'],
  ['numpy', 'numpy'],
  ['omegaconf', 'omegaconf'],
  ['onnx', 'onnx'],
  ['onnxruntime', 'onnxruntime'],
  ['packaging', 'packaging'],
  ['pandas', 'pandas'],
  ['psutil', 'psutil'],
  ['pycocotools', 'pycocotools'],
  ['requests', 'requests'],
  ['rich', 'rich'],
  ['safetensors', 'safetensors'],
  ['scipy', 'scipy'],
  ['seaborn', 'seaborn'],
  ['shapely', 'shapely'],
  ['skimage', 'scikit-image'],
  ['sklearn', 'scikit-learn'],
  ['submitit', 'submitit'],
  ['tensorboard', 'tensorboard'],
  ['termcolor', 'termcolor'],
  ['thop', 'thop'],
  ['timm', 'timm'],
  ['tokenizers', 'tokenizers'],
  ['torch_geometric', 'torch-geometric'],
  ['torchaudio', 'torchaudio'],
  ['torchvision', 'torchvision'],
  ['tqdm', 'tqdm'],
  ['transformers', 'transformers'],
  ['ultralytics', 'ultralytics'],
  ['wandb', 'wandb'],
  ['yaml', 'PyYAML'],
];

const TABLE: ReadonlyMap<string, string> = new Map(MODULE_DISTRIBUTIONS.map(([m, d]) => [m, d]));

/** A name as PEP 503 compares them, with `_` for the separators a module name cannot hold: `Foo-Bar` → `foo_bar`. */
const nameKey = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '_');

/**
 * Distributions known beyond the table: those the corpus declares or the environment installed or tried to
 * (`segment-anything` for `import segment_anything`), by nameKey. A module named like one of them is known.
 */
export function knownDistributions(names: Iterable<string>): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const n of names) if (!out.has(nameKey(n))) out.set(nameKey(n), n);
  return out;
}

/**
 * The distribution for a top-level module (`cv2.dnn` counts as `cv2`): the table's, else one of `known` named like
 * the module; else the module's own name with `known: false` — a guess that is never offered as an install.
 */
export function requirementOf(module: string, known: ReadonlyMap<string, string> = new Map()): Requirement {
  const top = module.split('.')[0];
  const distribution = TABLE.get(top) ?? known.get(nameKey(top));
  return distribution ? { distribution, module: top, known: true } : { distribution: top, module: top, known: false };
}

/**
 * The requirements a `missing-dependency` record names: its detail is the runner's comma-separated top-level
 * modules (record-check.ts holds it to identifiers), one requirement each, sorted by distribution (ignoring case),
 * without repeats.
 */
export function requirementsOf(detail: string | null, known: ReadonlyMap<string, string> = new Map()): Requirement[] {
  const seen = new Map<string, Requirement>();
  for (const name of (detail ?? '').split(',')) {
    const m = name.trim();
    if (!m) continue;
    const r = requirementOf(m, known);
    if (!seen.has(r.distribution)) seen.set(r.distribution, r);
  }
  const key = (r: Requirement) => r.distribution.toLowerCase();
  return [...seen.values()].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** The table as a markdown table, for docs/validate.md (test/validate/distributions.test.ts keeps it in sync). */
export function distributionsMarkdown(): string {
  const rows = MODULE_DISTRIBUTIONS.map(([m, d]) => `| \`${m}\` | \`${d}\` |`);
  return ['| module | distribution |', '| --- | --- |', ...rows].join('\n');
}
