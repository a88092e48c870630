// Companion packages (docs/validate.md, "Stages"): installed libraries a worker imports once, before any fork,
// so that no block's child imports them again. Two kinds:
// - always, for every worker, where the environment holds them (COMPANIONS);
// - the heavy scientific libraries (LIBRARIES), only for the workers of an import root whose blocks' children import
//   them, and only those modules (run/library-imports.ts reads them off the index): fidelity imports the original's
//   module in the block's child, and yolov7's `models/common.py` pulls in `utils/plots.py`, which imports seaborn
//   (1.2 s and 100 MB), pandas and scipy. On the paper corpus those imports were two fifths of fidelity's time. A
//   worker of a source whose blocks import none of them starts no slower and holds no more.
// Only installed libraries come here, never a source's own code: a checkout's package is imported only by a block's
// contained child. The list is read off the index, so it is the same on every run; a preloaded module changes how
// long a block takes, never its record (the Blocker still takes a refused package out of sys.modules while a block
// runs).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** An import a worker makes before any block: `package` is the module imported (the runner's `preload` entry). */
export interface Preloaded {
  importRoot: string;
  package: string;
}

/**
 * Imported by every worker, where a site folder of the environment holds them (their top-level package; `module` is
 * what is imported):
 * - torchvision (the runtime's): detr's, dino's, yolo's `torchvision.ops`, about a second each on torch 2.x that
 *   each block's child would pay again;
 * - matplotlib's font manager (a requirement of most research repositories: yolov5/yolov7 import it with their
 *   `utils.plots`): its first import lists the system's fonts by running `fc-list` and caches the list. Inside a
 *   block's contained child that process is a sandbox violation, and every child starts without the cache, so every
 *   block importing matplotlib failed (102 of 164 on six detection repositories). Imported in the worker, before any
 *   containment, the font list is made once and every child inherits it. Only these fixed names come here: a PyPI
 *   name is its project's, whatever repository asked for it.
 */
const COMPANIONS: { package: string; module: string }[] = [
  { package: 'torchvision', module: 'torchvision' },
  { package: 'matplotlib', module: 'matplotlib.font_manager' },
];

/**
 * Libraries whose import costs a block's child a noticeable share of its time (seaborn 1.2 s, scipy.stats 0.45 s,
 * pandas 0.2 s, matplotlib.pyplot, cv2 0.25 s with torch already imported), preloaded for the workers of a source
 * that imports them at module level. transformers too: PyG's `torch_geometric.llm` imports its tokenizer base, half
 * a second of every PyG block's fidelity import (838 ms, 336 ms with it preloaded), and a transformers model's
 * original imports `modeling_utils` and the utilities under it, most of its 0.9 s.
 */
const LIBRARIES = new Set([
  'seaborn',
  'pandas',
  'scipy',
  'matplotlib',
  'sklearn',
  'cv2',
  'huggingface_hub',
  'transformers',
]);

/** Whether dotted module `name` belongs to one of the heavy libraries (LIBRARIES). */
export function isLibrary(name: string): boolean {
  return LIBRARIES.has(name.split('.')[0]);
}

/**
 * What a worker of `roots` imports before any block besides its originals: the companions the environment's `sites`
 * hold, then the library modules `imports` lists for those roots (deduplicated), each from the site holding its
 * package. A module the sites don't hold is left out (a library the environment did not install), and so is one
 * whose package the worker's own import root `shadow` holds when that root is no site: the worker's originals import
 * that root's copy (a checkout of transformers), which an installed one preloaded would stand in for.
 */
export function companionsFor(sites: readonly string[], imports: readonly string[], shadow = ''): Preloaded[] {
  const holds = (r: string, pkg: string) => existsSync(join(r, pkg, '__init__.py')) || existsSync(join(r, `${pkg}.py`));
  const shadowed = (pkg: string) => shadow !== '' && !sites.includes(shadow) && holds(shadow, pkg);
  const siteOf = (pkg: string) => (shadowed(pkg) ? undefined : sites.find((r) => holds(r, pkg)));
  const out: Preloaded[] = [];
  for (const c of COMPANIONS) {
    const root = siteOf(c.package);
    if (root) out.push({ importRoot: root, package: c.module });
  }
  for (const module of [...new Set(imports)].sort()) {
    if (out.some((p) => p.package === module)) continue;
    const root = siteOf(module.split('.')[0]);
    if (root) out.push({ importRoot: root, package: module });
  }
  return out;
}
