// Finding and downloading a source distribution without pip: pip prepares an sdist's metadata by running its
// setup.py even for `pip download`, and a layer's pip runs with the network, so nnblocks reads the package indexes
// itself (PEP 503 simple pages over https or file://, find-links folders), picks the newest sdist the specifiers
// allow, checks its sha256, and hands the file to an offline sandbox that builds it (layer.ts). Data only: nothing
// downloaded is run here.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compareVersions, parseVersion, satisfies, SPEC_OPS, type SpecOp } from '../sources/requirements/pep440.ts';
import { normalizeName, parseRequirement } from '../sources/requirements/pep508.ts';
import type { PipConfiguration } from './pip.ts';

export interface IndexSources {
  /** Simple index base URLs (`https://pypi.org/simple`, `file:///opt/pypi/simple`), in pip's order. */
  indexes: string[];
  /** find-links folders or pages. */
  findLinks: string[];
}

/** What pip is configured to look in: `index-url` (PyPI by default), `extra-index-url`, `find-links`, `no-index`. */
export function indexSources(cfg: PipConfiguration): IndexSources {
  const setting = (key: string): string[] => {
    const env = cfg.env[`PIP_${key.toUpperCase().replace(/-/g, '_')}`];
    const fromFile = cfg.settings.filter(([k]) => k.endsWith(`.${key}`)).map(([, v]) => v);
    return (env !== undefined ? [env] : fromFile).flatMap((v) => v.split(/\s+/)).filter(Boolean);
  };
  const noIndex = ['1', 'true', 'yes', 'on'].includes((cfg.env.PIP_NO_INDEX ?? '').toLowerCase());
  const index = setting('index-url');
  return {
    indexes: noIndex ? [] : [...(index.length ? index : ['https://pypi.org/simple']), ...setting('extra-index-url')],
    findLinks: setting('find-links'),
  };
}

interface Link {
  url: string;
  filename: string;
  sha256?: string;
}

/** Anchors of a simple page (PEP 503): file name, absolute URL, sha256 fragment; yanked files left out. */
function pageLinks(html: string, base: string): Link[] {
  const out: Link[] = [];
  for (const m of html.matchAll(/<a\s([^>]*)>([^<]*)<\/a>/gi)) {
    const href = /href="([^"]+)"/i.exec(m[1])?.[1];
    if (!href || /data-yanked/i.test(m[1])) continue;
    const url = new URL(href.replace(/&amp;/g, '&'), base);
    const sha256 = /sha256=([0-9a-f]{64})/.exec(url.hash)?.[1];
    url.hash = '';
    out.push({ url: url.href, filename: decodeURIComponent(url.pathname.split('/').pop() ?? ''), sha256 });
  }
  return out;
}

async function readPage(url: string): Promise<string | null> {
  if (url.startsWith('file://')) {
    const path = fileURLToPath(url);
    const file = existsSync(join(path, 'index.html')) ? join(path, 'index.html') : path;
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
  }
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
    return res.ok ? await res.text() : null;
  } catch {
    return null;
  }
}

/** Links of one project on every configured source. */
async function projectLinks(name: string, src: IndexSources): Promise<Link[]> {
  const links: Link[] = [];
  for (const index of src.indexes) {
    const page = `${index.replace(/\/+$/, '')}/${name}/`;
    const html = await readPage(page);
    if (html) links.push(...pageLinks(html, page));
  }
  for (const fl of src.findLinks) {
    const path = fl.startsWith('file://') ? fileURLToPath(fl) : fl;
    if (path.startsWith('/') && existsSync(path)) {
      for (const f of readdirSync(path)) links.push({ url: pathToFileURL(join(path, f)).href, filename: f });
    } else if (/^https?:/.test(fl)) {
      const html = await readPage(fl);
      if (html) links.push(...pageLinks(html, fl));
    }
  }
  return links;
}

/** `iopath-0.1.10.tar.gz` of project `iopath` → `0.1.10`; null when the file is no sdist of that project. */
function sdistVersion(filename: string, name: string): string | null {
  const m = /^(.+)\.(tar\.gz|zip|tar\.bz2)$/.exec(filename);
  if (!m) return null;
  const dash = m[1].lastIndexOf('-');
  if (dash < 0 || normalizeName(m[1].slice(0, dash)) !== name) return null;
  const version = m[1].slice(dash + 1);
  return parseVersion(version) ? version : null;
}

/** The `op version` clauses of requirement strings (`iopath>=0.1.7,<0.1.11` → two clauses). */
function clauses(specs: string[]): [SpecOp, string][] {
  const out: [SpecOp, string][] = [];
  for (const s of specs) {
    const r = parseRequirement(s);
    if (typeof r === 'string' || !r.specifier) continue;
    for (const c of r.specifier.split(',')) {
      const op = SPEC_OPS.find((o) => c.startsWith(o));
      if (op) out.push([op, c.slice(op.length)]);
    }
  }
  return out;
}

/**
 * The newest sdist of `name` (normalised) that every spec allows, downloaded into `dir` and checked against the
 * index's sha256; null when there is none. Pre-releases only when nothing else fits.
 */
export async function fetchSdist(
  name: string,
  specs: string[],
  src: IndexSources,
  dir: string,
): Promise<string | null> {
  const wanted = clauses(specs);
  const candidates = (await projectLinks(name, src))
    .map((l) => ({ ...l, version: sdistVersion(l.filename, name) }))
    .filter((l): l is Link & { version: string } => l.version !== null)
    .filter((l) => wanted.every(([op, v]) => satisfies(l.version, op, v) === true))
    .sort((a, b) => compareVersions(parseVersion(b.version)!, parseVersion(a.version)!));
  const final = candidates.filter((c) => !parseVersion(c.version)!.pre && !parseVersion(c.version)!.dev);
  const pick = (final.length ? final : candidates)[0];
  if (!pick) return null;
  let data: Buffer;
  if (pick.url.startsWith('file://')) data = readFileSync(fileURLToPath(pick.url));
  else {
    const res = await fetch(pick.url, { signal: AbortSignal.timeout(300_000) });
    if (!res.ok) return null;
    data = Buffer.from(await res.arrayBuffer());
  }
  if (pick.sha256 && createHash('sha256').update(data).digest('hex') !== pick.sha256) return null;
  const file = join(dir, pick.filename.replace(/[^A-Za-z0-9._+-]/g, '_'));
  writeFileSync(file, data, { mode: 0o644 });
  return file;
}
