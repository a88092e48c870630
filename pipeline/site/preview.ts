// `serveSite()`: serves a built site folder over HTTP for a local look (`nnblocks preview`), at the base path the site
// was built for. A plain static server: GET and HEAD, folders by their index.html, 404.html for what is missing, and
// nothing outside the folder (a `..` or a link out of it is a 404). See docs/site.md.
import { createReadStream, existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, resolve, sep } from 'node:path';
import { NnblocksError } from '../contract/diagnostics.ts';

export interface ServeOptions {
  /** The built site (what `buildSite` wrote). */
  dir: string;
  /** Base path; default: the one the site was built for (`siteBase`). */
  base?: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
}

export interface ServedSite {
  /** Where to open it, base path included. */
  url: string;
  base: string;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.atom': 'application/atom+xml; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/** `/nnblocks/` → `/nnblocks/`, `nnblocks` → `/nnblocks/`, `` → `/`. */
function normalBase(base: string): string {
  const trimmed = base.replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}/` : '/';
}

/**
 * The base path a built site's pages use, read from its home page: every page links its stylesheets under
 * `<base>_astro/` (astro.config.mjs keeps them external). `/` when the page names none.
 */
export function siteBase(dir: string): string {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return '/';
  const m = /(?:href|src)="(\/[^"]*?)_astro\//.exec(readFileSync(index, 'utf8'));
  return normalBase(m ? m[1] : '/');
}

export async function serveSite(opts: ServeOptions): Promise<ServedSite> {
  const root = resolve(opts.dir);
  if (!existsSync(join(root, 'index.html')))
    throw new NnblocksError(
      `${root} is not a built site (no index.html)`,
      'preview',
      'build one first: `nnblocks build --site [DIR]`, then `nnblocks preview DIR`',
    );
  const realRoot = realpathSync(root);
  const base = normalBase(opts.base ?? siteBase(root));
  const server = createServer((req, res) => respond(req, res, realRoot, base));
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((done, fail) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      fail(
        err.code === 'EADDRINUSE' || err.code === 'EACCES'
          ? new NnblocksError(
              `cannot listen on ${host}:${opts.port ?? 4321} (${err.code})`,
              'preview',
              'pass another --port',
            )
          : err,
      ),
    );
    server.listen(opts.port ?? 4321, host, done);
  });
  const { port } = server.address() as AddressInfo;
  // Every address: this machine's name for it. One address: that one (`localhost` may resolve to ::1 first).
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}${base}`,
    base,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function respond(req: IncomingMessage, res: ServerResponse, root: string, base: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (!path.startsWith(base)) {
    // The site lives under its base path: send the root there, anything else is not part of it.
    if (path === '/' || path === base.slice(0, -1)) res.writeHead(302, { location: base }).end();
    else notFound(req, res, root);
    return;
  }
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice(base.length));
  } catch {
    notFound(req, res, root);
    return;
  }
  const file = inside(root, join(root, rel));
  if (!file) return notFound(req, res, root);
  if (statSync(file).isDirectory()) {
    // trailingSlash 'always': a folder's page is at `folder/`; without the slash its relative links would break.
    if (!path.endsWith('/')) {
      res.writeHead(301, { location: `${path}/` }).end();
      return;
    }
    const index = inside(root, join(file, 'index.html'));
    if (!index) return notFound(req, res, root);
    return send(req, res, index, 200);
  }
  send(req, res, file, 200);
}

/** The real path of `candidate` when it exists and lies inside `root` (links followed); else null. */
function inside(root: string, candidate: string): string | null {
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    return null;
  }
  const rel = relative(root, real);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep)) ? real : null;
}

function notFound(req: IncomingMessage, res: ServerResponse, root: string): void {
  const page = inside(root, join(root, '404.html'));
  if (page) return send(req, res, page, 404);
  res.writeHead(404, { 'content-type': TYPES['.txt'] }).end(req.method === 'HEAD' ? undefined : 'not found\n');
}

function send(req: IncomingMessage, res: ServerResponse, file: string, status: number): void {
  const size = statSync(file).size;
  res.writeHead(status, {
    'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': size,
    'cache-control': 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}
