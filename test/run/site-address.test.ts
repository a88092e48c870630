// Where a site is published, decided once (run/site-address.ts): `--base`, then the environment CI and the action
// set (NNBLOCKS_BASE, NNBLOCKS_SITE), then the config (`site.base`, `site.url`). The site a build makes and the
// change feed it writes beside the catalog use the same URL: the Atom links of a build point at its own site.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { siteAddress } from '../../pipeline/run/site-address.ts';
import { cli } from '../helpers/cli.ts';
import { withEnv } from '../helpers/path.ts';
import { tempDir } from '../helpers/tree.ts';
import { fixtureCorpus } from '../build/fixture.ts';

const CONFIG = { site: { base: '/from-config/', url: 'https://config.example' } };
const ENV = { NNBLOCKS_BASE: '/from-env/', NNBLOCKS_SITE: 'https://env.example' };

describe('siteAddress', () => {
  it.each([
    [
      '--base over the environment and the config',
      CONFIG,
      '/flag/',
      ENV,
      { base: '/flag/', url: 'https://env.example' },
    ],
    ['the environment over the config', CONFIG, undefined, ENV, { base: '/from-env/', url: 'https://env.example' }],
    [
      'the config without the environment',
      CONFIG,
      undefined,
      {},
      { base: '/from-config/', url: 'https://config.example' },
    ],
    ['the root and no URL when nothing says', {}, undefined, {}, { base: '/' }],
    // CI writes `NNBLOCKS_SITE=$url` with an empty url when none is set: that says nothing.
    [
      'an empty NNBLOCKS_SITE says nothing',
      CONFIG,
      undefined,
      { NNBLOCKS_SITE: '' },
      { base: '/from-config/', url: 'https://config.example' },
    ],
  ])('%s', (_, config, base, env, want) => {
    expect(siteAddress(config, base, env)).toEqual(want);
  });
});

describe('the change feed a build writes', () => {
  /** A fixture corpus whose config publishes at `url`, built without validation; its changes.atom. */
  async function atomOf(url: string | undefined): Promise<string> {
    const { config } = fixtureCorpus();
    const text = JSON.parse(readFileSync(config, 'utf8')) as Record<string, unknown>;
    writeFileSync(config, JSON.stringify({ ...text, ...(url ? { site: { url } } : {}) }));
    const out = tempDir('nnb-cat-');
    const r = await cli(['build', '--config', config, '--out', out, '--no-validate', '--json']);
    expect(r.code, r.err).toBe(0);
    return readFileSync(join(out, 'changes.atom'), 'utf8');
  }

  it('links to the site’s URL: NNBLOCKS_SITE over config site.url, as the site itself', async () => {
    const fromConfig = await withEnv('NNBLOCKS_SITE', undefined, () => atomOf('https://config.example/'));
    expect(fromConfig).toContain('href="https://config.example/');
    const fromEnv = await withEnv('NNBLOCKS_SITE', 'https://env.example/', () => atomOf('https://config.example/'));
    expect(fromEnv).toContain('href="https://env.example/');
    expect(fromEnv).not.toContain('config.example');
  });
});
