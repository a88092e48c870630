// The one place git is spawned, through simple-git. A source's repository is hostile: its own config (a `path`
// source's .git/config, or a cache copy someone planted things in) must never make git run a command, and git gets
// no secret of ours. See docs/sources.md ("Hostile sources").
//
// Git reads only configuration nnblocks wrote. Git has no switch to ignore a repository's config, so git never
// finds a repository by itself: every call names its git dir (`--git-dir`), which is one whose config we wrote
// from scratch — a git source's cached copy (git.ts rewrites it before every use) or the private view of a local
// checkout that git-checkout.ts assembles — or `/dev/null` for commands that need none (ls-remote), which holds no
// config at all. System and global config are off (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null), and the
// overrides below come last, over whatever config git did read.
//
// simple-git's own guard refuses a call that sets a dangerous key or variable (core.hooksPath, GIT_SSH_COMMAND...)
// unless its `unsafe` switch is on; it reads keys, not values, so the settings below that *disarm* those keys trip
// it too. Each switch we turn on is named beside the setting that needs it (UNSAFE_FOR_OURS); the rest of the guard
// (aliases, diff and merge programs, filters, gpg.program, protocol.*.allow, --upload-pack, template paths, the
// binary) stays on, so an argument that arms one of those is still refused before git starts.
import { vulnerabilityCheck, type VulnerabilityCategory } from '@simple-git/argv-parser';
import createDebug from 'debug';
import { GitError, simpleGit, type SimpleGitOptions } from 'simple-git';
import { redactCredentials } from './url.ts';

// simple-git's debug log prints each call's environment, where a credentialed URL's rewrite travels (see gitEnv):
// it stays off whatever DEBUG asks for, so no token reaches a terminal or a CI log.
if (createDebug.enabled('simple-git') || createDebug.enabled('simple-git:task')) {
  createDebug.enable(`${createDebug.disable()},-simple-git,-simple-git:*`);
}

// Overrides given on the command line (simple-git's `config` option prefixes each with `-c`), which git reads after
// every config file, so they win over the repo's.
const HARDENED_CONFIG = [
  'core.hooksPath=/dev/null', // no hook runs: /dev/null/<hook> never exists
  'core.fsmonitor=false', // core.fsmonitor may name a program that git runs on every status
  'credential.helper=', // the empty value clears every helper configured so far, URL-scoped ones too
  'core.askPass=',
  'core.editor=true',
  'sequence.editor=true',
  'submodule.recurse=false', // a submodule has its own config
  'fetch.recurseSubmodules=false',
  'gc.auto=0', // no background gc spawned after a fetch
  'maintenance.auto=false',
  'advice.detachedHead=false',
  'log.showSignature=false', // `show` would hand a signed commit to gpg.program (belt: no config sets it)
];

const HARDENED_FLAGS = [
  '--no-pager', // core.pager / pager.* would name a command
  '--no-optional-locks', // `status` may not rewrite the index (a post-index-change hook, an fsmonitor refresh)
];

// The guard's switches that our own disarming settings trip, and which setting trips each. Nothing else is allowed.
const UNSAFE_FOR_OURS: Partial<Record<VulnerabilityCategory, string>> = {
  allowUnsafeHooksPath: 'core.hooksPath=/dev/null',
  allowUnsafeFsMonitor: 'core.fsmonitor=false',
  allowUnsafeCredentialHelper: 'credential.helper= (empty)',
  allowUnsafeAskPass: 'core.askPass=, GIT_ASKPASS=, SSH_ASKPASS= (empty)',
  allowUnsafeEditor: 'core.editor, sequence.editor and GIT_EDITOR = true',
  allowUnsafePager: 'GIT_PAGER and PAGER = cat',
  allowUnsafeConfigPaths: 'GIT_CONFIG_GLOBAL=/dev/null',
  allowUnsafeSshCommand: 'GIT_SSH_COMMAND: the user’s own, else ssh -o BatchMode=yes',
  allowUnsafeGitProxy: 'GIT_PROXY_COMMAND= (empty)',
};

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

/** Per-call config as git's environment variables: keys and values apart (see gitEnv). */
function configEnv(config: [string, string][]): Record<string, string> {
  const env: Record<string, string> = {};
  if (!config.length) return env;
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

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
  // can split them the way `-c key=value` would, and nothing lands on the command line (which any user can read).
  return Object.assign(env, configEnv(config));
}

/**
 * The guard's switches one call needs beyond UNSAFE_FOR_OURS. `--template=` (empty: no templates, so no sample
 * hooks) trips the template guard by its name. A per-call key is only ever `url.<credentialed URL>.insteadOf`, and
 * the guard matches substrings of keys, so a URL that spells one (`…/alias-net` reads as `alias`) would be refused:
 * the switches that key alone trips are on for that call — it can configure nothing but a URL rewrite.
 */
function unsafeForCall(args: string[], config: [string, string][]): SimpleGitOptions['unsafe'] {
  const unsafe: Partial<Record<VulnerabilityCategory, boolean>> = {};
  for (const k of Object.keys(UNSAFE_FOR_OURS)) unsafe[k as VulnerabilityCategory] = true;
  if (args.includes('--template=')) unsafe.allowUnsafeTemplateDir = true;
  if (config.length) unsafe.allowUnsafeConfigEnvCount = true;
  for (const [key] of config) {
    if (!/^url\..+\.insteadof$/is.test(key)) throw new Error(`git-run: per-call config key ${key} is not a rewrite`);
  }
  for (const v of vulnerabilityCheck([], configEnv(config))) unsafe[v.category] = true;
  return unsafe;
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
  /** Extra config for this call only (never written anywhere): the credentials rewrite `url.<url>.insteadOf`. */
  config?: [string, string][];
  /** Wall-clock limit of the whole call (default 15 minutes); simple-git's own timeout only measures silence. */
  timeoutMs?: number;
}

/** Most bytes git may write to stdout, and to stderr: the rest of a runaway output is never kept in memory. */
const OUTPUT_CAP = 64 * 1024 * 1024;

/** A git call that failed: git's exit code and stderr, or why nnblocks stopped it (`stopped`). */
export class GitRunError extends GitError {
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | null,
    readonly stopped?: 'timeout' | 'output',
  ) {
    super(undefined, message);
  }
}

/** Runs git hardened; resolves to its trimmed stdout, rejects with a GitRunError (stderr attached). */
export async function runGit(args: string[], call: GitCall = {}): Promise<string> {
  const config = call.config ?? [];
  const timeoutMs = call.timeoutMs ?? 15 * 60_000;
  const abort = new AbortController();
  let stopped: GitRunError['stopped'];
  const stop = (why: NonNullable<typeof stopped>) => {
    stopped ??= why;
    abort.abort();
  };
  const git = simpleGit({
    baseDir: call.cwd ?? '/',
    config: HARDENED_CONFIG,
    unsafe: unsafeForCall(args, config),
    abort: abort.signal,
    // Every failure is one, with git's own stderr: simple-git alone treats an exit code without stderr as success
    // (`rev-parse --verify -q` of a missing commit) and folds stdout into the message.
    errors: (_error, { exitCode, stdErr }) => {
      if (!stopped && exitCode === 0) return undefined;
      const stderr = Buffer.concat(stdErr).toString('utf8');
      const why = stopped === 'timeout' ? `timed out after ${timeoutMs} ms` : stopped ? 'wrote too much' : undefined;
      return new GitRunError(
        why ? `git ${args[0]} ${why}` : stderr || `git exited ${exitCode}`,
        stderr,
        exitCode,
        stopped,
      );
    },
  })
    .env(gitEnv(config))
    .outputHandler((_command, stdout, stderr) => {
      for (const stream of [stdout, stderr]) {
        let bytes = 0;
        stream.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > OUTPUT_CAP) stop('output');
        });
      }
    });
  const repo = [`--git-dir=${call.gitDir ?? '/dev/null'}`, ...(call.workTree ? [`--work-tree=${call.workTree}`] : [])];
  // Started only now: simpleGit() throws at once for a working directory that does not exist, and a timer left
  // behind would hold the process open for the whole limit.
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  try {
    // simple-git waits 50 ms more after a call that wrote nothing (its completion plugin, no switch for it).
    return (await git.raw([...repo, ...HARDENED_FLAGS, ...args])).trim();
  } finally {
    clearTimeout(timer);
  }
}

/** git's own words for a failure: the `fatal:`/`error:` lines of stderr, else the last line; credentials removed. */
export function gitError(err: unknown): string {
  const e = err as { stderr?: string; message: string };
  const lines = (e.stderr || e.message)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const fatal = lines.filter((l) => /^(fatal|error|ssh):/i.test(l));
  return redactCredentials((fatal.length ? fatal : lines.slice(-1)).join(' '));
}
