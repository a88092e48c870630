// python sources: an installed distribution located through the discovered interpreter's importlib.metadata —
// version, where its top-level packages live, license metadata and the upstream repository and tag.
import { execFileSync } from 'node:child_process';
import { dirname, relative, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.ts';

// Runs with cwd `/` and without the script folder / cwd on sys.path, so a folder named like the package in the
// current directory can never shadow the installed one.
const PROBE = `
import json, os, sys
sys.path = [p for p in sys.path if p not in ("", os.getcwd())]
import importlib.metadata as md, importlib.util
name = sys.argv[1]
try:
    d = md.distribution(name)
except md.PackageNotFoundError:
    print(json.dumps({"error": "not-installed", "sysPath": sys.path}))
    sys.exit(0)
m = d.metadata
files = [str(f) for f in (d.files or [])]
tops = (d.read_text("top_level.txt") or "").split()
if not tops:
    # No top_level.txt: the first path component of the installed files, minus metadata folders and scripts.
    tops = sorted({f.split("/")[0] for f in files if not f.startswith("..") and not f.split("/")[0].endswith((".dist-info", ".egg-info", ".data"))})
    tops = [t[:-3] if t.endswith(".py") else t for t in tops if t != "__pycache__"]
if not tops:
    tops = [name.replace("-", "_")]
located = []
for t in tops:
    try:
        spec = importlib.util.find_spec(t)
    except Exception:
        spec = None
    if spec is None:
        continue
    if spec.submodule_search_locations:
        located.append(os.path.realpath(list(spec.submodule_search_locations)[0]))
    elif spec.origin and spec.origin not in ("built-in", "frozen"):
        located.append(os.path.realpath(spec.origin))
meta_dir = getattr(d, "_path", None)
print(json.dumps({
    "name": m["Name"], "version": d.version, "located": located, "files": len(files),
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
}

export type DistLookup = { ok: true; dist: DistInfo } | { ok: false; diagnostic: Diagnostic };

export function locateDistribution(python: string, distribution: string, sourceId: string): DistLookup {
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
    const out = execFileSync(python, ['-c', PROBE, distribution], {
      cwd: '/',
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    raw = JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
  } catch (err) {
    return fail(
      `probing ${distribution} with ${python} failed: ${(err as { stderr?: string }).stderr?.trim().split('\n').pop() ?? (err as Error).message}`,
      'run `nnblocks doctor` to check the Python interpreter',
    );
  }
  if (raw.error === 'not-installed') {
    return fail(
      `distribution "${distribution}" is not installed for ${python}`,
      `install it (e.g. \`apt-get install python3-${distribution.toLowerCase()}\` or \`${python} -m pip install ${distribution}\`), or correct \`distribution\``,
    );
  }
  const located = raw.located as string[];
  if (located.length === 0)
    return fail(
      `distribution "${distribution}" ${raw.version} is installed but none of its top-level packages can be imported`,
      'reinstall the distribution',
    );
  // All top-level packages of one distribution share one folder; the first one decides the root.
  const root = dirname(located[0]);
  const tops = located.filter((l) => dirname(l) === root).map((l) => relative(root, l).split(sep).join('/'));
  return {
    ok: true,
    dist: {
      name: raw.name as string,
      version: raw.version as string,
      root,
      tops,
      metaDir: raw.metaDir as string | null,
      license: (raw.license as string | null) ?? null,
      licenseExpression: (raw.licenseExpression as string | null) ?? null,
      classifiers: raw.classifiers as string[],
      homePage: (raw.homePage as string | null) ?? null,
      projectUrls: raw.projectUrls as string[],
    },
  };
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

/** `git@github.com:o/r.git`, `https://github.com/o/r/tree/main` → `https://github.com/o/r`; null for non-forge URLs. */
export function normalizeRepoUrl(url: string): string | null {
  const m =
    /^(?:git\+)?(?:https?:\/\/|git:\/\/|ssh:\/\/git@|git@)(?:www\.)?(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)[/:]([^/\s]+)\/([^/\s#?]+)/i.exec(
      url.trim(),
    );
  if (!m) return null;
  return `https://${m[1].toLowerCase()}/${m[2]}/${m[3].replace(/\.git$/, '')}`;
}

/** Upstream repository from Project-URL entries (Source/Repository/Code first) or Home-page. */
export function upstreamRepository(dist: Pick<DistInfo, 'projectUrls' | 'homePage'>): string | undefined {
  const urls = dist.projectUrls.map((e) => {
    const [label, ...rest] = e.split(',');
    return { label: label.trim().toLowerCase(), url: rest.join(',').trim() };
  });
  const ranked = [
    ...urls.filter((u) => /source|repository|code|github/.test(u.label)),
    ...urls,
    ...(dist.homePage ? [{ label: 'home-page', url: dist.homePage }] : []),
  ];
  for (const u of ranked) {
    const repo = normalizeRepoUrl(u.url);
    if (repo) return repo;
  }
  return undefined;
}
