// The one place git is spawned. A source's repository is hostile: its own config (a `path` source's .git/config, or
// a cache copy someone planted things in) must never make git run a command, and git gets no secret of ours.
// See docs/sources.md ("Hostile sources").
//
// Git reads only configuration nnblocks wrote. Git has no switch to ignore a repository's config, so git never
// finds a repository by itself: every call names its git dir (`--git-dir`), which is one whose config we wrote
// from scratch — a git source's cached copy (git.ts rewrites it before every use) or the private view of a local
// checkout that git-checkout.ts assembles — or `/dev/null` for commands that need none (ls-remote), which holds no
// config at all. System and global config are off (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null), and the
// overrides below come last, over whatever config git did read.
//
// Why execFile and not the simple-git package: simple-git's guard (`@simple-git/argv-parser`) refuses any call
// that *sets* core.hooksPath, core.fsmonitor, credential.helper, core.askPass, the editors, GIT_CONFIG_GLOBAL,
// GIT_CONFIG_COUNT, GIT_ASKPASS, SSH_ASKPASS, GIT_SSH_COMMAND, GIT_PROXY_COMMAND or GIT_PAGER — it cannot tell a
// value that disarms a key from one that arms it — so every setting below would need its `unsafe` switch turned
// on, leaving its guard off for exactly the keys it exists to watch. Its timeout is one of inactivity, its output
// is unbounded and its errors fold stderr into the message; what is left is a spawn without a shell, which
// execFile already is.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { redactCredentials } from './url.ts';

const exec = promisify(execFile);

// Overrides given on the command line, which git reads after every config file, so they win over the repo's.
const HARDENED = [
  '--no-pager', // core.pager / pager.* would name a command
  '--no-optional-locks', // `status` may not rewrite the index (a post-index-change hook, an fsmonitor refresh)
  ...['-c', 'core.hooksPath=/dev/null'], // no hook runs: /dev/null/<hook> never exists
  ...['-c', 'core.fsmonitor=false'], // core.fsmonitor may name a program that git runs on every status
  ...['-c', 'credential.helper='], // the empty value clears every helper configured so far, URL-scoped ones too
  ...['-c', 'core.askPass='],
  ...['-c', 'core.editor=true', '-c', 'sequence.editor=true'],
  ...['-c', 'submodule.recurse=false', '-c', 'fetch.recurseSubmodules=false'], // a submodule has its own config
  ...['-c', 'gc.auto=0', '-c', 'maintenance.auto=false'], // no background gc spawned after a fetch
  ...['-c', 'advice.detachedHead=false'],
  ...['-c', 'log.showSignature=false'], // `show` would hand a signed commit to gpg.program (belt: no config sets it)
];

// Parent variables git may see: what it needs to find programs and reach a server. No tokens, no GIT_* of the parent
// (GIT_DIR, GIT_CONFIG_*, GIT_EXTERNAL_DIFF...), nothing else.
const PASSED = [
  'PATH',
  'HOME', // ~/.netrc for https and ~/.ssh for ssh
  'TMPDIR',
  'SSH_AUTH_SOCK',
  'GIT_SSH_COMMAND', // the user's own choice of ssh key, from their environment, never the repo's
  ...['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'],
  ...['SSL_CERT_FILE', 'SSL_CERT_DIR', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH'],
];

function gitEnv(config: [string, string][]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of PASSED) if (process.env[k] !== undefined) env[k] = process.env[k];
  Object.assign(env, {
    LC_ALL: 'C', // git's messages are parsed and shown as they are
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0', // an auth prompt would hang a build; fail instead
    // Empty, not unset: git then skips core.askPass and SSH_ASKPASS altogether.
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_SSH_COMMAND: env.GIT_SSH_COMMAND ?? 'ssh -o BatchMode=yes', // wins over core.sshCommand
    GIT_PROXY_COMMAND: '', // wins over core.gitProxy (which keeps the first value it reads)
    GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh', // never ext:: (a URL that is a command) nor a remote helper
    GIT_EDITOR: 'true',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_LFS_SKIP_SMUDGE: '1', // weights tracked with LFS stay pointers
    GIT_NO_REPLACE_OBJECTS: '1', // refs/replace/* may not swap one commit or tree for another
  });
  // Per-call config through the environment: keys and values travel apart, so no `=` in a filter's name or a URL
  // can split them the way `-c key=value` would, and nothing lands on the command line.
  if (config.length) {
    env.GIT_CONFIG_COUNT = String(config.length);
    config.forEach(([k, v], i) => {
      env[`GIT_CONFIG_KEY_${i}`] = k;
      env[`GIT_CONFIG_VALUE_${i}`] = v;
    });
  }
  return env;
}

export interface GitCall {
  /**
   * The repository's git dir: one whose config nnblocks wrote (see the header). Default `/dev/null`, for commands
   * that need no repository: no git dir, no config, and no repository around the working directory is looked for.
   */
  gitDir?: string;
  /** The work tree of `gitDir` (never taken from its config: `core.worktree` could point anywhere). */
  workTree?: string;
  /** Working directory (default `/`): where pathspecs are relative to, inside `workTree`. */
  cwd?: string;
  /** Extra config for this call only (never written anywhere): filter overrides, a credentials rewrite. */
  config?: [string, string][];
  timeoutMs?: number;
}

/** Runs git hardened; resolves to its trimmed stdout, rejects with execFile's error (stderr attached). */
export async function runGit(args: string[], call: GitCall = {}): Promise<string> {
  const repo = [`--git-dir=${call.gitDir ?? '/dev/null'}`, ...(call.workTree ? [`--work-tree=${call.workTree}`] : [])];
  const { stdout } = await exec('git', [...repo, ...HARDENED, ...args], {
    cwd: call.cwd ?? '/',
    env: gitEnv(call.config ?? []),
    maxBuffer: 64 * 1024 * 1024,
    timeout: call.timeoutMs ?? 15 * 60_000,
  });
  return stdout.trim();
}

/** git's own words for a failure: the `fatal:`/`error:` lines of stderr, else the last line; credentials removed. */
export function gitError(err: unknown): string {
  const e = err as { stderr?: string; message: string };
  const lines = (e.stderr ?? e.message)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const fatal = lines.filter((l) => /^(fatal|error|ssh):/i.test(l));
  return redactCredentials((fatal.length ? fatal : lines.slice(-1)).join(' '));
}
