// A minimal static file server for a built site (tests and benchmark): serves `dir` under `base` the way
// GitHub Pages does — directory → index.html, unknown path → 404.html with status 404, gzip for text types
// when the client accepts it (Pagefind's index and wasm files are gzipped already, so they go out as is).
// Every response's body size is recorded, so the benchmark can count what a browser really downloads,
// including fetches from Pagefind's web worker that page-level network events miss.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = new Map<string, string>([
  ['.html', 'text/html; charset=utf-8'],
  ['.js', 'text/javascript; charset=utf-8'],
  ['.css', 'text/css; charset=utf-8'],
  ['.json', 'application/json'],
  ['.atom', 'application/atom+xml'],
  ['.svg', 'image/svg+xml'],
  ['.wasm', 'application/wasm'],
]);
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.atom']);

export interface Served {
  path: string;
  status: number;
  /** Bytes of the body as sent (after gzip when applied). */
  bytes: number;
}

export interface SiteServer {
  /** e.g. http://127.0.0.1:43123/nnblocks/ (always ends in `/`). */
  url: string;
  /** Every response so far, in order; clear it with `served.length = 0`. */
  served: Served[];
  close(): Promise<void>;
}

export async function serveSite(dir: string, base = '/'): Promise<SiteServer> {
  const prefix = base.endsWith('/') ? base : `${base}/`;
  const served: Served[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const send = (status: number, file: string | undefined) => {
      let body: Buffer = file ? readFileSync(file) : Buffer.from('not found');
      const ext = file ? extname(file) : '.html';
      const headers: Record<string, string | number> = { 'Content-Type': TYPES.get(ext) ?? 'application/octet-stream' };
      if (gzip && COMPRESSIBLE.has(ext)) {
        body = gzipSync(body);
        headers['Content-Encoding'] = 'gzip';
      }
      headers['Content-Length'] = body.length;
      served.push({ path, status, bytes: body.length });
      res.writeHead(status, headers);
      res.end(body);
    };
    const notFound = () => send(404, existsSync(join(dir, '404.html')) ? join(dir, '404.html') : undefined);
    if (!path.startsWith(prefix)) return notFound();
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(normalize(dir))) return notFound();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return notFound();
    send(200, file);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    served,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}
