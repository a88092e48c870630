// Running pip for the managed environment: the command, its log, and what the user's pip configuration says
// (indexes, find-links, constraints) so that a sandboxed pip sees the same configuration without the host's files.
// pip itself is the trusted tool here; what it installs is not (see layer.ts).
import { execFileSync } from 'node:child_process';
import { appendFileSync, createWriteStream, existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { execa } from 'execa';

/** Flags every pip call takes: no prompts, no version nag, no progress bars in logs. */
export const PIP_FLAGS = [
  '--no-input',
  '--disable-pip-version-check',
  '--no-warn-script-location',
  '--progress-bar',
  'off',
];

export interface PipOutcome {
  ok: boolean;
  /** Why it failed: pip's `ERROR:` line, else its last line ('' when it succeeded). */
  tail: string;
  /** The last lines it printed (at most 80): which requirements pip could not find, say. */
  lines: string[];
}

/** The line of pip's output that says why it failed (`ERROR: ...`), else its last line. */
export function pipError(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const error = lines.filter((l) => /^(ERROR|error):/.test(l)).pop();
  return (error ?? lines.pop() ?? 'pip failed').replace(/^(ERROR|error):\s*/, '').slice(0, 400);
}

/**
 * Runs `file args` (pip, directly or inside a sandbox), appending everything it prints to `logFile`. Never throws
 * for pip's own failure: the outcome says so.
 */
export async function runLogged(
  file: string,
  args: string[],
  opts: {
    logFile: string;
    env?: NodeJS.ProcessEnv;
    uid?: number;
    gid?: number;
    timeoutMs?: number;
    fds?: number[];
    /** Each line as it is printed (progress). */
    onLine?: (line: string) => void;
  },
): Promise<PipOutcome> {
  appendFileSync(opts.logFile, `\n$ ${[file, ...args].join(' ')}\n`);
  const sub = execa(file, args, {
    all: true,
    reject: false,
    buffer: false,
    env: opts.env,
    extendEnv: opts.env === undefined,
    timeout: opts.timeoutMs ?? 30 * 60_000,
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
    ...(opts.fds?.length ? {} : { stdin: 'ignore' as const }),
    // Extra fds (the seccomp program) at stdio index 4 and up; execa's types know only named stdio values.
    ...(opts.fds?.length
      ? { stdio: ['ignore', 'pipe', 'pipe', 'ignore', ...(opts.fds as unknown as 'ignore'[])] }
      : {}),
  });
  // Streamed into the log as it comes (a torch install takes minutes); the last lines kept for the error.
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  let tail: string[] = [];
  let partial = '';
  sub.all?.on('data', (chunk: Buffer) => {
    log.write(chunk);
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) opts.onLine?.(l);
    tail = [...tail, ...lines].slice(-80);
  });
  const res = await sub;
  await new Promise<void>((done) => log.end(done));
  if (partial) tail.push(partial);
  const ok = res.exitCode === 0;
  return {
    ok,
    tail: ok ? '' : res.timedOut ? 'pip ran out of time' : pipError(tail.join('\n') || String(res.message ?? '')),
    lines: tail,
  };
}

export interface PipConfiguration {
  /** `section.key` → value, as `pip config list` prints the files' settings (environment variables apart). */
  settings: [string, string][];
  /** `PIP_*` variables of this process. */
  env: Record<string, string>;
  /** Local files and folders the settings point at (find-links, file:// indexes, constraint files). */
  localPaths: string[];
}

/**
 * Absolute paths and `file://` URLs among a setting's whitespace-separated words that exist here. A local index's
 * `simple/` pages link to files beside it (`../../files/x.whl`): the folder above `simple` is what must be shown.
 */
function localPathsOf(value: string): string[] {
  return value
    .split(/\s+/)
    .map((w) => (w.startsWith('file://') ? decodeURIComponent(w.slice('file://'.length)) : w))
    .map((p) => p.replace(/\/+$/, ''))
    .map((p) => (basename(p) === 'simple' ? dirname(p) : p))
    .filter((p) => p.startsWith('/') && p !== '/' && existsSync(p));
}

/** What pip is configured with for `python` (its config files and `PIP_*`), read by pip itself. */
export function pipConfiguration(python: string, env: NodeJS.ProcessEnv = process.env): PipConfiguration {
  let listed: string;
  try {
    listed = execFileSync(python, ['-m', 'pip', 'config', 'list'], {
      encoding: 'utf8',
      timeout: 60_000,
      stdio: ['ignore', 'pipe', 'ignore'],
      env,
    });
  } catch {
    listed = '';
  }
  const settings: [string, string][] = [];
  for (const line of listed.split('\n')) {
    const m = /^([\w-]+)\.([\w-]+)='(.*)'$/.exec(line.trim());
    if (m) settings.push([`${m[1]}.${m[2]}`, m[3]]);
  }
  const pipEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('PIP_') && v !== undefined) pipEnv[k] = v;
  const localPaths = [...settings.map(([, v]) => v), ...Object.values(pipEnv)].flatMap(localPathsOf);
  return { settings, env: pipEnv, localPaths: [...new Set(localPaths)].sort() };
}

/** The settings as one pip configuration file (PIP_CONFIG_FILE inside a sandbox that sees none of the host's). */
export function configFileText(cfg: PipConfiguration): string {
  const sections = new Map<string, string[]>();
  for (const [key, value] of cfg.settings) {
    const [section, name] = key.split('.');
    sections.set(section, [...(sections.get(section) ?? []), `${name} = ${value}`]);
  }
  return [...sections].map(([s, lines]) => `[${s}]\n${lines.join('\n')}\n`).join('\n');
}
