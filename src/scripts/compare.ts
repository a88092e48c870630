// Client side of /compare/?a=<slug>&b=<slug>: fetches the two blocks' JSON from the site's API and fills the tables.
// Everything from the JSON goes in with textContent (never innerHTML), links only to checked slugs and http(s) URLs:
// block specs hold upstream names and defaults, which are data, not markup. Row logic: src/lib/compare.ts.
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import {
  checkedSlug,
  compositionRows,
  interfaceRows,
  provenanceRows,
  safeHref,
  similarity,
  sizeRows,
  type Row,
} from '../lib/compare.ts';

const root = document.querySelector<HTMLElement>('[data-compare]')!;
const api = root.dataset.api!;
const pages = root.dataset.pages!;
const status = root.querySelector<HTMLElement>('[data-status]')!;
const out = root.querySelector<HTMLElement>('[data-result]')!;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string | null,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

async function load(slug: string): Promise<BlockSpec> {
  const res = await fetch(`${api}${slug}.json`);
  if (!res.ok) throw new Error(`no block “${slug}” (HTTP ${res.status})`);
  // This site's own /api/blocks/ file: the site build read it through the checked loader (src/lib/catalog.ts)
  // and published its bytes unchanged, so the browser does not carry a second copy of the validator.
  return (await res.json()) as BlockSpec;
}

function blockLink(spec: BlockSpec, slug: string): HTMLElement {
  const a = el('a', spec.name);
  a.href = `${pages}${slug}/`;
  return a;
}

/** A table: label column, then A and B; differing rows marked (class and a visually hidden word). */
function table(caption: string, rows: Row[], heads: [string, string], id: string, codeLabels = false): HTMLElement {
  const section = el('section');
  section.setAttribute('aria-labelledby', id);
  const h = el('h2', caption);
  h.id = id;
  section.append(h);
  if (rows.length === 0) {
    section.append(el('p', 'Nothing recorded for either block.', 'muted'));
    return section;
  }
  const wrap = el('div', null, 'table-scroll');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', `${caption} (scrolls)`);
  const t = el('table', null, codeLabels ? 'compare-table code-labels' : 'compare-table');
  const head = el('tr');
  for (const text of ['', heads[0], heads[1]]) {
    const th = el('th', text);
    th.scope = 'col';
    head.append(th);
  }
  t.append(el('thead'));
  t.tHead!.append(head);
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', null, r.differs ? 'differs' : 'same');
    tr.dataset.row = r.label;
    const th = el('th', r.label);
    th.scope = 'row';
    tr.append(th);
    for (const v of [r.a, r.b]) tr.append(v === null ? el('td', '—', 'none') : el('td', v));
    body.append(tr);
  }
  t.append(body);
  wrap.append(t);
  section.append(wrap);
  return section;
}

function provenanceTable(a: BlockSpec, b: BlockSpec, heads: [string, string]): HTMLElement {
  const section = table('Provenance', provenanceRows(a, b), heads, 'cmp-provenance');
  const links = el('p');
  for (const [spec, label] of [
    [a, heads[0]],
    [b, heads[1]],
  ] as const) {
    const href = safeHref(spec.provenance.permalink);
    if (!href) continue;
    const link = el('a', `${label}: pinned source`);
    link.href = href;
    link.rel = 'noopener';
    links.append(link, document.createTextNode(' '));
  }
  section.append(links);
  return section;
}

async function main(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const sa = checkedSlug(params.get('a'));
  const sb = checkedSlug(params.get('b'));
  const form = root.querySelector<HTMLFormElement>('form')!;
  const field = (name: string) => form.elements.namedItem(name) as HTMLInputElement;
  if (sa) field('a').value = sa;
  if (sb) field('b').value = sb;
  if (!sa || !sb) {
    status.textContent =
      params.has('a') || params.has('b')
        ? 'Give two block slugs (lowercase, as in /blocks/<slug>/).'
        : 'Pick two blocks to compare.';
    return;
  }
  status.textContent = 'Loading…';
  let a: BlockSpec;
  let b: BlockSpec;
  try {
    [a, b] = await Promise.all([load(sa), load(sb)]);
  } catch (err) {
    status.textContent = `Could not load: ${(err as Error).message}`;
    return;
  }
  const heads: [string, string] = a.name === b.name ? [`A: ${a.name}`, `B: ${b.name}`] : [a.name, b.name];
  const title = el('h2', null, 'pair');
  title.append(blockLink(a, sa), document.createTextNode(' vs '), blockLink(b, sb));
  const sim = similarity(a, b);
  const simText = el(
    'p',
    `${sim.score === null ? 'Not among each other’s nearest blocks' : `Similarity ${Math.round(sim.score * 100)}%`}; ${
      sim.shared.length ? `shared: ${sim.shared.join(', ')}` : 'no duplicate cluster in common'
    }.`,
  );
  simText.dataset.similarity = sim.score === null ? '' : String(sim.score);
  out.replaceChildren(
    title,
    simText,
    table('Interface', interfaceRows(a, b), heads, 'cmp-interface', true),
    table('Size and status', sizeRows(a, b), heads, 'cmp-size'),
    table('Composition', compositionRows(a, b), heads, 'cmp-composition', true),
    provenanceTable(a, b, heads),
  );
  status.textContent = `${a.name} and ${b.name}: differing rows are marked.`;
  document.title = `${a.name} vs ${b.name} · nnblocks`;
}

void main();
