// git sources: a shallow, code-only copy in `<cacheDir>/sources/<id>/tree` — depth 1, non-cone sparse checkout of
// Python files plus license/readme/packaging files, blobless when the server supports filters, no LFS smudge.
// A pinned commit is never refetched; a branch or tag is checked with `git ls-remote` and fetched only when it moved.
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';
import type { GitSource } from '../config/types.ts';
import { literalPrefix } from '../util/glob.ts';
import { gitError, runGit, type GitCall } from './git-run.ts';
import type { SourceStatus } from './types.ts';
import { credentialsDiagnostic, stripCredentials } from './url.ts';

export const isCommitSha = (ref: string) => /^[0-9a-f]{40}$/.test(ref);

/**
 * Non-cone sparse-checkout patterns: the resolution scope — every Python file below the import root, since a block
 * may import any module Python could find there (`from mmcv.utils import X` with only `mmcv/cnn` included) — plus
 * the includes' own folders (a discovery file may sit outside the import root) and project metadata, requirements
 * files included (the validation environment installs what they declare: docs/sources.md). Without a
 * configured import root (it is detected from the checkout) that is every Python file of the repository.
 */
export function sparsePatterns(include: string[], importRoot?: string): string[] {
  const py = new Set<string>();
  if (!importRoot) py.add('*.py');
  else {
    py.add(`/${importRoot}/**/*.py`);
    for (const g of include) {
      const prefix = literalPrefix(g);
      if (prefix === '') py.add('*.py');
      else if (prefix.endsWith('.py')) py.add(`/${prefix}`);
      else py.add(`/${prefix}/**/*.py`);
    }
  }
  const list = py.has('*.py') ? ['*.py'] : [...py].sort();
  return [
    ...list,
    '/LICENSE*',
    '/LICENCE*',
    '/COPYING*',
    '/README*',
    '/pyproject.toml',
    '/setup.py',
    '/setup.cfg',
    '/requirements*.txt',
    '/requirements/*.txt',
  ];
}

export interface GitState {
  /** The URL without credentials (see url.ts): what is stored and compared between runs. */
  url: string;
  ref: string;
  commit: string;
  sparse: string[];
}

export interface GitOutcome {
  status: SourceStatus;
  /** The checkout folder (exists unless failed). */
  root: string;
  state?: GitState;
  diagnostics: Diagnostic[];
}

/** Runs git in one source's copy; `config` carries this run's credentials rewrite, if any. */
type Git = (args: string[]) => Promise<string>;

/** A config value git reads back verbatim: quoted, `\` and `"` escaped (a URL may hold `#` or `;`, comment starts). */
const quoted = (v: string) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/**
 * Writes the copy's whole config, replacing whatever is there. The copy is ours: this is what `git init`, our
 * `git config` calls and `sparse-checkout set --no-cone` produce, and nothing else — so no hook path, fsmonitor,
 * upload-pack, filter, helper or URL planted in the cache since the last run survives, and the remote URL is the
 * stripped one (the credentials rewrite lives only in the environment of this run's git calls).
 */
function writeRepoConfig(tree: string, url: string): void {
  const git = join(tree, '.git');
  replaceFile(
    join(git, 'config'),
    [
      '[core]',
      '\trepositoryformatversion = 0',
      '\tfilemode = true',
      '\tbare = false',
      '\tlogallrefupdates = true',
      '[remote "origin"]',
      `\turl = ${quoted(url)}`,
      '\tfetch = +refs/heads/*:refs/remotes/origin/*',
      // A promisor origin lets `--filter=blob:none` work on a plain `git init` repo; servers that don't support
      // filters just send the blobs (git warns "filtering not recognized by server" and carries on).
      '\tpromisor = true',
      '\tpartialCloneFilter = blob:none',
      '[extensions]',
      '\tpartialClone = origin',
      '\tworktreeConfig = true',
      '',
    ].join('\n'),
  );
  // worktreeConfig makes git read config.worktree too: rewritten for the same reason.
  replaceFile(join(git, 'config.worktree'), '[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = false\n');
  // A `commondir` file makes git take config, refs and objects from the folder it names (that is how a linked
  // worktree shares its repository): planted here, it would make git read that folder's config instead of ours.
  rmSync(join(git, 'commondir'), { force: true });
}

/** Rewrites an existing copy's config; false when that fails (`.git/config` made a folder...): refetch then. */
function resetConfig(tree: string, url: string): boolean {
  try {
    writeRepoConfig(tree, url);
    return true;
  } catch {
    return false;
  }
}

/** Removes, then creates exclusively: a symlink planted where the file was is replaced, never written through. */
function replaceFile(path: string, text: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, text, { flag: 'wx' });
}

/**
 * How git is pointed at a copy: its `.git` named outright, never discovered (see git-run.ts), so nothing around
 * or inside the tree can substitute another repository.
 */
export const inCopy = (tree: string): GitCall => ({ gitDir: join(tree, '.git'), workTree: tree, cwd: tree });

/** A usable copy has a real `.git` folder: a `.git` file or symlink could point git at a repository of anyone's. */
function hasRepo(tree: string): boolean {
  try {
    return lstatSync(join(tree, '.git')).isDirectory();
  } catch {
    return false;
  }
}

/** The commit `ref` names on the remote (tags peeled), or null when the remote has no such ref. */
async function remoteCommit(url: string, ref: string, config: [string, string][]): Promise<string | null> {
  const out = await runGit(['ls-remote', '--', url, ref, `${ref}^{}`], { config });
  const refs = new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, name] = l.split('\t');
        return [name, sha] as [string, string];
      }),
  );
  const full = ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
  for (const name of full) {
    const sha = refs.get(`${name}^{}`) ?? refs.get(name);
    if (sha) return sha;
  }
  return null;
}

/** Fetches `ref` at depth 1 into the repo at `tree` and checks it out; returns the commit. */
async function fetchInto(tree: string, git: Git, url: string, ref: string, sparse: string[]): Promise<string> {
  if (!hasRepo(tree)) {
    mkdirSync(tree, { recursive: true });
    await git(['init', '-q', '--template=']); // no templates: no sample hooks, nothing we did not write
    writeRepoConfig(tree, url);
  }
  await git(['sparse-checkout', 'set', '--no-cone', ...sparse]);
  await git([
    'fetch',
    '-q',
    '--depth',
    '1',
    '--filter=blob:none',
    '--no-tags',
    '--no-recurse-submodules',
    'origin',
    ref,
  ]);
  await git(['checkout', '-q', '--detach', 'FETCH_HEAD']);
  return git(['rev-parse', 'HEAD']);
}

/**
 * The remote answered and has no such ref: git's own words for it (`fatal: couldn't find remote ref nope`, or
 * `not our ref <sha>` for a commit the server does not have). A misspelt ref, not an outage: the source fails.
 */
const REF_MISSING = /couldn't find remote ref|not our ref|no such remote ref|unadvertised object/i;

/**
 * `ref` does not exist upstream: an error for the source, whatever copy there is (a misspelt ref must never build
 * from the commit an earlier ref left in the cache). `detail`: git's message, when a fetch said so.
 */
function refMissing(src: GitSource, url: string, detail?: string): Diagnostic {
  return {
    code: 'source-ref-missing',
    severity: 'error',
    stage: 'sources',
    source: src.id,
    message: `${url} has no branch, tag or commit "${src.ref}"${detail ? `: ${detail}` : ''}`,
    hint: 'correct `ref` in the config (a branch, tag or 40-hex commit of that repository); `git ls-remote <url>` lists them',
  };
}

/** The outcome of a fetch that failed: the ref missing upstream, else the remote unreachable (stale with a copy). */
function fetchFailed(src: GitSource, url: string, tree: string, err: unknown, copy?: GitState): GitOutcome {
  const message = gitError(err);
  if (REF_MISSING.test(message)) return { status: 'failed', root: tree, diagnostics: [refMissing(src, url, message)] };
  return copy
    ? { status: 'stale', root: tree, state: copy, diagnostics: [unreachable(src, url, err, true)] }
    : { status: 'failed', root: tree, diagnostics: [unreachable(src, url, err, false)] };
}

function unreachable(src: GitSource, url: string, err: unknown, haveCopy: boolean): Diagnostic {
  return {
    code: 'source-unreachable',
    severity: haveCopy ? 'warning' : 'error',
    stage: 'sources',
    source: src.id,
    message: `cannot fetch ${url} (${src.ref}): ${gitError(err)}`,
    hint: haveCopy
      ? 'the earlier copy is used (status stale); check the URL, network and credentials, then run `nnblocks sources` again'
      : 'check the URL, network and credentials (`git ls-remote <url>` must work without a prompt); pin `ref` to a commit and build once online to work offline later',
  };
}

/** Brings `<dir>/tree` to `src.ref`; `prev` is what the last successful run recorded. */
export async function syncGit(src: GitSource, dir: string, prev: GitState | undefined): Promise<GitOutcome> {
  const { url, stripped } = stripCredentials(src.url);
  if ([...src.url].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')) {
    // No git config line can hold it, and no real URL has one.
    const message = `the url of source "${src.id}" contains a control character`;
    return { status: 'failed', root: join(dir, 'tree'), diagnostics: [unreachable(src, url, { message }, false)] };
  }
  // The configured URL, credentials included, reaches git only as this rewrite in its environment, per call.
  const config: [string, string][] = stripped ? [[`url.${src.url}.insteadOf`, url]] : [];
  const outcome = await syncCopy(src, dir, prev, url, config);
  if (stripped) outcome.diagnostics.unshift(credentialsDiagnostic(src.id, `the url of source "${src.id}"`));
  return outcome;
}

async function syncCopy(
  src: GitSource,
  dir: string,
  prev: GitState | undefined,
  url: string,
  config: [string, string][],
): Promise<GitOutcome> {
  const tree = join(dir, 'tree');
  const sparse = sparsePatterns([...src.include, ...src.configs], src.importRoot);
  const sameSparse = (s: GitState) => s.sparse.join('\n') === sparse.join('\n');
  const copy = prev && prev.url === url && hasRepo(tree) && resetConfig(tree, url) ? prev : undefined;
  if (!copy && existsSync(tree)) rmSync(tree, RM_TREE); // another URL, a half-made or a broken copy
  const inTree: Git = (args) => runGit(args, { ...inCopy(tree), config });

  let wanted: string | null = null;
  if (copy && isCommitSha(src.ref)) {
    wanted = src.ref; // a pinned commit: no network at all when we already have it
  } else if (copy) {
    try {
      wanted = await remoteCommit(url, src.ref, config);
    } catch (err) {
      return { status: 'stale', root: tree, state: copy, diagnostics: [unreachable(src, url, err, true)] };
    }
    // Reachable, and no such branch or tag: failed, not stale (the earlier copy is another ref's commit).
    if (!wanted) return { status: 'failed', root: tree, diagnostics: [refMissing(src, url)] };
  }
  if (copy && wanted === copy.commit) {
    if (sameSparse(copy)) return { status: 'unchanged', root: tree, state: copy, diagnostics: [] };
    try {
      // The import root changed: widen or narrow the checkout (a blobless copy fetches the new blobs lazily).
      await inTree(['sparse-checkout', 'set', '--no-cone', ...sparse]);
      return { status: 'updated', root: tree, state: { ...copy, ref: src.ref, sparse }, diagnostics: [] };
    } catch (err) {
      return { status: 'stale', root: tree, state: copy, diagnostics: [unreachable(src, url, err, true)] };
    }
  }

  // Fetch: into the existing copy when there is one, else into a fresh folder renamed into place when complete,
  // so an interrupted first fetch never looks like a usable copy.
  const target = copy ? tree : join(dir, `tree.partial-${process.pid}`);
  const inTarget: Git = (args) => runGit(args, { ...inCopy(target), config });
  try {
    // Leftovers of first fetches killed earlier (any pid): this run holds the source's lock, so none is in use.
    if (!copy) for (const f of readdirSync(dir)) if (f.startsWith('tree.partial-')) rmSync(join(dir, f), RM_TREE);
    const commit = await fetchInto(target, inTarget, url, src.ref, sparse);
    if (!copy) renameSync(target, tree);
    return {
      status: copy ? 'updated' : 'fetched',
      root: tree,
      state: { url, ref: src.ref, commit, sparse },
      diagnostics: [],
    };
  } catch (err) {
    if (!copy) rmSync(target, RM_TREE);
    // A failed fetch may leave the old checkout in place; make sure it is the recorded commit.
    if (copy) await inTree(['checkout', '-q', '--detach', copy.commit]).catch(() => undefined);
    return fetchFailed(src, url, tree, err, copy);
  }
}

const RM_TREE = { recursive: true, force: true } as const;

/**
 * The committer date of `commit` in strict ISO 8601 (`git show -s --format=%cI`): what a citation's year comes from.
 * Undefined when git cannot tell (a shallow copy always has its own commit, so this is rare); never a guess.
 */
export async function commitDateOf(commit: string, call: GitCall): Promise<string | undefined> {
  const out = await runGit(['show', '-s', '--format=%cI', commit, '--'], { ...call, timeoutMs: 60_000 }).catch(
    () => '',
  );
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z)$/.test(out) ? out : undefined;
}
