// Building the site (Astro + Pagefind) from synthetic catalogs of 1k, 5k and 10k blocks —
// wall time and peak memory of the build's process tree (RSS summed over all descendants, polled from /proc,
// so Astro's Node process, esbuild and the Pagefind binary all count) — and the bytes a browser downloads
// to load /search/ and run one query on the 10k site, as served by a gzip-compressing static host.
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSite } from '../../pipeline/site/build-site.ts';
import { makeCatalog } from '../site/fixtures/make-catalog.ts';
import { launchBrowser } from '../site/helpers/browser.ts';
import { serveSite } from '../site/helpers/serve.ts';
import { round, type Figure } from './harness.ts';

export const name = 'site';
const SIZES = [1000, 5000, 10000];

/** Sum of VmRSS (kB) over every descendant of `root`. */
function treeRssKb(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // the process exited between readdir and read
    }
  }
  let total = 0;
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      total += m ? Number(m[1]) : 0;
    } catch {
      // exited
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

async function measureBuild(catalogDir: string, outDir: string) {
  let peakKb = 0;
  const timer = setInterval(() => (peakKb = Math.max(peakKb, treeRssKb(process.pid))), 100);
  try {
    const r = await buildSite({ catalogDir, outDir });
    return { ...r, peakMb: peakKb / 1024 };
  } finally {
    clearInterval(timer);
  }
}

async function searchBytes(dist: string) {
  const server = await serveSite(dist);
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}search/`, { waitUntil: 'networkidle' });
    const before = await page.evaluate(() =>
      Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0),
    );
    await page.fill('#search-input', 'attention');
    await page.waitForFunction(
      (n) => Number(document.querySelector<HTMLElement>('[data-search]')?.dataset.rendered ?? 0) > n,
      before,
    );
    await page.waitForLoadState('networkidle');
    const results = await page.locator('[data-status]').textContent();
    const bytes = server.served.reduce((s, x) => s + x.bytes, 0);
    return { bytes, results, files: server.served.map((s) => `${s.bytes} ${s.path}`) };
  } finally {
    await browser.close();
    await server.close();
  }
}

export async function run(): Promise<Figure[]> {
  const work = mkdtempSync(join(tmpdir(), 'nnblocks-site-bench-'));
  const figures: Figure[] = [];
  try {
    let lastDist = '';
    for (const n of SIZES) {
      const catalog = makeCatalog({ dir: join(work, `catalog-${n}`), blocks: n });
      const dist = join(work, `dist-${n}`);
      const r = await measureBuild(catalog.dir, dist);
      const big = n === 10000;
      figures.push(
        {
          issue: 8,
          figure: `site build, ${n} blocks (Astro + Pagefind): wall time`,
          value: round(r.ms / 1000, 1),
          unit: 's',
          ...(big ? { target: '<= 180 s', ok: r.ms <= 180_000 } : {}),
          detail: { pages: r.pages },
        },
        {
          issue: 8,
          figure: `site build, ${n} blocks: peak memory (process tree RSS)`,
          value: Math.round(r.peakMb),
          unit: 'MB',
          ...(big ? { target: '<= 2048 MB', ok: r.peakMb <= 2048 } : {}),
        },
      );
      if (lastDist) rmSync(lastDist, { recursive: true, force: true });
      rmSync(catalog.dir, { recursive: true, force: true });
      lastDist = dist;
    }
    const s = await searchBytes(lastDist);
    figures.push({
      issue: 8,
      figure: 'bytes for /search/ + one query ("attention"), 10k-block site, gzip host',
      value: round(s.bytes / 1024, 1),
      unit: 'kB',
      target: '<= 300 kB',
      ok: s.bytes <= 300 * 1024,
      detail: s,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return figures;
}
