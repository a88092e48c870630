// python sources: an installed distribution located through the discovered interpreter's importlib.metadata —
// version, where its top-level packages live, license metadata and the upstream repository and tag.
import { execFileSync } from 'node:child_process';
import type { Diagnostic } from '../contract/diagnostics.ts';

// The probe reads metadata and the file system; it imports nothing that belongs to the distribution. Locating a
// package with `importlib.util.find_spec("a.b")` imports `a` (its `__init__.py` runs, on the host, unsandboxed), so
// a top-level entry is looked up as a path under the folder that holds the metadata. Entries that are not dotted
// identifiers (`../../etc`) are refused. Runs with cwd `/` and without the script folder / cwd on sys.path, so a
// folder named like a stdlib module in the current directory is never imported either. See docs/sources.md
// ("Hostile sources").
const PROBE = `
import json, os, re, stat, sys
sys.path = [p for p in sys.path if p not in ("", os.getcwd())]
import importlib.machinery, importlib.metadata as md
name = sys.argv[1]
try:
    d = md.distribution(name)
except md.PackageNotFoundError:
    print(json.dumps({"error": "not-installed", "sysPath": sys.path}))
    sys.exit(0)
meta_dir = getattr(d, "_path", None)
LIMIT = 8 << 20

def read_text(filename):
    # importlib.metadata reads METADATA, RECORD, top_level.txt... through this method: here only regular files
    # (a METADATA -> /proc/self/environ link is not read), bounded, never through a symlink.
    if meta_dir is None:
        return None
    p = os.path.join(str(meta_dir), filename) if filename else str(meta_dir)
    try:
        if not stat.S_ISREG(os.lstat(p).st_mode):
            return None
        fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            data = f.read(LIMIT + 1)
    except OSError:
        return None
    return data.decode("utf-8", "replace") if len(data) <= LIMIT else None

d.read_text = read_text
m = d.metadata
files = [str(f) for f in (d.files or [])]
entries = (d.read_text("top_level.txt") or "").split()
if not entries:
    # No top_level.txt: the first path component of the installed files, minus metadata folders and scripts.
    entries = sorted({f.split("/")[0] for f in files if not f.startswith("..") and not f.split("/")[0].endswith((".dist-info", ".egg-info", ".data"))})
    entries = [t[:-3] if t.endswith(".py") else t for t in entries if t != "__pycache__"]
if not entries:
    entries = [name.replace("-", "_")]
try:
    root = os.path.realpath(str(d.locate_file("")))
except Exception:
    root = os.path.dirname(os.path.realpath(str(meta_dir))) if meta_dir else None
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\\Z")
SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)

def locate(parts):
    # Parent folders must be real folders (a symlinked parent would lead the listing out of the root); the entry
    # itself may be a link: the listing records where it leads without following it out of the root.
    base = root
    for p in parts[:-1]:
        base = os.path.join(base, p)
        if os.path.islink(base) or not os.path.isdir(base):
            return None
    last, rel = parts[-1], "/".join(parts[:-1] + [""])
    cand = os.path.join(base, last)
    if os.path.isdir(cand) and any(os.path.lexists(os.path.join(cand, "__init__" + s)) for s in (".py", ".pyc")):
        return rel + last
    if os.path.lexists(cand + ".py"):
        return rel + last + ".py"
    try:
        ext = sorted(f for f in os.listdir(base) if f.startswith(last + ".") and f.endswith(SUFFIXES))
    except OSError:
        ext = []
    if ext:
        return rel + ext[0]
    if os.path.lexists(cand):
        return rel + last  # a namespace package, or a link the listing will judge
    return None

tops, refused = [], []
for e in entries:
    parts = e.replace("/", ".").split(".")
    if not all(IDENT.match(p) for p in parts):
        refused.append(e)
        continue
    found = locate(parts) if root else None
    if found:
        tops.append(found)  # repeats and nesting are sorted out (and reported) by the caller
print(json.dumps({
    "name": m["Name"], "version": d.version, "root": root, "tops": tops, "refused": refused, "files": len(files),
    "metaDir": os.path.realpath(str(meta_dir)) if meta_dir else None,
    "license": m.get("License"), "licenseExpression": m.get("License-Expression"),
    "classifiers": m.get_all("Classifier") or [], "licenseFiles": m.get_all("License-File") or [],
    "homePage": m.get("Home-page"), "projectUrls": m.get_all("Project-URL") or [],
}))
`;

export interface DistInfo {
  name: string;
  version: string;
  /** Folder holding the top-level packages (site-packages / dist-packages). */
  root: string;
  /** Top-level packages and modules relative to root (`torchvision`, `six.py`). */
  tops: string[];
  metaDir: string | null;
  license: string | null;
  licenseExpression: string | null;
  classifiers: string[];
  homePage: string | null;
  projectUrls: string[];
  /** Problems with the metadata itself: top-level entries refused. */
  diagnostics: Diagnostic[];
}

export type DistLookup = { ok: true; dist: DistInfo } | { ok: false; diagnostic: Diagnostic };

/** An interpreter for probes on the host (pipeline/environment/ makes them). */
export interface HostPython {
  path: string;
  /**
   * When set, the probe runs with `-S` (no site processing: no `.pth` file of a requirements layer runs on the host)
   * and these folders are appended to sys.path after the standard library, so no installed module can shadow one the
   * probe imports.
   */
  sites?: string[];
}

/** The command line of a probe script on `python`. */
export function probeArgs(python: HostPython, script: string, args: string[] = []): string[] {
  if (!python.sites) return ['-c', script, ...args];
  const prelude = `import sys; sys.path.extend(${JSON.stringify(python.sites)})\n`;
  return ['-S', '-c', prelude + script, ...args];
}

export function locateDistribution(python: HostPython, distribution: string, sourceId: string): DistLookup {
  const fail = (message: string, hint: string): DistLookup => ({
    ok: false,
    diagnostic: {
      code: 'distribution-not-found',
      severity: 'error',
      stage: 'sources',
      source: sourceId,
      message,
      hint,
    },
  });
  let raw: Record<string, unknown>;
  try {
    const out = execFileSync(python.path, probeArgs(python, PROBE, [distribution]), {
      cwd: '/',
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    raw = JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
  } catch (err) {
    return fail(
      `probing ${distribution} with ${python.path} failed: ${(err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message}`,
      'run `nnblocks doctor` to check the Python interpreter',
    );
  }
  if (raw.error === 'not-installed') {
    return fail(
      `distribution "${distribution}" is not installed for ${python.path}`,
      `check the spelling of \`distribution\`; the validation environment installs it (see \`nnblocks environment\`), or install it for the interpreter you named`,
    );
  }
  const { tops, overlapping } = disjointTops(raw.tops as string[]);
  const refused = raw.refused as string[];
  if (tops.length === 0)
    return fail(
      `distribution "${distribution}" ${raw.version} is installed but none of its top-level packages is in ${raw.root}`,
      'reinstall the distribution (an editable install keeps its code elsewhere: use a `path` source for it)',
    );
  const diagnostics: Diagnostic[] = [];
  if (refused.length)
    diagnostics.push({
      code: 'top-level-refused',
      severity: 'warning',
      stage: 'sources',
      source: sourceId,
      message: `top_level.txt of ${distribution} names ${refused.map((r) => JSON.stringify(r.slice(0, 80))).join(', ')}, not a package name; ignored`,
      hint: 'top_level.txt lists import names (`torchvision`); the distribution’s metadata is broken or hostile',
    });
  if (overlapping.length)
    diagnostics.push({
      code: 'top-level-overlap',
      severity: 'warning',
      stage: 'sources',
      source: sourceId,
      message: `top_level.txt of ${distribution} names ${overlapping.map((r) => JSON.stringify(r)).join(', ')} again or inside another entry; each file is listed once`,
      hint: 'top_level.txt lists each top-level import name once (`torchvision`, not `torchvision.ops`); the distribution’s metadata is broken or hostile',
    });
  return {
    ok: true,
    dist: {
      // Metadata without a Name or Version is broken, not a reason to crash.
      name: (raw.name as string | null) ?? distribution,
      version: (raw.version as string | null) ?? 'unknown',
      root: raw.root as string,
      tops,
      metaDir: raw.metaDir as string | null,
      license: (raw.license as string | null) ?? null,
      licenseExpression: (raw.licenseExpression as string | null) ?? null,
      classifiers: raw.classifiers as string[],
      homePage: (raw.homePage as string | null) ?? null,
      projectUrls: raw.projectUrls as string[],
      diagnostics,
    },
  };
}

/**
 * The located entries with repeats and entries inside another one dropped (`pkg` and `pkg/sub` would list every
 * file of `pkg/sub` twice, and the index takes a file once): kept in their order, the dropped ones returned.
 */
export function disjointTops(found: string[]): { tops: string[]; overlapping: string[] } {
  const covers = (outer: string, inner: string) => inner === outer || inner.startsWith(`${outer}/`);
  const tops = found.filter((t, i) => !found.some((o, j) => (o === t ? j < i : covers(o, t))));
  const overlapping = [...new Set(found.filter((t, i) => !tops.includes(t) || found.indexOf(t) !== i))];
  return { tops, overlapping };
}

/**
 * The upstream tag for an installed version: `v` + its release segment. Pre-release, dev, post and local parts
 * are dropped: torchvision's release branches carry `0.14.1a0` in version.txt unless BUILD_VERSION is set, so
 * distro builds of the v0.14.1 tag report `0.14.1a0`; `2.1.0+cu118` is the v2.1.0 tag built for CUDA 11.8.
 */
export function tagForVersion(version: string): string | undefined {
  const release = /^(?:\d+!)?(\d+(?:\.\d+)*)/.exec(version.trim());
  return release ? `v${release[1]}` : undefined;
}

// A URL on a known forge: scheme (https, git, ssh or scp-like), host, then `owner/repo`.
const FORGE =
  /^(?:git\+)?(?:https?:\/\/|git:\/\/|ssh:\/\/git@|git@)(?:www\.)?(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)[/:]/i;
// `owner/repo` in the characters forges allow in names, then the end, a path, a query or a fragment (dropped).
// Whatever else follows the name — `;origin=...`, a space, an escape sequence — makes the URL no repository URL: the
// result is published as provenance and inside SWHIDs, where `;` separates qualifiers.
const OWNER_REPO = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?(?:[/?#][^\s]*)?$/;

/** A URL naming a forge: its `https://host/owner/repo`, or why it is not one; null for a URL on no known forge. */
export function parseRepoUrl(url: string): { repository: string } | { refused: string } | null {
  const text = url.trim();
  const forge = FORGE.exec(text);
  if (!forge) return null;
  const m = OWNER_REPO.exec(text.slice(forge[0].length));
  if (!m || [m[1], m[2]].some((n) => n === '.' || n === '..')) return { refused: text };
  return { repository: `https://${forge[1].toLowerCase()}/${m[1]}/${m[2]}` };
}

/** `git@github.com:o/r.git`, `https://github.com/o/r/tree/main` → `https://github.com/o/r`; null otherwise. */
export function normalizeRepoUrl(url: string): string | null {
  const parsed = parseRepoUrl(url);
  return parsed && 'repository' in parsed ? parsed.repository : null;
}

/** The warning for forge URLs in upstream metadata that are not plain repository URLs (`what`: where they were). */
export function repositoryRefused(sourceId: string, what: string, urls: string[]): Diagnostic {
  return {
    code: 'repository-url-refused',
    severity: 'warning',
    stage: 'sources',
    source: sourceId,
    message: `${what} names ${urls.map((u) => JSON.stringify(u.slice(0, 120))).join(', ')}, not a plain repository URL; ignored`,
    hint: 'a repository URL is https://host/owner/repo; the metadata is broken or hostile (the repository is taken from the next URL, if any)',
  };
}

/**
 * Upstream repository from Project-URL entries (Source/Repository/Code first) or Home-page; forge URLs that are
 * not plain `owner/repo` URLs are refused with a diagnostic, and the next URL is tried.
 */
export function upstreamRepository(
  dist: Pick<DistInfo, 'projectUrls' | 'homePage'>,
  sourceId: string,
): { repository?: string; diagnostics: Diagnostic[] } {
  const urls = dist.projectUrls.map((e) => {
    const [label, ...rest] = e.split(',');
    return { label: label.trim().toLowerCase(), url: rest.join(',').trim() };
  });
  const ranked = [
    ...urls.filter((u) => /source|repository|code|github/.test(u.label)),
    ...urls.filter((u) => !/source|repository|code|github/.test(u.label)),
    ...(dist.homePage ? [{ label: 'home-page', url: dist.homePage }] : []),
  ];
  const refused: string[] = [];
  let repository: string | undefined;
  for (const u of ranked) {
    const parsed = parseRepoUrl(u.url);
    if (parsed && 'refused' in parsed) refused.push(parsed.refused);
    else if (parsed) repository ??= parsed.repository;
  }
  const diagnostics = refused.length
    ? [repositoryRefused(sourceId, 'the metadata (Project-URL, Home-page)', refused)]
    : [];
  return { ...(repository ? { repository } : {}), diagnostics };
}
