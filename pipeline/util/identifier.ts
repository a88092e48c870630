// Python identifiers as PEP 3131 defines them: Unicode XID_Start/XID_Continue, compared after NFKC normalisation.
// One definition for every stage that names things: file → module names (sources, index), names in source (parse),
// emitted names (assemble). See docs/index.md ("Which files are indexed").
//   class Ｂlock: ...     # binds `Block`: Python NFKC-normalises identifiers in source
//   import ünï_cödé       # looks for the file `ünï_cödé.py` exactly as written (NFKC form) on disk

const IDENT = /^[\p{XID_Start}_][\p{XID_Continue}]*$/u;
// C0 and C1 controls, DEL, and the line/paragraph separators some tools treat as line breaks.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/** The name Python binds for identifier text as written: NFKC for non-ASCII text, the text itself otherwise. */
export function pyName(raw: string): string {
  for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) >= 0x80) return raw.normalize('NFKC');
  return raw;
}

/** Whether `s` is a Python identifier (keywords included: `importlib` can still import `class.py`). */
export function isIdentifier(s: string): boolean {
  return IDENT.test(s);
}

/** The first control character in `s` as `U+000A`, or null. */
export function controlChar(s: string): string | null {
  const m = CONTROL.exec(s);
  return m ? `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : null;
}

/**
 * Why `part` (a file name without `.py`, or a folder name) can't be one dotted part of a module name, or null
 * when it can. Python looks files up by the NFKC form of the name in the import statement, so a name that
 * is not already in that form is never found (`ﬁx.py`: `import ﬁx` looks for `fix.py`).
 */
export function moduleNameProblem(part: string): string | null {
  const ctrl = controlChar(part);
  if (ctrl) return `contains a control character (${ctrl})`;
  if (part === '') return 'is empty';
  if (part.includes('.')) return "contains '.', which Python reads as a package separator";
  if (/^[0-9]/.test(part)) return 'starts with a digit';
  if (!isIdentifier(part)) {
    const bad = [...part].find((ch, i) => !isIdentifier(i === 0 ? ch : `_${ch}`));
    return `is not a Python identifier (${bad === '-' ? "'-'" : JSON.stringify(bad ?? part)})`;
  }
  const nfkc = part.normalize('NFKC');
  if (nfkc !== part) return `is not in NFKC form: Python would look for '${nfkc}'`;
  return null;
}
