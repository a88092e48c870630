// Path globs for include/exclude: compiled to anchored regular expressions over posix paths relative to a root.
//
// Syntax: `*` any run inside one segment, `?` one character, `**` zero or more whole segments, `{a,b}`
// alternatives, `[abc]` character classes. A pattern also matches everything below a folder it names, so
// `torchvision/models` behaves like `torchvision/models/**` (the paper's corpus lists folders that way).

export interface GlobProblem {
  message: string;
  fix: string;
}

/** Why a pattern can never match a path relative to a source root, or null when it is usable. */
export function globProblem(pattern: string): GlobProblem | null {
  if (pattern.trim() === '')
    return { message: 'is empty', fix: 'write a glob such as "pkg/**/*.py", or remove the entry' };
  if (pattern.includes('\\'))
    return {
      message: `uses a backslash ("${pattern}")`,
      fix: 'write paths with forward slashes, e.g. "pkg/models/*.py"',
    };
  if (pattern.startsWith('/'))
    return {
      message: `is absolute ("${pattern}"); globs are relative to the source root`,
      fix: `drop the leading slash: "${pattern.replace(/^\/+/, '')}"`,
    };
  if (pattern.split('/').some((s) => s === '..' || s === '.'))
    return {
      message: `has a "." or ".." segment ("${pattern}") and can never match a path inside the source root`,
      fix: 'write the path relative to the source root without "." or ".." segments',
    };
  let braces = 0;
  let brackets = 0;
  for (const ch of pattern) {
    if (ch === '{') braces++;
    if (ch === '}') braces--;
    if (ch === '[') brackets++;
    if (ch === ']') brackets--;
    if (braces < 0 || brackets < 0) break;
  }
  if (braces !== 0)
    return {
      message: `has unbalanced braces ("${pattern}")`,
      fix: 'close every "{" with "}", e.g. "pkg/{models,ops}/**"',
    };
  if (brackets !== 0)
    return { message: `has unbalanced brackets ("${pattern}")`, fix: 'close every "[" with "]", or drop the brackets' };
  return null;
}

function segmentToRegex(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      const body = pattern
        .slice(i + 1, end)
        .replace(/^!/, '^')
        .replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = end;
    } else if (ch === '{') {
      // Find the matching brace, split the alternatives at depth 0 and compile each recursively.
      let depth = 0;
      let end = i;
      for (; end < pattern.length; end++) {
        if (pattern[end] === '{') depth++;
        else if (pattern[end] === '}' && --depth === 0) break;
      }
      const alts: string[] = [];
      let start = i + 1;
      depth = 0;
      for (let j = i + 1; j < end; j++) {
        if (pattern[j] === '{') depth++;
        else if (pattern[j] === '}') depth--;
        else if (pattern[j] === ',' && depth === 0) {
          alts.push(pattern.slice(start, j));
          start = j + 1;
        }
      }
      alts.push(pattern.slice(start, end));
      out += `(?:${alts.map(globBody).join('|')})`;
      i = end;
    } else out += ch.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return out;
}

function globBody(pattern: string): string {
  const segments = pattern.split('/');
  let out = '';
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (seg === '**') out += last ? '.*' : '(?:[^/]+/)*';
    else out += segmentToRegex(seg) + (last ? '' : '/');
  });
  return out;
}

const cache = new Map<string, RegExp>();

/** The anchored regular expression for one glob; it also matches paths below a folder the glob names. */
export function globToRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = globBody(pattern.replace(/\/+$/, ''));
    re = new RegExp(`^${body}(?:/.*)?$`);
    cache.set(pattern, re);
  }
  return re;
}

export function matchGlob(pattern: string, path: string): boolean {
  return globToRegExp(pattern).test(path);
}

/** Include/exclude filter: a path is kept when some include matches and no exclude does. */
export function makePathFilter(include: string[], exclude: string[]): (path: string) => boolean {
  const inc = include.map(globToRegExp);
  const exc = exclude.map(globToRegExp);
  return (path) => inc.some((r) => r.test(path)) && !exc.some((r) => r.test(path));
}

/** The literal folder prefix of a glob (`pkg/models/**\/*.py` → `pkg/models`); '' when it starts with a wildcard. */
export function literalPrefix(pattern: string): string {
  const segments = pattern.replace(/\/+$/, '').split('/');
  const lit: string[] = [];
  for (const s of segments.slice(0, -1)) {
    if (/[*?[{]/.test(s)) break;
    lit.push(s);
  }
  // A pattern with no wildcard at all names a file or folder itself.
  if (!/[*?[{]/.test(pattern) && lit.length === segments.length - 1) lit.push(segments[segments.length - 1]);
  return lit.join('/');
}

/** Whether any path below folder `dir` could match one of the includes (lets walks prune whole subtrees). */
export function folderMayMatch(includes: string[], dir: string): boolean {
  return includes.some((p) => {
    const prefix = literalPrefix(p);
    return prefix === '' || prefix === dir || prefix.startsWith(dir + '/') || dir.startsWith(prefix + '/');
  });
}
