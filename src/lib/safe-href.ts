// The one test of what may become an href: an `http(s)` URL. A JSON file's odd value (`javascript:`) never links,
// and neither does a local source's `local:<id>@<commit>/<path>` permalink, which names no place a reader can open.

/** An `http(s)` URL to link to, or null. */
export function safeHref(v: unknown): string | null {
  return typeof v === 'string' && /^https?:\/\/[^\s"'<>]+$/.test(v) ? v : null;
}
