// The compiled op libraries of the corpus's installed distributions (docs/validate.md, "Compiled ops"): a
// PyTorch extension's `<package>/_C*.so` (torchvision) or `<package>/_ext*.so` (mmcv), which register the ops the
// assembled Python calls through `torch.ops`. Validation loads them as part of the runtime; their Python stays
// refused. Only installed distributions (`python` sources): a git checkout holds sources, not built libraries.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { IndexedModule } from '../index/types.ts';
import type { SourceSnapshot } from '../sources/types.ts';

/**
 * `_C.so`, `_C.cpython-311-x86_64-linux-gnu.so`, `_ext.abi3.so`, and torchvision 0.26+'s `_C_stable.so` (built
 * against torch's stable ABI); not `image_stable.so` (image decoding, not ops a block calls).
 */
const OP_LIBRARY = /^(_C|_ext)(_stable)?(\.[\w-]+)*\.so$/;

export function nativeLibraries(snapshots: SourceSnapshot[], modules: IndexedModule[]): string[] {
  const out: string[] = [];
  for (const snap of snapshots) {
    if (snap.kind !== 'python' || snap.status === 'failed' || !snap.importRoot) continue;
    const packages = new Set(
      modules.filter((m) => m.sourceId === snap.id && m.module).map((m) => m.module!.split('.')[0]),
    );
    for (const pkg of [...packages].sort()) {
      let names: string[];
      try {
        names = readdirSync(join(snap.importRoot, pkg));
      } catch {
        continue;
      }
      for (const name of names.sort()) if (OP_LIBRARY.test(name)) out.push(join(snap.importRoot, pkg, name));
    }
  }
  return out;
}
