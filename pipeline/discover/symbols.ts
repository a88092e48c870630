// Symbol patterns from the corpus config: globs over a block's name, qualified name, dotted path or id.
// `*` matches any run of characters, `?` one character; everything else is literal.

const cache = new Map<string, RegExp>();

function toRegExp(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    re = new RegExp(`^${body}$`);
    cache.set(pattern, re);
  }
  return re;
}

export function matchesAny(patterns: string[], candidates: string[]): boolean {
  return patterns.some((p) => {
    const re = toRegExp(p);
    return candidates.some((c) => re.test(c));
  });
}
