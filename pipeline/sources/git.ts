// git sources: a shallow, code-only copy in `<cacheDir>/sources/<id>/tree` — depth 1, non-cone sparse checkout of
// Python files plus license/readme/packaging files, blobless when the server supports filters, no LFS smudge.
// A pinned commit is never refetched; a branch or tag is checked with `git ls-remote` and fetched only when it moved.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Diagnostic } from '../diagnostics.ts';
import type { GitSource } from '../config/types.ts';
import { literalPrefix } from '../util/glob.ts';
import type { SourceStatus } from './types.ts';

const run = promisify(execFile);

const GIT_ENV = {
  ...process.env,
  GIT_LFS_SKIP_SMUDGE: '1', // weights tracked with LFS stay pointers
  GIT_TERMINAL_PROMPT: '0', // an auth prompt would hang a build; fail instead
  GIT_ASKPASS: '',
  SSH_ASKPASS: '',
  GIT_SSH_COMMAND: process.env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes',
};

export async function git(args: string[], cwd?: string): Promise<string> {
  const { stdout } = await run('git', ['-c', 'advice.detachedHead=false', '-c', 'core.fsmonitor=false', ...args], {
    cwd,
    env: GIT_ENV,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 15 * 60_000,
  });
  return stdout.trim();
}

/** git's own words for a failure: the `fatal:`/`error:` lines of stderr, else the last line. */
export function gitError(err: unknown): string {
  const e = err as { stderr?: string; message: string };
  const lines = (e.stderr ?? e.message)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const fatal = lines.filter((l) => /^(fatal|error|ssh):/i.test(l));
  return (fatal.length ? fatal : lines.slice(-1)).join(' ');
}

export const isCommitSha = (ref: string) => /^[0-9a-f]{40}$/.test(ref);

/** Non-cone sparse-checkout patterns: Python files under the includes' literal folders, plus project metadata. */
export function sparsePatterns(include: string[]): string[] {
  const py = new Set<string>();
  for (const g of include) {
    const prefix = literalPrefix(g);
    if (prefix === '') py.add('*.py');
    else if (prefix.endsWith('.py')) py.add(`/${prefix}`);
    else py.add(`/${prefix}/**/*.py`);
  }
  const list = py.has('*.py') ? ['*.py'] : [...py].sort();
  return [...list, '/LICENSE*', '/LICENCE*', '/COPYING*', '/README*', '/pyproject.toml', '/setup.py', '/setup.cfg'];
}

export interface GitState {
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

/** The commit `ref` names on the remote (tags peeled), or null when the remote has no such ref. */
async function remoteCommit(url: string, ref: string): Promise<string | null> {
  const out = await git(['ls-remote', '--', url, ref, `${ref}^{}`]);
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
async function fetchInto(tree: string, src: GitSource, sparse: string[]): Promise<string> {
  if (!existsSync(join(tree, '.git'))) {
    mkdirSync(tree, { recursive: true });
    await git(['init', '-q'], tree);
    await git(['remote', 'add', 'origin', src.url], tree);
    // Declaring origin a promisor lets `--filter=blob:none` work on a plain `git init` repo; servers that don't
    // support filters just send the blobs (git warns "filtering not recognized by server" and carries on).
    await git(['config', 'extensions.partialClone', 'origin'], tree);
    await git(['config', 'remote.origin.promisor', 'true'], tree);
    await git(['config', 'remote.origin.partialCloneFilter', 'blob:none'], tree);
  }
  await git(['sparse-checkout', 'set', '--no-cone', ...sparse], tree);
  await git(['fetch', '-q', '--depth', '1', '--filter=blob:none', '--no-tags', 'origin', src.ref], tree);
  await git(['checkout', '-q', '--detach', 'FETCH_HEAD'], tree);
  return git(['rev-parse', 'HEAD'], tree);
}

function unreachable(src: GitSource, err: unknown, haveCopy: boolean): Diagnostic {
  return {
    code: 'source-unreachable',
    severity: haveCopy ? 'warning' : 'error',
    stage: 'sources',
    source: src.id,
    message: `cannot fetch ${src.url} (${src.ref}): ${gitError(err)}`,
    hint: haveCopy
      ? 'the earlier copy is used (status stale); check the URL, network and credentials, then run `nnblocks sources` again'
      : 'check the URL, network and credentials (`git ls-remote <url>` must work without a prompt); pin `ref` to a commit and build once online to work offline later',
  };
}

/** Brings `<dir>/tree` to `src.ref`; `prev` is what the last successful run recorded. */
export async function syncGit(src: GitSource, dir: string, prev: GitState | undefined): Promise<GitOutcome> {
  const tree = join(dir, 'tree');
  const sparse = sparsePatterns(src.include);
  const sameSparse = (s: GitState) => s.sparse.join('\n') === sparse.join('\n');
  const copy = prev && prev.url === src.url && existsSync(join(tree, '.git')) ? prev : undefined;
  if (!copy && existsSync(tree)) rmSync(tree, { recursive: true, force: true }); // another URL, or a half-made copy

  let wanted: string | null = null;
  if (copy && isCommitSha(src.ref)) {
    wanted = src.ref; // a pinned commit: no network at all when we already have it
  } else if (copy) {
    try {
      wanted = await remoteCommit(src.url, src.ref);
    } catch (err) {
      return { status: 'stale', root: tree, state: copy, diagnostics: [unreachable(src, err, true)] };
    }
    if (!wanted) {
      return {
        status: 'stale',
        root: tree,
        state: copy,
        diagnostics: [
          {
            code: 'source-ref-missing',
            severity: 'warning',
            stage: 'sources',
            source: src.id,
            message: `${src.url} has no branch or tag "${src.ref}"`,
            hint: 'correct `ref` (branch, tag or 40-hex commit); the earlier copy is used meanwhile',
          },
        ],
      };
    }
  }
  if (copy && wanted === copy.commit) {
    if (sameSparse(copy)) return { status: 'unchanged', root: tree, state: copy, diagnostics: [] };
    try {
      // The includes changed: widen or narrow the checkout (a blobless copy fetches the new blobs lazily).
      await git(['sparse-checkout', 'set', '--no-cone', ...sparse], tree);
      return { status: 'updated', root: tree, state: { ...copy, ref: src.ref, sparse }, diagnostics: [] };
    } catch (err) {
      return { status: 'stale', root: tree, state: copy, diagnostics: [unreachable(src, err, true)] };
    }
  }

  // Fetch: into the existing copy when there is one, else into a fresh folder renamed into place when complete,
  // so an interrupted first fetch never looks like a usable copy.
  const target = copy ? tree : join(dir, `tree.partial-${process.pid}`);
  try {
    // Leftovers of first fetches killed earlier (any pid): this run holds the source's lock, so none is in use.
    if (!copy) for (const f of readdirSync(dir)) if (f.startsWith('tree.partial-')) rmSync(join(dir, f), RM_TREE);
    const commit = await fetchInto(target, src, sparse);
    if (!copy) renameSync(target, tree);
    return {
      status: copy ? 'updated' : 'fetched',
      root: tree,
      state: { url: src.url, ref: src.ref, commit, sparse },
      diagnostics: [],
    };
  } catch (err) {
    if (!copy) rmSync(target, { recursive: true, force: true });
    if (copy) {
      // A failed fetch may leave the old checkout in place; make sure it is the recorded commit.
      await git(['checkout', '-q', '--detach', copy.commit], tree).catch(() => undefined);
      return { status: 'stale', root: tree, state: copy, diagnostics: [unreachable(src, err, true)] };
    }
    return { status: 'failed', root: tree, diagnostics: [unreachable(src, err, false)] };
  }
}

const RM_TREE = { recursive: true, force: true } as const;

/** Commit, dirtiness and origin of a local folder that sits in a git checkout; null when it is not in one. */
export async function checkoutInfo(
  folder: string,
): Promise<{ commit?: string; dirty: boolean; origin?: string } | null> {
  try {
    await git(['rev-parse', '--show-toplevel'], folder);
  } catch {
    return null;
  }
  const commit = await git(['rev-parse', '--verify', '-q', 'HEAD'], folder).catch(() => undefined); // empty repo: no HEAD
  const dirty = (await git(['status', '--porcelain', '--', '.'], folder).catch(() => '')) !== '';
  const origin = await git(['remote', 'get-url', 'origin'], folder).catch(() => undefined);
  return { ...(commit ? { commit } : {}), dirty, ...(origin ? { origin } : {}) };
}
