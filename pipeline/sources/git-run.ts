// The one place git is spawned. A source's repository is hostile: its own config (a `path` source's .git/config, or
// a cache copy someone planted things in) must never make git run a command, and git gets no secret of ours.
// See docs/sources.md ("Hostile sources").
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
  /** Working directory; default `/`, so a command that needs no repository never discovers one around us. */
  cwd?: string;
  /** Extra config for this call only (never written anywhere): filter overrides, a credentials rewrite. */
  config?: [string, string][];
  timeoutMs?: number;
}

/** Runs git hardened; resolves to its trimmed stdout, rejects with execFile's error (stderr attached). */
export async function runGit(args: string[], call: GitCall = {}): Promise<string> {
  const { stdout } = await exec('git', [...HARDENED, ...args], {
    cwd: call.cwd ?? '/',
    env: gitEnv(call.config ?? []),
    maxBuffer: 64 * 1024 * 1024,
    timeout: call.timeoutMs ?? 15 * 60_000,
  });
  return stdout.trim();
}

/**
 * Config that disarms every filter driver the repository's config defines: a `.gitattributes` line
 * `*.py filter=x` makes `git status` pipe files through `filter.x.clean`, a command of the repo's choosing.
 * Listing config reads files and runs nothing; the empty commands and `required=false` make git use the file as is.
 */
export async function disarmFilters(cwd: string): Promise<[string, string][]> {
  const names = await runGit(['config', '--list', '--name-only', '-z'], { cwd, timeoutMs: 60_000 }).catch(() => '');
  const drivers = new Set<string>();
  for (const key of names.split('\0')) {
    const m = /^filter\.(.+)\.[^.]+$/s.exec(key);
    if (m) drivers.add(m[1]);
  }
  return [...drivers].flatMap((d): [string, string][] => [
    [`filter.${d}.clean`, ''],
    [`filter.${d}.smudge`, ''],
    [`filter.${d}.process`, ''],
    [`filter.${d}.required`, 'false'],
  ]);
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
