// Deterministic JSON: object keys sorted at every level, two-space indent, trailing newline. The same value always
// gives the same bytes, so two builds from the same inputs are byte-identical.

export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    // Object.create(null) + defineProperty: an upstream key like `__proto__` stays an ordinary data property.
    const out = Object.create(null) as Record<string, unknown>;
    for (const k of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined)
        Object.defineProperty(out, k, { value: sortKeys(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
