// Credentials in source URLs: `https://user:token@host/r` is stripped to `https://host/r` before anything is stored
// or printed (snapshots, state.json, the cached repo's .git/config, provenance, citations, sources.json); the full URL
// lives only in memory, for the git calls of this run. See docs/sources.md ("Hostile sources").
import type { Diagnostic } from '../contract/diagnostics.ts';

export interface StrippedUrl {
  /** The URL without its credentials: safe to store, publish and print. */
  url: string;
  /** True when something was removed. */
  stripped: boolean;
}

// `scheme://authority...`: the authority ends at the first `/`, `?` or `#`; userinfo is everything before its last
// `@` (the last one: a password with an unescaped `@` must go whole, not leave its tail behind).
const SCHEME_URL = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is;

// ssh names a login, not a secret (`ssh://git@github.com/o/r`): its user is kept, a password never is.
const KEEPS_USER = new Set(['ssh://', 'git+ssh://', 'ssh+git://']);

/** `https://user:token@host/r` → `https://host/r`; `ssh://git:pw@host/r` → `ssh://git@host/r`; scp-like kept. */
export function stripCredentials(url: string): StrippedUrl {
  const m = SCHEME_URL.exec(url);
  if (!m) return { url, stripped: false }; // `git@host:o/r` (scp-like: a login, no password) or a plain path
  const [, scheme, authority, rest] = m;
  const at = authority.lastIndexOf('@');
  if (at < 0) return { url, stripped: false };
  const userinfo = authority.slice(0, at);
  const host = authority.slice(at + 1);
  const keep = KEEPS_USER.has(scheme.toLowerCase()) ? `${userinfo.split(':')[0]}@` : '';
  const clean = `${scheme}${keep}${host}${rest}`;
  return { url: clean, stripped: clean !== url };
}

/** Removes credentials from every URL inside free text (git's error messages quote the URL they were given). */
export function redactCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#'"`]*)@/gi, (_, scheme: string, userinfo: string) =>
    KEEPS_USER.has(scheme.toLowerCase()) ? `${scheme}${userinfo.split(':')[0]}@` : scheme,
  );
}

/** The warning for a configured URL (or a checkout's origin) that carried credentials. */
export function credentialsDiagnostic(source: string, what: string): Diagnostic {
  return {
    code: 'url-credentials',
    severity: 'warning',
    stage: 'sources',
    source,
    message: `${what} carries credentials; they were removed from everything nnblocks stores, publishes or prints`,
    hint: 'keep secrets out of URLs: use ~/.netrc (git reads it over https) or an ssh key/agent; a URL token is used for this run’s fetches only',
  };
}
