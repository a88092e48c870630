// Sources with no public repository — a path source, and a git source cloned from a `file://` URL with no
// `repository` in the config — are cited as `local:<id>`: no `file://` URL and no folder of this machine reaches any
// catalog or site file, and the build warns, once per such source, with the fix (add "repository"). Given one, the
// source is cited by it and the warning goes.
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCatalog } from '../../pipeline/catalog/check-catalog.ts';
import { cli } from '../helpers/cli.ts';
import { gitRepo, py } from '../helpers/tree.ts';
import { fixtureCorpus } from './fixture.ts';

function filesBelow(dir: string): [string, string][] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => join(dir, entry))
    .filter((path) => statSync(path).isFile())
    .map((path) => [path.slice(dir.length + 1), readFileSync(path, 'latin1')]);
}

const MIRROR = {
  LICENSE: 'MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n',
  'mirrornet/__init__.py': '',
  'mirrornet/layers.py': py`
    import torch.nn as nn

    class Gate(nn.Module):
        """A gate (arXiv:1709.01507)."""
        def __init__(self, dim=8):
            super().__init__()
            self.fc = nn.Linear(dim, dim)
        def forward(self, x):
            return x * self.fc(x).sigmoid()
  `,
};

interface Built {
  code: number;
  out: string;
  err: string;
  catalog: string;
}

/** Builds a corpus of the fixture's path source and a git source cloned from `file://`, `repository` as given. */
async function build(repository: string | undefined, site?: string): Promise<Built & { mirror: string; tiny: string }> {
  const { config, root } = fixtureCorpus();
  const mirror = gitRepo(MIRROR).dir;
  const cfg = JSON.parse(readFileSync(config, 'utf8')) as { sources: object[] };
  cfg.sources.push({
    id: 'mirror',
    kind: 'git',
    url: `file://${mirror}`,
    ref: 'main',
    ...(repository ? { repository } : {}),
  });
  writeFileSync(config, JSON.stringify(cfg));
  const catalog = join(config, '..', 'catalog');
  const r = await cli(['build', '--config', config, '--no-validate', ...(site ? ['--site', site] : [])]);
  return { ...r, catalog, mirror, tiny: root };
}

describe('a git source cloned from file:// with no repository, beside a path source', () => {
  // Inside the project, as the site tests build theirs (docs/testing.md, "Site tests").
  const site = join(import.meta.dirname, '..', '..', 'test-artifacts', `local-sources-site-${process.pid}`);
  let b: Awaited<ReturnType<typeof build>>;
  beforeAll(async () => {
    b = await build(undefined, site);
  }, 300_000);
  afterAll(() => rmSync(site, { recursive: true, force: true }));

  it('warns once per source with no public repository, saying to add "repository"', () => {
    expect(b.code, b.err).toBe(0);
    for (const id of ['mirror', 'tiny']) {
      const lines = b.err.split('\n').filter((l) => l.includes(`no-public-repository [${id}]`));
      expect(lines, id).toHaveLength(1);
      expect(lines[0]).toContain(`cited as local:${id}`);
      expect(lines[0]).toContain(`add "repository": "https://<host>/<owner>/<repo>"`);
    }
  });

  it('cites the git source as local:<id>, its permalink and SWHID without the clone URL', () => {
    const sources = JSON.parse(readFileSync(join(b.catalog, 'sources.json'), 'utf8')) as {
      sources: { id: string; repository: string }[];
    };
    expect(sources.sources.map((s) => [s.id, s.repository])).toEqual([
      ['mirror', 'local:mirror'],
      ['tiny', 'local:tiny'],
    ]);
    const spec = JSON.parse(readFileSync(join(b.catalog, 'blocks', 'mirror.mirrornet.layers.gate.json'), 'utf8'));
    expect(spec.provenance.repository).toBe('local:mirror');
    expect(spec.provenance.permalink).toMatch(/^local:mirror@[0-9a-f]{40}\/mirrornet\/layers\.py#L\d+-L\d+$/);
    expect(spec.provenance.swhidQualified).not.toContain('origin=');
    expect(spec.citation.bibtex).toContain('author = {{mirror contributors}}');
    expect(checkCatalog(b.catalog).errors).toEqual([]);
  });

  it('publishes no file:// URL and no folder of this machine, in the catalog or the site', () => {
    const here = [b.mirror, b.tiny, resolve(b.catalog, '..'), resolve(import.meta.dirname, '..', '..')];
    const leaks = [...filesBelow(b.catalog), ...filesBelow(site)].flatMap(([name, text]) => [
      ...(text.includes('file://') ? [`${name}: file://`] : []),
      ...here.filter((p) => text.includes(p)).map((p) => `${name}: ${p}`),
    ]);
    expect(leaks).toEqual([]);
    expect(filesBelow(site).some(([name]) => name.endsWith('index.html'))).toBe(true);
  });
});

describe('the same git source with its public repository', () => {
  it('is cited by it, and only the path source is warned about', async () => {
    const b = await build('https://github.com/example/mirrornet');
    expect(b.code, b.err).toBe(0);
    expect(b.err).not.toContain('no-public-repository [mirror]');
    expect(b.err).toContain('no-public-repository [tiny]');
    const spec = JSON.parse(readFileSync(join(b.catalog, 'blocks', 'mirror.mirrornet.layers.gate.json'), 'utf8'));
    expect(spec.provenance.repository).toBe('https://github.com/example/mirrornet');
    expect(spec.provenance.permalink).toMatch(
      /^https:\/\/github\.com\/example\/mirrornet\/blob\/[0-9a-f]{40}\/mirrornet\/layers\.py#L\d+-L\d+$/,
    );
  }, 300_000);
});
