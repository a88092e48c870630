// What a `path` source's git checkout says about itself — commit, committer date, dirtiness, origin URL — read
// without git ever reading the checkout's own configuration. See docs/sources.md ("Hostile sources").
//
// A checkout we did not make is hostile, and every key of its config can name a program git runs: `gpg.program`
// under `log.showSignature` (run by `git show` as root on the host, with our environment in /proc), `core.fsmonitor`,
// `core.pager`, `diff.external`, `core.sshCommand`, a promisor remote's `uploadpack` (run to fetch a missing
// object lazily), filters; `include.path`/`includeIf` pull in more, `core.worktree` points git elsewhere, and a
// `.git` *file* names a repository anywhere. Git has no switch to ignore a repository's config, so git is never
// shown the checkout's git dir. We assemble a private one instead and run git against it with `--git-dir=<private>
// --work-tree=<checkout>`:
//
// - `HEAD`: the commit id, resolved here from the checkout's HEAD, loose refs and packed-refs (read as bounded
//   regular files; ref names checked, so `ref: ../../x` leads nowhere). No refs are copied: nor `refs/replace`.
// - `objects/info/alternates`: one line naming the checkout's objects folder. Git reads objects from there and
//   writes none (nothing we run writes).
// - `index` (and a split index's `sharedindex.*`): copied with its mtime, so `status` compares stat data as the
//   checkout's own git would, without re-hashing every file (and re-reading the racily clean ones); `info/exclude`:
//   copied (ignore patterns, nothing runs).
// - `config`: ours. From the checkout's config, parsed with `git config --file <copy> --no-includes` (reading a
//   file runs nothing), only values that cannot name a program or a path are carried over, checked against a fixed
//   list: `extensions.objectFormat` (a sha256 repository), and `core.filemode`/`symlinks`/`ignorecase`/`autocrlf`/
//   `eol`, which decide whether a file counts as changed. `remote.origin.url` is read as data (the caller strips
//   credentials). Nothing else — no hooks, no `info/attributes`, no `extensions.partialClone`, no `core.worktree`.
//
// `safe.directory` is moot: a git dir named with `--git-dir` is not ownership-checked, and a repository's own
// `safe.directory` is ignored by git anyway. Submodules are not entered (`--ignore-submodules=all`: each has its
// own config). The folders holding the checkout's git data that lie inside the source are returned in `hidden`,
// so that the validation sandbox can leave them out: a `.git` holds the origin URL, credentials and all.
import {
  closeSync,
  constants,
  fstatSync,
  futimesSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runGit, type GitCall } from './git-run.ts';
import { commitDateOf } from './git.ts';
import { readUpstreamText } from './read-upstream.ts';

export interface CheckoutInfo {
  commit?: string;
  commitDate?: string;
  /** Uncommitted changes under the folder (untracked files included). */
  dirty: boolean;
  /** `remote.origin.url` as the config has it, credentials included: the caller strips them. */
  origin?: string;
  /** The checkout's git data inside the folder (its `.git`, a `.git` file's target), relative to it. */
  hidden: string[];
}

/** Where a checkout's git data is: the work tree top, its `.git` entry, its git dir and common dir (real paths). */
interface Found {
  top: string;
  dotGit: string;
  gitDir: string;
  commonDir: string;
}

const SMALL = 64 * 1024; // HEAD, a loose ref, a .git file, commondir
const CONFIG_BYTES = 1 << 20;
const PACKED_REFS_BYTES = 64 << 20;
const INDEX_BYTES = 512 << 20;

/** Commit, date, dirtiness and origin of a folder in a git checkout; null when it is in none. */
export async function checkoutInfo(folder: string): Promise<CheckoutInfo | null> {
  let root: string;
  try {
    root = realpathSync(folder);
  } catch {
    return null;
  }
  const found = findCheckout(root);
  if (!found) return null;
  const priv = mkdtempSync(join(tmpdir(), 'nnb-git-view-'));
  try {
    const upstream = await upstreamConfig(found, priv);
    const head = resolveHead(found);
    assemble(found, priv, upstream, head);
    const git: GitCall = { gitDir: priv, workTree: found.top, cwd: root, timeoutMs: 60_000 };
    const commit = head
      ? await runGit(['rev-parse', '--verify', '-q', `${head}^{commit}`], git).catch(() => undefined)
      : undefined;
    const status = ['status', '--porcelain', '--ignore-submodules=all', '--', '.'];
    // A status git cannot take (an index it cannot read) counts as dirty: no commit can be vouched for then.
    const dirty = (await runGit(status, git).catch(() => '?')) !== '';
    const commitDate = commit ? await commitDateOf(commit, git) : undefined;
    return {
      ...(commit ? { commit } : {}),
      ...(commitDate ? { commitDate } : {}),
      dirty,
      ...(upstream.origin ? { origin: upstream.origin } : {}),
      hidden: hiddenIn(root, found),
    };
  } finally {
    rmSync(priv, { recursive: true, force: true });
  }
}

/**
 * The nearest `.git` at or above `root`, as git looks for it: a folder (or a link to one), or a file saying
 * `gitdir: <path>` (linked worktrees, submodules). Only a git dir with a HEAD, objects and refs counts (a stray
 * empty `.git` is passed over, as git does); a `commondir` file names where refs and objects live.
 */
function findCheckout(root: string): Found | null {
  for (let dir = root; ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git');
    const gitDir = gitDirOf(dotGit);
    const commonDir = gitDir && commonDirOf(gitDir);
    if (gitDir && commonDir) return { top: dir, dotGit, gitDir, commonDir };
    if (dirname(dir) === dir) return null;
  }
}

function gitDirOf(dotGit: string): string | null {
  let st;
  try {
    st = lstatSync(dotGit);
  } catch {
    return null;
  }
  let target = dotGit;
  if (st.isFile()) {
    const read = readUpstreamText(dotGit, SMALL);
    const m = read.ok ? /^gitdir: *(.+?)\r?$/m.exec(read.text) : null;
    if (!m) return null;
    target = resolve(dirname(dotGit), m[1]);
  }
  return realDir(target) && isFile(join(target, 'HEAD')) ? realpathSync(target) : null;
}

/** The git dir itself, or the folder its `commondir` file names (a linked worktree's main repository). */
function commonDirOf(gitDir: string): string | null {
  let common = gitDir;
  if (isFile(join(gitDir, 'commondir'))) {
    const read = readUpstreamText(join(gitDir, 'commondir'), SMALL);
    if (!read.ok) return null;
    common = resolve(gitDir, read.text.trim());
  }
  if (!realDir(join(common, 'objects')) || !realDir(join(common, 'refs'))) return null;
  return realpathSync(common);
}

type Upstream = { origin?: string; objectFormat?: 'sha256'; core: [string, string][] };

// Carried over from the checkout's config: each value checked against what git itself accepts for it.
const BOOL = /^(true|false|yes|no|on|off|1|0)$/i;
const CARRIED: Record<string, RegExp> = {
  'core.filemode': BOOL,
  'core.symlinks': BOOL,
  'core.ignorecase': BOOL,
  'core.autocrlf': /^(true|false|input|yes|no|on|off|1|0)$/i,
  'core.eol': /^(lf|crlf|native)$/i,
};

/** The few values of the checkout's config we use, parsed by git from a copy of the file, includes not followed. */
async function upstreamConfig(found: Found, priv: string): Promise<Upstream> {
  const read = readUpstreamText(join(found.commonDir, 'config'), CONFIG_BYTES);
  const out: Upstream = { core: [] };
  if (!read.ok || read.truncated) return out;
  const copy = join(priv, 'upstream.config'); // never read as a repository's config: only with --file
  writeFileSync(copy, read.text, { flag: 'wx' });
  const list = await runGit(['config', '--file', copy, '--no-includes', '--null', '--list'], { timeoutMs: 60_000 })
    .then((text) => text.split('\0'))
    .catch(() => [] as string[]);
  for (const entry of list) {
    const nl = entry.indexOf('\n');
    if (nl < 0) continue;
    const key = entry.slice(0, nl).toLowerCase();
    const value = entry.slice(nl + 1);
    if (key === 'remote.origin.url')
      out.origin = value; // the last one wins, as in git
    else if (key === 'extensions.objectformat' && value.toLowerCase() === 'sha256') out.objectFormat = 'sha256';
    else if (CARRIED[key]?.test(value)) out.core.push([key.slice('core.'.length), value.toLowerCase()]);
  }
  return out;
}

const OID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A ref name that stays below `refs/` when made a path: no empty, `.`-led or `.lock` component (so no `..`), no
 * control character, space or character git forbids in ref names.
 */
function safeRefName(name: string): boolean {
  return (
    /^refs\/[^\0-\x20\x7f~^:?*[\\]+$/.test(name) &&
    name.split('/').every((c) => c !== '' && !c.startsWith('.') && !c.endsWith('.lock'))
  );
}

/** The commit HEAD names: a detached id, or a branch followed through loose refs and packed-refs (5 hops). */
function resolveHead(found: Found): string | undefined {
  let text = readSmall(join(found.gitDir, 'HEAD'));
  for (let hop = 0; hop < 5 && text !== undefined; hop++) {
    if (OID.test(text)) return text;
    const m = /^ref: *(\S+)$/.exec(text);
    if (!m || !safeRefName(m[1])) return undefined;
    // Per-worktree refs live in the worktree's git dir, the rest in the common dir (as git lays them out).
    const own = /^refs\/(bisect|worktree|rewritten)\//.test(m[1]);
    text = readSmall(join(own ? found.gitDir : found.commonDir, m[1])) ?? packedRef(found.commonDir, m[1]);
  }
  return undefined;
}

function readSmall(path: string): string | undefined {
  const read = readUpstreamText(path, SMALL);
  return read.ok && !read.truncated ? read.text.trim() : undefined;
}

function packedRef(commonDir: string, name: string): string | undefined {
  const read = readUpstreamText(join(commonDir, 'packed-refs'), PACKED_REFS_BYTES);
  if (!read.ok || read.truncated) return undefined;
  for (const line of read.text.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0 && line.slice(sp + 1).trimEnd() === name) return line.slice(0, sp);
  }
  return undefined;
}

/** Writes the private git dir: our config, HEAD, the alternates line, copies of the index and info/exclude. */
function assemble(found: Found, priv: string, upstream: Upstream, head: string | undefined): void {
  mkdirSync(join(priv, 'objects', 'info'), { recursive: true });
  mkdirSync(join(priv, 'refs'));
  mkdirSync(join(priv, 'info'));
  const objects = join(found.commonDir, 'objects');
  // One path a line: a path that would split (a newline) or read as quoted (a leading `"`) is not written.
  if (!/[\n\r]/.test(objects) && isAbsolute(objects))
    writeFileSync(join(priv, 'objects', 'info', 'alternates'), `${objects}\n`);
  const sha256 = upstream.objectFormat === 'sha256' || head?.length === 64;
  // Without a resolvable HEAD, an unborn branch: status still compares the index with the work tree.
  writeFileSync(join(priv, 'HEAD'), head ? `${head}\n` : 'ref: refs/heads/unborn\n');
  writeFileSync(
    join(priv, 'config'),
    [
      '[core]',
      `\trepositoryformatversion = ${sha256 ? 1 : 0}`,
      '\tbare = false',
      // The checkout's commit-graph and untracked cache are data git would trust over the objects and the tree.
      '\tcommitGraph = false',
      '\tuntrackedCache = false',
      ...upstream.core.map(([k, v]) => `\t${k} = ${v}`),
      ...(sha256 ? ['[extensions]', '\tobjectFormat = sha256'] : []),
      '',
    ].join('\n'),
  );
  copyRegular(join(found.gitDir, 'index'), join(priv, 'index'));
  for (const name of safeReaddir(found.gitDir))
    if (/^sharedindex\.[0-9a-f]{40,64}$/.test(name)) copyRegular(join(found.gitDir, name), join(priv, name));
  copyRegular(join(found.commonDir, 'info', 'exclude'), join(priv, 'info', 'exclude'));
}

/** Copies a regular file of at most INDEX_BYTES, never through a symlink; nothing when it is anything else. */
function copyRegular(from: string, to: string): void {
  let fd: number;
  try {
    if (!lstatSync(from).isFile()) return;
    fd = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return;
  }
  let out: number | undefined;
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > INDEX_BYTES) return;
    out = openSync(to, 'wx');
    const buf = Buffer.alloc(1 << 20);
    for (let total = 0; ;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0 || (total += n) > INDEX_BYTES) break;
      writeSync(out, buf, 0, n);
    }
    // The copy keeps the index's mtime: git re-reads a file whose mtime is not older than its index (racy git). A
    // copy dated now would vouch for a same-size file changed in the second it was committed. A Date (ms) rounds
    // down, never past the second git compares.
    futimesSync(out, st.atime, st.mtime);
  } catch {
    // An index that cannot be copied: status then reports the files as changed, which is the honest answer.
  } finally {
    closeSync(fd);
    if (out !== undefined) closeSync(out);
  }
}

/** The `.git` entry, git dir and common dir where they lie inside the source folder, relative to it. */
function hiddenIn(root: string, found: Found): string[] {
  const rel = (p: string) => relative(root, p);
  const inside = (p: string) => p !== root && p.startsWith(root.endsWith(sep) ? root : root + sep);
  const paths = [found.dotGit, found.gitDir, found.commonDir].filter(inside).map(rel);
  return [...new Set(paths)].sort();
}

function realDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
