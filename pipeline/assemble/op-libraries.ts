// The compiled op libraries `nnblocks extract` points to (docs/resolve.md, "Compiled ops"): links to the installed
// `torchvision/_C_stable.so` (validate/native-libraries.ts finds them) put where the extracted code's own loader looks.
// torchvision's loader, which extraction inlines, finds its library beside the file that defines it:
//     lib_dir = os.path.dirname(__file__)   # torchvision/_internally_replaced_utils.py `_get_extension_path`
// so a standalone module gets the link beside itself (as validation does in its inbox), and a package the link at
// the library's upstream place (`blocks/torchvision/_C_stable.so`), since the package keeps upstream module paths.
// Without them `roi_align` and every detector fail with "Couldn't load custom C++ ops".
import { lstatSync, mkdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';

/**
 * Whether emitted code loads a compiled library itself: `torch.ops.load_library(lib_path)`, the call torchvision's
 * inlined `_load_library` makes (torch's own `torch.ops.load_library`, found by its name).
 */
export const loadsLibrary = (code: string): boolean => /\bload_library\s*\(/.test(code);

/** `<import root>/torchvision/_C_stable.so` → `torchvision/_C_stable.so`: where it sits in its distribution. */
export const libraryPlace = (lib: string): string => `${basename(dirname(lib))}/${basename(lib)}`;

/**
 * Links `target` at `link`: a link an earlier extraction made there is replaced; anything else there is kept and
 * reported (the user's own file), and so is a link the system refuses.
 */
export function linkLibrary(target: string, link: string): Diagnostic | null {
  const problem = (message: string): Diagnostic => ({
    code: 'op-library-not-linked',
    severity: 'warning',
    stage: 'assemble',
    message,
    hint: `link it yourself (ln -s ${target} ${link}), or load it before the block: torch.ops.load_library(path)`,
  });
  try {
    const st = lstatSync(link, { throwIfNoEntry: false });
    if (st && !st.isSymbolicLink()) return problem(`${link} exists and is not a link nnblocks made`);
    if (st) unlinkSync(link);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link);
    return null;
  } catch (err) {
    return problem(`could not link the compiled op library ${target}: ${(err as Error).message}`);
  }
}

/**
 * Standalone modules: each module that loads a library gets a link to every library beside it (one per file name,
 * the first library of that name wins). Returns the links per module file, and what could not be linked.
 */
export function linkBesideModules(
  modules: { file: string; code: string }[],
  libraries: readonly string[],
): { links: Map<string, string[]>; diagnostics: Diagnostic[] } {
  const links = new Map<string, string[]>();
  const diagnostics: Diagnostic[] = [];
  const made = new Map<string, boolean>();
  const unique = [...new Map(libraries.map((lib) => [basename(lib), lib])).values()];
  for (const m of modules) {
    if (!loadsLibrary(m.code)) continue;
    const here: string[] = [];
    for (const lib of unique) {
      const link = join(dirname(m.file), basename(lib));
      if (!made.has(link)) {
        const bad = linkLibrary(lib, link);
        if (bad) diagnostics.push(bad);
        made.set(link, bad === null);
      }
      if (made.get(link)) here.push(link);
    }
    links.set(m.file, here);
  }
  return { links, diagnostics };
}

/**
 * A package: each library whose upstream package the extracted package holds a loading module of is linked at its
 * upstream place under `pkgDir` (`blocks/torchvision/_C_stable.so`). Returns the links per upstream top package.
 */
export function linkInPackage(
  pkgDir: string,
  modules: { path: string; code: string }[],
  libraries: readonly string[],
): { links: Map<string, string[]>; diagnostics: Diagnostic[] } {
  const loading = new Set(modules.filter((m) => loadsLibrary(m.code)).map((m) => m.path.split('/')[0]));
  const links = new Map<string, string[]>();
  const diagnostics: Diagnostic[] = [];
  for (const lib of libraries) {
    const place = libraryPlace(lib);
    const top = place.split('/')[0];
    if (!loading.has(top)) continue;
    const link = join(pkgDir, place);
    const bad = linkLibrary(lib, link);
    if (bad) diagnostics.push(bad);
    else links.set(top, [...(links.get(top) ?? []), link]);
  }
  return { links, diagnostics };
}
