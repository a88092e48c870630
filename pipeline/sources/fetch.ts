// The sources stage: brings every configured source onto the machine (git, installed python distribution, local
// folder) and lists its files safely. Upstream problems become diagnostics; one failing source never stops the rest.
// See docs/sources.md.
import { createHash } from 'node:crypto';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger, StageContext } from '../contract/context.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { fault } from '../util/fault.ts';
import type { CorpusConfig, GitSource, PathSource, PythonSource, SourceConfig } from '../config/types.ts';
import { lookupPython } from '../config/python.ts';
import { checkoutInfo } from './git-checkout.ts';
import { commitDateOf, inCopy, syncGit, type GitState } from './git.ts';
import {
  isRealDir,
  licenseFromDebianCopyright,
  licenseFromFiles,
  licenseFromMetadata,
  NO_LICENSE,
  type LicenseScan,
} from './license.ts';
import { LockTimeout, withLock } from './lock.ts';
import { readUpstreamText } from './read-upstream.ts';
import { readPackageDirs } from './package-dirs.ts';
import { declaredRequirements } from './requirements.ts';
import {
  locateDistribution,
  normalizeRepoUrl,
  parseRepoUrl,
  repositoryRefused,
  tagForVersion,
  upstreamRepository,
  type HostPython,
} from './python-dist.ts';
import type {
  LicenseInfo,
  PackageDir,
  SkippedFile,
  SourceFileEntry,
  SourceSnapshot,
  SourcesResult,
  SourceStatus,
} from './types.ts';
import { credentialsDiagnostic, stripCredentials } from './url.ts';
import { detectImportRoot, walkSource, type WalkResult } from './walk.ts';
import { matchGlob, makePathFilter } from '../util/glob.ts';

export interface SourcesOptions {
  /** Sources fetched at once (default 4): network-bound, so a few in parallel hide latency. */
  concurrency?: number;
  /**
   * The interpreter `python` sources are located with, given the other sources once they are fetched (their
   * declared requirements decide the validation environment, pipeline/environment/). Default: the config's
   * interpreter as `lookupPython` finds it.
   */
  python?: (others: SourceSnapshot[]) => Promise<PythonFor>;
}

/** The interpreter python sources are located with, or why there is none. */
export type PythonFor = { ok: true; host: HostPython } | { ok: false; diagnostic: Diagnostic };

/** What the last run recorded per source (`<cacheDir>/sources/<id>/state.json`): decides unchanged/updated/stale. */
interface SavedState {
  kind: SourceConfig['kind'];
  git?: GitState;
  /** python: installed version; path: commit or a fingerprint of the listed files. */
  revision?: string;
}

function readState(dir: string): SavedState | undefined {
  // Bounded and never through a symlink, like any file in a folder something else may have written to.
  const read = readUpstreamText(join(dir, 'state.json'));
  try {
    return read.ok && !read.truncated ? (JSON.parse(read.text) as SavedState) : undefined;
  } catch {
    return undefined;
  }
}

type Fetched = Omit<
  SourceSnapshot,
  'id' | 'kind' | 'priority' | 'domain' | 'files' | 'skipped' | 'importRoot' | 'symbols'
> & {
  tops?: string[];
  revision?: string;
  git?: GitState;
};

function statusFor(prev: SavedState | undefined, kind: string, revision: string): SourceStatus {
  if (!prev || prev.kind !== kind) return 'fetched';
  return prev.revision === revision ? 'unchanged' : 'updated';
}

/** Source-level diagnostics of a license lookup (license.ts knows files, not sources). */
const ofSource = (id: string, scan: LicenseScan): Diagnostic[] => scan.diagnostics.map((d) => ({ ...d, source: id }));

async function fetchGitSource(src: GitSource, dir: string, prev: SavedState | undefined): Promise<Fetched> {
  const out = await syncGit(src, dir, prev?.kind === 'git' ? prev.git : undefined);
  const scan: LicenseScan = out.status === 'failed' ? { license: null, diagnostics: [] } : licenseFromFiles(out.root);
  // Only the stripped URL is ever stored or shown; the configured one, credentials and all, stays in the config.
  const url = stripCredentials(src.url).url;
  // A mirror names the public repository it copies: provenance must cite that, not a path on this machine.
  const repository = src.repository ? (normalizeRepoUrl(src.repository) ?? src.repository) : normalizeRepoUrl(url);
  // Read from the copy each run (not kept in the state): the commit is always in it, even in a depth-1 fetch.
  const commitDate = out.state ? await commitDateOf(out.state.commit, inCopy(out.root)) : undefined;
  return {
    status: out.status,
    root: out.root,
    // The copy's .git (its config holds the stripped URL, nothing of upstream's): no sandbox needs it either.
    ...(out.status === 'failed' ? {} : { hidden: ['.git'] }),
    url,
    ref: src.ref,
    ...(out.state ? { commit: out.state.commit, git: out.state } : {}),
    ...(commitDate ? { commitDate } : {}),
    ...(repository ? { repository } : {}),
    license: scan.license ?? NO_LICENSE,
    diagnostics: [...out.diagnostics, ...ofSource(src.id, scan)],
  };
}

function fetchPythonSource(src: PythonSource, python: PythonFor, prev: SavedState | undefined): Fetched {
  const failed = (d: Diagnostic): Fetched => ({
    status: 'failed',
    root: '',
    distribution: src.distribution,
    license: NO_LICENSE,
    diagnostics: [{ ...d, source: src.id, stage: 'sources' }],
  });
  if (!python.ok) return failed(python.diagnostic);
  const found = locateDistribution(python.host, src.distribution, src.id);
  if (!found.ok) return failed(found.diagnostic);
  const d = found.dist;
  // License: files shipped with the metadata (dist-info/licenses) or the package, then Debian's copyright
  // (exact SPDX, where metadata often only says "BSD"), then the metadata itself. Folders below the roots are
  // searched only when they are real folders, not symlinks to elsewhere.
  const meta = licenseFromMetadata(d);
  // The name comes from the distribution's metadata: only a plain package name may become part of a path.
  const debian =
    d.root.startsWith('/usr/lib/python3/') && /^[a-z0-9][a-z0-9._-]*$/i.test(d.name)
      ? licenseFromDebianCopyright(`/usr/share/doc/python3-${d.name.toLowerCase()}/copyright`)
      : null;
  const scans: LicenseScan[] = [];
  const scan = (dir: string | null, label: (n: string) => string, real = true) => {
    if (!dir || (real && !isRealDir(dir))) return null;
    const s = licenseFromFiles(dir, label);
    scans.push(s);
    return s.license;
  };
  const metaDir = d.metaDir;
  let license: LicenseInfo =
    scan(metaDir && join(metaDir, 'licenses'), (n) => join(metaDir!, 'licenses', n)) ??
    scan(metaDir, (n) => join(metaDir!, n), false) ??
    scan(join(d.root, d.tops[0]), (n) => `${d.tops[0]}/${n}`) ??
    debian ??
    meta ??
    NO_LICENSE;
  if (license === debian && meta)
    license = {
      ...debian,
      method: `${debian.method}; ${meta.method}${meta.spdx === debian.spdx ? ' agrees' : ' disagrees'}`,
    };
  const { repository, diagnostics: urlDiagnostics } = upstreamRepository(d, src.id);
  const tag = tagForVersion(d.version);
  return {
    status: statusFor(prev, 'python', d.version),
    root: d.root,
    tops: d.tops,
    revision: d.version,
    distribution: d.name,
    version: d.version,
    ...(repository ? { repository } : {}),
    ...(tag ? { tag } : {}),
    ...(src.releaseDate ? { releaseDate: src.releaseDate } : {}),
    license,
    diagnostics: [...d.diagnostics, ...urlDiagnostics, ...scans.flatMap((s) => ofSource(src.id, s))],
  };
}

async function fetchPathSource(src: PathSource): Promise<Fetched> {
  if (!existsSync(src.path)) {
    return {
      status: 'failed',
      root: src.path,
      license: NO_LICENSE,
      diagnostics: [
        {
          code: 'source-missing',
          severity: 'error',
          stage: 'sources',
          source: src.id,
          message: `folder ${src.path} does not exist`,
          hint: 'correct `path` in the config',
        },
      ],
    };
  }
  const info = await checkoutInfo(src.path);
  const origin = info?.origin ? stripCredentials(info.origin) : null;
  // The checkout's config is upstream's: a forge URL with anything after `owner/repo` is refused (see python-dist).
  const parsed = origin ? parseRepoUrl(origin.url) : null;
  // The config's `repository` first: a folder cloned from a local mirror has no forge URL as its origin.
  const repository = src.repository
    ? (normalizeRepoUrl(src.repository) ?? src.repository)
    : parsed && 'repository' in parsed
      ? parsed.repository
      : null;
  const scan = licenseFromFiles(src.path);
  return {
    status: 'fetched', // decided after listing files (see fetchOne)
    root: src.path,
    ...(info?.commit ? { commit: info.commit } : {}),
    ...(info?.commitDate ? { commitDate: info.commitDate } : {}),
    ...(info ? { dirty: info.dirty } : {}),
    ...(info?.hidden.length ? { hidden: info.hidden } : {}),
    ...(repository ? { repository } : {}),
    license: scan.license ?? NO_LICENSE,
    diagnostics: [
      ...(origin?.stripped ? [credentialsDiagnostic(src.id, `the origin remote of ${src.path}`)] : []),
      ...(parsed && 'refused' in parsed
        ? [repositoryRefused(src.id, `the origin remote of ${src.path}`, [parsed.refused])]
        : []),
      ...ofSource(src.id, scan),
    ],
  };
}

/**
 * The two scopes of a source (docs/config.md, "Two scopes"): the import root is detected from the discovery scope
 * (include/exclude), and the resolution scope is every listed file below it plus the discovery scope itself. A
 * file above the import root that include/exclude do not name (`setup.py`, `tests/` of a src layout) has no module
 * name, so no import can reach it: it is dropped, skips there included.
 */
function inResolutionScope(
  listed: WalkResult,
  src: SourceConfig,
  packageDirs: PackageDir[],
): { files: SourceFileEntry[]; skipped: SkippedFile[]; importRoot: string } {
  const importRoot = detectImportRoot(
    listed.files.filter((f) => f.discover !== false),
    src.importRoot,
  );
  if (importRoot === '') return { ...listed, importRoot };
  const keep = makePathFilter(src.include, src.exclude);
  // A folder setup.py installs as a package is importable wherever it lies (`package_dir`).
  const below = (p: string) => p.startsWith(`${importRoot}/`) || packageDirs.some((d) => p.startsWith(`${d.folder}/`));
  return {
    files: listed.files.filter((f) => f.discover !== false || f.config || below(f.path)),
    skipped: listed.skipped.filter((k) => below(k.path) || keep(k.path)),
    importRoot,
  };
}

/**
 * An include that names no file of the source (`modles/**`, a folder that moved upstream) is a warning: the rest of
 * the source still builds, but without it a typo would silently leave a part of the repository out of the catalog.
 * Files skipped by the walk count as named (they have their own record).
 */
function unmatchedIncludes(src: SourceConfig, listed: { files: { path: string }[]; skipped: { path: string }[] }) {
  const paths = [...listed.files, ...listed.skipped].map((f) => f.path);
  return src.include
    .filter((g) => !paths.some((p) => matchGlob(g, p)))
    .map((g): Diagnostic => ({
      code: 'include-matches-nothing',
      severity: 'warning',
      stage: 'sources',
      source: src.id,
      message: `include "${g}" matches no Python file of the source`,
      hint: 'correct the glob (relative to the source root; `nnblocks sources --json` lists the files), or remove it',
    }));
}

async function fetchOne(
  src: SourceConfig,
  config: CorpusConfig,
  python: () => Promise<PythonFor>,
  log: Logger,
): Promise<SourceSnapshot> {
  const dir = join(config.cacheDir, 'sources', src.id);
  const base = {
    id: src.id,
    kind: src.kind,
    priority: src.priority,
    ...(src.domain ? { domain: src.domain } : {}),
    ...(src.symbols.length ? { symbols: src.symbols } : {}),
  };
  try {
    return await withLock(dir, async () => {
      const prev = readState(dir);
      const got =
        src.kind === 'git'
          ? await fetchGitSource(src, dir, prev)
          : src.kind === 'python'
            ? fetchPythonSource(src, await python(), prev)
            : await fetchPathSource(src);
      const { tops, revision: rev, git: gitState, ...fields } = got;
      if (fields.status === 'failed')
        return { ...base, ...fields, root: fields.root || dir, importRoot: fields.root || dir, files: [], skipped: [] };
      // Packages setup.py installs from other folders: walked and kept whatever their folders are named.
      const packageDirs = src.kind === 'python' ? [] : readPackageDirs(fields.root, config.maxFileBytes);
      const listed = inResolutionScope(
        walkSource(fields.root, {
          include: src.include,
          exclude: src.exclude,
          maxFileBytes: config.maxFileBytes,
          ...(src.importRoot ? { importRoot: src.importRoot } : {}),
          ...(tops ? { tops } : {}),
          ...(src.configs.length ? { configs: src.configs } : {}),
          ...(packageDirs.length ? { packageDirs: packageDirs.map((d) => d.folder) } : {}),
        }),
        src,
        packageDirs,
      );
      fields.diagnostics.push(...unmatchedIncludes(src, listed));
      let revision = rev;
      if (src.kind === 'path') {
        // A clean checkout is identified by its commit; anything else by what its files look like now.
        revision =
          fields.commit && !fields.dirty
            ? fields.commit
            : createHash('sha256').update(JSON.stringify(listed.files)).digest('hex');
        fields.status = statusFor(prev, 'path', revision);
      }
      if (fields.status !== 'stale') {
        const state: SavedState = {
          kind: src.kind,
          ...(gitState ? { git: gitState, revision: gitState.commit } : {}),
          ...(revision ? { revision } : {}),
        };
        // Written aside and renamed over: a symlink planted as state.json is replaced, never written through.
        const tmp = join(dir, `state.json.${process.pid}`);
        rmSync(tmp, { force: true });
        writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { flag: 'wx' });
        renameSync(tmp, join(dir, 'state.json'));
        fault('sync');
      }
      const importRoot = resolve(fields.root, listed.importRoot);
      if (listed.skipped.length) log.debug(`${src.id}: skipped ${listed.skipped.length} files`);
      // What a checkout says it needs to run (an installed distribution's needs came with it): read as data.
      const declared = src.kind === 'python' ? null : declaredRequirements(fields.root);
      return {
        ...base,
        ...fields,
        importRoot,
        files: listed.files,
        skipped: listed.skipped,
        ...(declared ? { requirements: declared.requirements, installable: declared.installable } : {}),
        ...(packageDirs.length ? { packageDirs } : {}),
        diagnostics: [...fields.diagnostics, ...(declared?.diagnostics ?? []).map((d) => ({ ...d, source: src.id }))],
      };
    });
  } catch (err) {
    if (!(err instanceof LockTimeout)) throw err;
    return {
      ...base,
      status: 'failed',
      root: dir,
      importRoot: dir,
      files: [],
      skipped: [],
      license: NO_LICENSE,
      diagnostics: [
        {
          code: 'source-locked',
          severity: 'error',
          stage: 'sources',
          source: src.id,
          message: `another nnblocks run holds the source cache lock: ${err.message}`,
          hint: 'wait for the other run to finish; if it crashed on another host, delete the .lock file',
        },
      ],
    };
  }
}

export async function fetchSources(
  config: CorpusConfig,
  ctx: StageContext,
  opts: SourcesOptions = {},
): Promise<SourcesResult> {
  const progress = ctx.progress('sources', config.sources.length);
  const snapshots: SourceSnapshot[] = new Array(config.sources.length);
  // python sources last: their interpreter may depend on what the others declare (the validation environment).
  const order = config.sources
    .map((s, i) => ({ s, i }))
    .sort((a, b) => Number(a.s.kind === 'python') - Number(b.s.kind === 'python') || a.i - b.i);
  const firstPython = order.findIndex((o) => o.s.kind === 'python');
  let py: Promise<PythonFor> | undefined;
  const python = () =>
    (py ??= (async (): Promise<PythonFor> => {
      const others = order.slice(0, firstPython).map((o) => snapshots[o.i]);
      if (opts.python) return opts.python(others);
      // Only python sources need the interpreter; probing it (importing torch) costs seconds.
      const found = lookupPython(config);
      return found.ok ? { ok: true, host: { path: found.python.path } } : found;
    })());
  let next = 0;
  const worker = async (phase: typeof order) => {
    while (next < phase.length) {
      const { s: src, i } = phase[next++];
      snapshots[i] = await fetchOne(src, config, python, ctx.log);
      const s = snapshots[i];
      ctx.log.debug(`${s.id}: ${s.status}, ${s.files.length} files`);
      progress.tick();
    }
  };
  for (const phase of firstPython < 0 ? [order] : [order.slice(0, firstPython), order.slice(firstPython)]) {
    next = 0;
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(opts.concurrency ?? 4, phase.length)) }, () => worker(phase)),
    );
  }
  const counts = new Map<string, number>();
  for (const s of snapshots) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  progress.done(`${snapshots.length} sources (${[...counts].map(([k, n]) => `${n} ${k}`).join(', ')})`);
  // Diagnostics are returned, not logged: each command decides how to show them (table footer, JSON).
  return { snapshots, diagnostics: snapshots.flatMap((s) => s.diagnostics) };
}
