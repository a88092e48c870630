// Symbol patterns from the corpus config: globs over a block's name, qualified name, dotted path or id.
// `*` matches any run of characters, `?` one character; everything else is literal.

const cache = new Map<string, RegExp>();

function toRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    re = new RegExp(`^${body}$`);
    cache.set(pattern, re);
  }
  return re;
}

/** Whether any pattern matches a block's name, qualified name, dotted path or id. */
export function matchesBlock(
  patterns: string[],
  b: { name: string; qualname: string; module: string; id: string },
): boolean {
  return matchesAny(patterns, [b.name, b.qualname, `${b.module}.${b.qualname}`, b.id]);
}

export function matchesAny(patterns: string[], candidates: string[]): boolean {
  return patterns.some((p) => {
    const re = toRegExp(p);
    return candidates.some((c) => re.test(c));
  });
}
