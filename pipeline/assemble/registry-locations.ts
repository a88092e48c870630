// Registries that fill themselves by importing their package's modules by name: OpenMMLab's
// `MODELS = Registry('model', parent=MMENGINE_MODELS, locations=['mmdet.models'])` imports `mmdet.models` the first
// time a block builds a submodule through it (`MODELS.build(dict(type='SSDAnchorGenerator', ...))`), only so that
// the package's classes register. An emitted module holds, registered, the classes the block needs, but the
// package is not there: without the repository (and in validation, where the block's own package is refused) the
// import fails and the block with it (179 blocks of the paper's corpus: mmpretrain 75, mmdetection 48,
// mmsegmentation 21, mmpose 16, mmocr 13). So the emitted module ends by letting those names lead to itself, and
// only where the package cannot be imported: with the package installed, its own modules register as upstream.
import type { IndexedModule } from '../index/types.ts';
import type { Closure } from '../resolve/closure-record.ts';

/** `locations=['a.b', "a.c"]` in a statement's text: the list's string literals. */
const LOCATIONS = /\blocations\s*=\s*[[(]([^\])]*)[\])]/g;
const STRING = /(['"])([A-Za-z_][\w.]*)\1/g;

/**
 * The module names that emitted statements' registries import by name, each within the statement's own top-level
 * package (a registry locates its own package's modules; another package's name is left alone), sorted.
 */
export function registryLocations(c: Closure, readText: (mod: IndexedModule) => Buffer): string[] {
  const out = new Set<string>();
  for (const st of c.stmts.values()) {
    const top = st.mod.module?.split('.')[0];
    if (!top || st.headerImport) continue;
    const facts = st.mod.facts.statements[st.stmt];
    // Looked for in the bytes first: every statement of every closure comes here, and few name `locations`.
    const bytes = readText(st.mod).subarray(facts.span.startByte, facts.span.endByte);
    if (!bytes.includes('locations')) continue;
    const text = bytes.toString('utf8');
    for (const m of text.matchAll(LOCATIONS))
      for (const s of m[1].matchAll(STRING)) if (s[2].split('.')[0] === top) out.add(s[2]);
  }
  return [...out].sort();
}

/** The statement the emitted module ends with for those names, or null when there are none. */
export function locationAliases(names: string[]): string | null {
  if (names.length === 0) return null;
  return [
    '# nnblocks: the registries above import these modules of their package by name when first used (`locations=`),',
    '# only to register their classes; what this block needs of them is defined here. Where the package itself',
    '# cannot be imported, the names lead to this module.',
    'def _nnb_alias_locations(names):',
    '    import importlib.util, sys',
    '    here = sys.modules.get(__name__)',
    '    for name in names:',
    '        try:',
    "            if here is None or importlib.util.find_spec(name.split('.')[0]) is not None:",
    '                continue',
    '        except (ImportError, ValueError):',
    '            pass',
    '        sys.modules.setdefault(name, here)',
    '',
    '',
    `_nnb_alias_locations(${JSON.stringify(names)})`,
  ].join('\n');
}
