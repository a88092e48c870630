// The paper's corpus offline: content/corpus.paper.json with each GitHub source read from its local mirror
// (`/work/.mirror/<owner>+<name>/repo`, a bare snapshot brought by the `fetch` tool) instead of the network. The
// public URL stays the source's `repository` (provenance, permalinks, the paper's per-repository figures) and the
// pinned commit its `ref`, so the catalog is the one the public config builds. Python sources (installed
// distributions) pass through unchanged. Derived, never written by hand, so it can't drift from the real config.
//   npx tsx test/bench/paper-corpus.ts [--cache DIR] > /tmp/paper.json   # the config, for a build by hand
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
export const PAPER_CONFIG = join(ROOT, 'content', 'corpus.paper.json');
/** Where the bare snapshots lie: `$NNBLOCKS_MIRRORS`, else the fetch tool's folder. */
export const MIRRORS = process.env.NNBLOCKS_MIRRORS ?? '/work/.mirror';

interface RawSource {
  id: string;
  kind: string;
  url?: string;
  ref?: string;
  repository?: string;
  [field: string]: unknown;
}

export interface MirroredCorpus {
  /** The config to write (JSON), `cacheDir` set as asked. */
  config: Record<string, unknown>;
  /** Git sources read from a mirror: id, public repository, commit. */
  mirrored: { id: string; repository: string; commit: string }[];
  /** Python sources: id and distribution (pinned by the config's environment). */
  distributions: { id: string; distribution: string }[];
  /** Git sources with no usable mirror, each with why (absent, or without the pinned commit). */
  missing: { id: string; why: string }[];
}

/** `https://github.com/owner/name(.git)` → the mirror's git directory, or null for a URL of another host. */
export function mirrorDir(url: string): string | null {
  const m = /^https:\/\/github\.com\/([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  return m ? join(MIRRORS, `${m[1]}+${m[2]}`, 'repo') : null;
}

/** Whether the bare repository at `dir` has `commit` (a pinned ref the clone will ask for). */
function hasCommit(dir: string, commit: string): boolean {
  try {
    execFileSync('git', ['--git-dir', dir, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Lets the clone ask the mirror for a blobless pack (`--filter=blob:none`). A snapshot lacks its largest blobs
 * (images, weights), and without the filter upload-pack must send every blob of the commit and dies on the first
 * one absent (yolov7, dino, segment-anything on a fresh machine: `git-pack-objects died`).
 */
function allowFilter(dir: string): void {
  execFileSync('git', ['--git-dir', dir, 'config', 'uploadpack.allowFilter', 'true'], { stdio: 'ignore' });
}

/** content/corpus.paper.json with every GitHub source pointed at its mirror; `cacheDir` as given. */
export function paperMirrorsConfig(cacheDir: string): MirroredCorpus {
  const { $schema: _schema, ...base } = JSON.parse(readFileSync(PAPER_CONFIG, 'utf8')) as Record<string, unknown> & {
    sources: RawSource[];
    name: string;
  };
  const mirrored: MirroredCorpus['mirrored'] = [];
  const distributions: MirroredCorpus['distributions'] = [];
  const missing: MirroredCorpus['missing'] = [];
  const sources = base.sources.map((s) => {
    if (s.kind === 'python') distributions.push({ id: s.id, distribution: String(s.distribution) });
    if (s.kind !== 'git' || !s.url || !s.ref) return s;
    const dir = mirrorDir(s.url);
    const repository = s.url.replace(/\.git$/, '');
    if (!dir || !existsSync(dir)) {
      missing.push({ id: s.id, why: `no mirror of ${repository} at ${dir ?? '(not a GitHub URL)'}` });
      return s;
    }
    if (!hasCommit(dir, s.ref)) {
      missing.push({ id: s.id, why: `the mirror ${dir} lacks the pinned commit ${s.ref}` });
      return s;
    }
    allowFilter(dir);
    mirrored.push({ id: s.id, repository, commit: s.ref });
    return { ...s, url: `file://${dir}`, repository };
  });
  return {
    config: { ...base, name: `${base.name}, from local mirrors`, cacheDir, sources },
    mirrored,
    distributions,
    missing,
  };
}

// Run directly: print the config (and what is missing, on stderr).
if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const at = process.argv.indexOf('--cache');
  const m = paperMirrorsConfig(at > 0 ? process.argv[at + 1] : '.nnblocks-paper-mirrors');
  for (const x of m.missing) process.stderr.write(`paper-corpus: ${x.id}: ${x.why}\n`);
  process.stdout.write(JSON.stringify(m.config, null, 2) + '\n');
}
