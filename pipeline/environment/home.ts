// Where managed environments live: one folder per machine and user, shared by every corpus and cache folder
// (a torch environment is gigabytes; keyed by what is installed, never by who asked). Outside the project and,
// for root, outside root's 0700 home: the sandbox's uid must read the interpreter and its packages.
// See docs/config.md ("environment").
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * `$NNBLOCKS_ENV_HOME`, else for root `/var/cache/nnblocks/envs` (the sandbox runs as uid 65534, which can't
 * traverse /root), else `$XDG_CACHE_HOME/nnblocks/envs` or `~/.cache/nnblocks/envs` (a non-root user's sandbox
 * runs as that user).
 */
export function environmentHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NNBLOCKS_ENV_HOME) return resolve(env.NNBLOCKS_ENV_HOME);
  if (process.getuid?.() === 0) return '/var/cache/nnblocks/envs';
  return join(env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache'), 'nnblocks', 'envs');
}
