// The compiled op libraries `nnblocks extract` links where the extracted code's own loader looks (op-libraries.ts):
// beside a standalone module that loads one, at the library's upstream place in a package; a link of an earlier
// extraction is replaced, a file of the user's is kept with a warning. The real libraries, end to end (RoIAlign and
// the detectors replayed after extract), are test/build/default-snippets.test.ts's.
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkBesideModules, linkInPackage, loadsLibrary } from '../../pipeline/assemble/op-libraries.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

// torchvision's loader, as extraction inlines it (torchvision/extension.py `_load_library`).
const LOADER =
  'def _load_library(lib_name):\n    lib_path = _get_extension_path(lib_name)\n    torch.ops.load_library(lib_path)\n';

/** An installed distribution with two op libraries: `<root>/vision/_C_stable.so` and `<root>/vision/_ext.so`. */
function installed(): string[] {
  const root = writeTree({ 'vision/_C_stable.so': 'ELF', 'vision/_ext.so': 'ELF' });
  return [join(root, 'vision', '_C_stable.so'), join(root, 'vision', '_ext.so')];
}

describe('op libraries of an extraction', () => {
  it('knows a module that loads a library from one that only calls ops', () => {
    expect(loadsLibrary(LOADER)).toBe(true);
    expect(loadsLibrary('return torch.ops.torchvision.nms(boxes, scores, 0.5)\n')).toBe(false);
  });

  it('links every library beside each standalone module that loads one, once per folder', () => {
    const libs = installed();
    const out = tempDir('nnb-ops-');
    const modules = [
      { file: join(out, 'blocks', 'a__RoIAlign.py'), code: LOADER },
      { file: join(out, 'blocks', 'b__Nms.py'), code: LOADER },
      { file: join(out, 'blocks', 'c__Linear.py'), code: 'import torch\n' },
    ];
    const { links, diagnostics } = linkBesideModules(modules, libs);
    expect(diagnostics).toEqual([]);
    const beside = [join(out, 'blocks', '_C_stable.so'), join(out, 'blocks', '_ext.so')];
    expect(links.get(modules[0].file)).toEqual(beside);
    expect(links.get(modules[1].file)).toEqual(beside);
    expect(links.has(modules[2].file)).toBe(false); // it loads nothing: nothing is linked for it
    expect(beside.map((l) => readlinkSync(l))).toEqual(libs);
  });

  it('replaces its own earlier links and keeps a file that is not one, saying so', () => {
    const [lib, ext] = installed();
    const out = writeTree({ 'blocks/_C_stable.so': 'the user’s own build' });
    const again = installed();
    const first = linkBesideModules([{ file: join(out, 'blocks', 'm.py'), code: LOADER }], again);
    expect(first.diagnostics.map((d) => d.code)).toEqual(['op-library-not-linked']);
    expect(first.diagnostics[0].message).toContain('is not a link nnblocks made');
    expect(lstatSync(join(out, 'blocks', '_C_stable.so')).isSymbolicLink()).toBe(false);
    expect(first.links.get(join(out, 'blocks', 'm.py'))).toEqual([join(out, 'blocks', '_ext.so')]);
    // An earlier extraction's link is replaced by this one's.
    expect(readlinkSync(join(out, 'blocks', '_ext.so'))).toBe(again[1]);
    linkBesideModules([{ file: join(out, 'blocks', 'm.py'), code: LOADER }], [lib, ext]);
    expect(readlinkSync(join(out, 'blocks', '_ext.so'))).toBe(ext);
  });

  it("puts a package's libraries at their upstream place, for the packages that load one", () => {
    const libs = installed();
    const pkg = tempDir('nnb-ops-pkg-');
    const { links, diagnostics } = linkInPackage(
      pkg,
      [
        { path: 'vision/extension.py', code: LOADER },
        { path: 'vision/ops/roi_align.py', code: 'from ..extension import _load_library\n' },
        { path: 'other/layers.py', code: 'import torch\n' },
      ],
      [...libs, join(tempDir(), 'other', '_C.so')],
    );
    expect(diagnostics).toEqual([]);
    expect(links.get('vision')).toEqual([join(pkg, 'vision', '_C_stable.so'), join(pkg, 'vision', '_ext.so')]);
    expect(links.has('other')).toBe(false); // no module of `other` loads a library
    expect(readlinkSync(join(pkg, 'vision', '_C_stable.so'))).toBe(libs[0]);
  });
});
