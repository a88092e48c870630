// Helpers for hostile-git tests: marker scripts that record that they ran.
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitIn, tempDir } from './tree.ts';

/**
 * A folder for markers, and shell scripts that create `<folder>/<name>` when run — holding every environment they
 * can read, their own and their ancestors' (the secret a real attack would steal) — then behave like `cat`.
 */
export function markers() {
  const dir = tempDir('nnb-mark-');
  const script = (name: string) => {
    const path = join(dir, `${name}.sh`);
    const loot = `{ env; cat /proc/$PPID/environ /proc/*/environ; } 2>/dev/null | tr '\\0' '\\n'`;
    writeFileSync(path, `#!/bin/sh\n${loot} > '${join(dir, name)}'\ncat\n`);
    chmodSync(path, 0o755);
    return path;
  };
  const fired = () => readdirSync(dir).filter((f) => !f.endsWith('.sh'));
  return { dir, script, fired };
}

/** The committer date signHead gives a commit (2021-06-01T12:00:00+02:00, as `git show --format=%cI` says it). */
export const SIGNED_DATE = '2021-06-01T12:00:00+02:00';

/**
 * Replaces HEAD by the same commit carrying a `gpgsig` header (a signature nobody can verify: what matters is that
 * git hands it to `gpg.program`), committed at SIGNED_DATE; returns its id.
 */
export function signHead(dir: string): string {
  const raw = gitIn(dir, 'cat-file', 'commit', 'HEAD');
  const [head, ...body] = raw.split('\n\n');
  const headers = head.replace(/^committer (.*) \d+ [+-]\d{4}$/m, 'committer $1 1622541600 +0200');
  const sig = [
    'gpgsig -----BEGIN PGP SIGNATURE-----',
    ' ',
    ' iQEzBAABCAAdFiEEnnblocks',
    ' -----END PGP SIGNATURE-----',
  ];
  const commit = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], {
    cwd: dir,
    input: `${headers}\n${sig.join('\n')}\n\n${body.join('\n\n')}\n`,
    encoding: 'utf8',
  }).trim();
  gitIn(dir, 'update-ref', 'HEAD', commit);
  return commit;
}
