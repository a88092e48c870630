// Credentials in a source URL (`https://user:token@host/r`): used to fetch, never stored, published or printed —
// not in the catalog (sources.json, provenance, citations), the cache (state.json, the copy's .git/config, the index)
// nor the command's output; a url-credentials warning says so.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactCredentials, stripCredentials } from '../../pipeline/sources/url.ts';
import { gitRepo, py, tempDir, writeTree } from '../helpers/tree.ts';
import { cli } from '../helpers/cli.ts';

/** Every file under `dir`, as latin1 text: a secret shows as its bytes in binary files (SQLite, git's index) too. */
function allFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) out.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'latin1'));
  return out;
}

describe('credentials in a source URL', () => {
  it('a file:// URL with user:token@ fetches and builds; the token is in no file written and no output', async () => {
    const token = `tok${Math.random().toString(36).slice(2)}`;
    const repo = gitRepo({
      LICENSE: 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n',
      'tinynet/__init__.py': '',
      'tinynet/blocks.py': py`
        import torch.nn as nn
        class Proj(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
            def forward(self, x):
                return self.proj(x)
      `,
    });
    const dir = tempDir('nnb-proj-');
    const cacheDir = join(dir, 'cache');
    const catalog = join(dir, 'catalog');
    const url = `file://user:${token}@${repo.dir}`;
    writeTree(
      {
        'corpus.json': JSON.stringify({
          name: 't',
          cacheDir,
          sources: [{ id: 'tiny', kind: 'git', url, ref: 'main' }],
        }),
      },
      dir,
    );
    const config = join(dir, 'corpus.json');

    const sources = await cli(['sources', '--config', config]);
    expect(sources.code, sources.err).toBe(0);
    const build = await cli(['build', '--config', config, '--out', catalog, '--json']);
    expect(build.code, build.err).toBe(0);
    for (const text of [sources.out, sources.err, build.out, build.err]) expect(text).not.toContain(token);

    const written = new Map([...allFiles(cacheDir), ...allFiles(catalog)]);
    expect([...written.keys()].some((f) => f.endsWith(join('tree', '.git', 'config')))).toBe(true);
    expect([...written.keys()].some((f) => f.endsWith('sources.json'))).toBe(true);
    for (const [file, text] of written) expect(text.includes(token), file).toBe(false);
    expect(sources.err).toMatch(/warning url-credentials \[tiny\]: the url of source "tiny" carries credentials/);

    const published = JSON.parse(readFileSync(join(catalog, 'sources.json'), 'utf8'));
    // A local clone has no public address: named by its id, never its folder (test/build/outputs.test.ts).
    expect(published.sources[0].repository).toBe('local:tiny');
    const blocks = readdirSync(join(catalog, 'blocks'));
    expect(blocks.length).toBeGreaterThan(0);
    const spec = JSON.parse(readFileSync(join(catalog, 'blocks', blocks[0]), 'utf8'));
    expect(spec.provenance.repository).toBe('local:tiny');
  });
});

describe('stripping credentials', () => {
  // Each case: the URL as configured → what may be stored. ssh names a login (kept), never a password.
  const cases: [string, string][] = [
    ['https://user:ghp_secret@github.com/o/r.git', 'https://github.com/o/r.git'],
    ['https://ghp_secret@github.com/o/r', 'https://github.com/o/r'], // a token alone as the user name
    ['https://u:p@ss@host.org/r', 'https://host.org/r'], // an unescaped @ in the password goes whole
    ['file://user:tok@/srv/r', 'file:///srv/r'],
    ['ssh://git@github.com/o/r', 'ssh://git@github.com/o/r'],
    ['ssh://git:pw@github.com/o/r', 'ssh://git@github.com/o/r'],
    ['git@github.com:o/r.git', 'git@github.com:o/r.git'], // scp-like: a login, no place for a password
    ['https://github.com/o/r?x=a@b', 'https://github.com/o/r?x=a@b'], // an @ after the host is no userinfo
  ];
  for (const [given, stored] of cases)
    it(`${given} → ${stored}`, () => {
      expect(stripCredentials(given)).toEqual({ url: stored, stripped: stored !== given });
    });

  it('git messages quoting a URL lose its credentials', () => {
    expect(redactCredentials("fatal: unable to access 'https://u:tok@h.org/r/': 403")).toBe(
      "fatal: unable to access 'https://h.org/r/': 403",
    );
  });
});
