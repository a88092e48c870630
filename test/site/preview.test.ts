// `nnblocks preview [DIR]` (`npx astro preview` serves dist/, not the folder just built): serves the folder
// it is given at the base path that site was built for; folders by their index.html, 404.html for what is missing,
// nothing outside the folder. The site here is a few files in Astro's layout, written inline (no Astro build needed).
import { spawn } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSite, siteBase, type ServedSite } from '../../pipeline/site/preview.ts';
import { tempDir, writeTree } from '../helpers/tree.ts';

const page = (base: string, title: string) =>
  `<!doctype html><html><head><title>${title}</title><link rel="stylesheet" href="${base}_astro/site.css"></head><body>${title}</body></html>`;

function builtSite(base: string): string {
  const dir = writeTree({
    'index.html': page(base, 'home'),
    '404.html': page(base, 'not here'),
    'blocks/index.html': page(base, 'blocks'),
    'blocks/a/index.html': page(base, 'block a'),
    '_astro/site.css': 'body { color: black }',
    'api/catalog.json': '{"blocks": []}',
    'pagefind/pagefind.js': 'export {}',
  });
  return dir;
}

/** A raw GET (fetch normalises `..` away): status, location and body. */
function get(url: string, path: string): Promise<{ status: number; location?: string; body: string; type?: string }> {
  const u = new URL(url);
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          body,
          ...(res.headers.location ? { location: res.headers.location } : {}),
          ...(res.headers['content-type'] ? { type: res.headers['content-type'] } : {}),
        }),
      );
    });
    req.on('error', fail);
    req.end();
  });
}

describe('serveSite', () => {
  let dir: string;
  let served: ServedSite;

  beforeAll(async () => {
    dir = builtSite('/nnblocks/');
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'leak.txt'));
    served = await serveSite({ dir, port: 0 });
  });
  afterAll(() => served.close());

  it('serves at the base path the site was built for, read from its pages', async () => {
    expect(siteBase(dir)).toBe('/nnblocks/');
    expect(siteBase(builtSite('/'))).toBe('/');
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/nnblocks\/$/);
    const home = await get(served.url, '/nnblocks/');
    expect(home).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(home.body).toContain('<title>home</title>');
    expect(await get(served.url, '/')).toMatchObject({ status: 302, location: '/nnblocks/' });
  });

  it('serves a folder by its index.html, after a redirect to its trailing slash', async () => {
    expect(await get(served.url, '/nnblocks/blocks/a')).toMatchObject({ status: 301, location: '/nnblocks/blocks/a/' });
    expect((await get(served.url, '/nnblocks/blocks/a/')).body).toContain('block a');
    expect(await get(served.url, '/nnblocks/_astro/site.css')).toMatchObject({
      status: 200,
      type: 'text/css; charset=utf-8',
    });
    expect(await get(served.url, '/nnblocks/api/catalog.json')).toMatchObject({ status: 200, body: '{"blocks": []}' });
  });

  it('answers 404 with the site’s 404 page for what is missing, outside the base or outside the folder', async () => {
    for (const path of [
      '/nnblocks/nope/',
      '/elsewhere/',
      '/nnblocks/../../../../etc/passwd',
      '/nnblocks/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/nnblocks/leak.txt',
      '/nnblocks/%ff',
    ]) {
      const r = await get(served.url, path);
      expect(r.status, path).toBe(404);
      expect(r.body, path).toContain('not here');
    }
  });

  it('refuses a folder that is not a built site, naming the fix', async () => {
    await expect(serveSite({ dir: tempDir(), port: 0 })).rejects.toThrow(/not a built site/);
  });
});

describe('nnblocks preview', () => {
  it('serves the folder given until stopped, and exits 0', async () => {
    const dir = builtSite('/');
    const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'nnblocks.mjs');
    const child = spawn(process.execPath, [bin, 'preview', dir, '--port', '0', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const started = await new Promise<{ url: string; dir: string; base: string }>((done, fail) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        try {
          done(JSON.parse(out));
        } catch {
          // not the whole document yet
        }
      });
      child.on('exit', (code) => fail(new Error(`preview exited ${code}: ${err}`)));
    });
    expect(started).toMatchObject({ dir, base: '/' });
    expect((await get(started.url, '/')).body).toContain('home');
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
