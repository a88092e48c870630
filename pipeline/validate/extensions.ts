// Compiled extensions a corpus builds itself: the module names its setup.py files declare with
// `CUDAExtension(...)`, `CppExtension(...)`, `Extension(name=...)`. A block that imports one (Deformable DETR's
// top-level `MultiScaleDeformableAttention`) fails `native-extension`, not `missing-dependency`: no `pip install`
// brings it. The names are read as text, with a regular expression: setup.py is upstream code and never runs.
// The `_C`/`_ext`-style names (`detectron2._C`, `mmcv._ext`) need no declaration: classify.py knows them by shape.
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A setup.py larger than this is not read (mmcv's, the largest we know, is ~20 kB). */
const MAX_SETUP_BYTES = 1 << 20;
/** The extension classes of setuptools and torch.utils.cpp_extension (and the vendors' copies of them). */
const EXTENSION_CLASS = String.raw`(?:CUDA|Cpp|MLU|Npu|MUSA|Pybind11|SYCL|Hip)?Extension`;
/** A dotted module name as an extension's `name`: ASCII identifiers (the runner compares them to ImportError.name). */
const MODULE = String.raw`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*`;
const STRING = String.raw`(?:'(${MODULE})'|"(${MODULE})")`;

/**
 * Extension module names one setup.py declares, sorted. Understands a call to an extension class or to an alias
 * of one (`extension = CUDAExtension` ... `extension(...)`), whose name is the first positional string or a
 * `name=` keyword holding a string or a variable assigned a string in the same file (mmcv: `ext_name = 'mmcv._ext'`).
 *
 * ```python
 * CUDAExtension("MultiScaleDeformableAttention", sources)   # -> MultiScaleDeformableAttention
 * extension(name=ext_name, sources=...)                       # -> whatever `ext_name = '...'` assigned
 * ```
 */
export function declaredExtensions(setupPy: string): string[] {
  const callees = new Set<string>();
  for (const m of setupPy.matchAll(
    new RegExp(String.raw`(?:^|\n)\s*([A-Za-z_]\w*)\s*=\s*(?:\w+\.)*${EXTENSION_CLASS}\s*(?:\n|#|$)`, 'g'),
  ))
    callees.add(m[1]);
  const strings = new Map<string, string>();
  for (const m of setupPy.matchAll(new RegExp(String.raw`(?:^|\n)\s*([A-Za-z_]\w*)\s*=\s*${STRING}`, 'g')))
    if (!strings.has(m[1])) strings.set(m[1], m[2] ?? m[3]);
  const callee = [EXTENSION_CLASS, ...[...callees].map((c) => c.replace(/\W/g, ''))].join('|');
  const names = new Set<string>();
  for (const m of setupPy.matchAll(new RegExp(String.raw`(?<![\w])(?:\w+\.)*(?:${callee})\s*\(`, 'g'))) {
    const args = callArguments(setupPy, m.index + m[0].length);
    const positional = new RegExp(String.raw`^\s*(?:${STRING}|([A-Za-z_]\w*))\s*(?:,|$)`).exec(args);
    const keyword = new RegExp(String.raw`(?:^|[,\s])name\s*=\s*(?:${STRING}|([A-Za-z_]\w*))`).exec(args);
    const hit = positional ?? keyword;
    const name = hit ? (hit[1] ?? hit[2] ?? strings.get(hit[3])) : undefined;
    if (name) names.add(name);
  }
  return [...names].sort();
}

/** The text between a call's parentheses (from `start`, just after the `(`): nesting and quotes kept apart. */
function callArguments(text: string, start: number): string {
  let depth = 1;
  let quote = '';
  const end = Math.min(text.length, start + 5000);
  for (let i = start; i < end; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (--depth === 0) return text.slice(start, i);
    } else if (c === '#') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? end : nl;
    }
  }
  return text.slice(start, end);
}

/**
 * Extension names declared by every setup.py of the given sources: the one at each source's root (the sources
 * stage checks it out with the project metadata) and any among its indexed files (`models/ops/setup.py`).
 */
export function corpusExtensions(sources: { root: string; files: { path: string }[] }[]): string[] {
  const names = new Set<string>();
  for (const s of sources) {
    if (!s.root) continue;
    const paths = new Set(['setup.py', ...s.files.map((f) => f.path).filter((p) => /(^|\/)setup\.py$/.test(p))]);
    for (const rel of paths) {
      const file = join(s.root, rel);
      // A regular file only (a symlink could point anywhere on this machine), and a bounded one.
      if (!existsSync(file)) continue;
      const st = lstatSync(file);
      if (!st.isFile() || st.size > MAX_SETUP_BYTES) continue;
      for (const n of declaredExtensions(readFileSync(file, 'utf8'))) names.add(n);
    }
  }
  return [...names].sort();
}
