// Client side of /search/: Pagefind's JS API with facet checkboxes rendered at build time.
// Why not Pagefind's default UI: at startup it loads every filter index (4 × ~22 kB gzipped at 10k blocks) to
// show counts, which put one query at 311 kB; here filter indexes load only when a filter is ticked, so a
// query costs ~200 kB, and the counts beside the values are the catalog's, drawn at build time. Excerpts are
// rebuilt from text nodes, keeping only Pagefind's <mark> highlights: upstream strings can never become markup.
import { STATUS_BADGE } from '../lib/status.ts';
import { identPieces } from '../lib/wbr.ts';
import { rerank } from './rank.ts';

interface PagefindResultData {
  url: string;
  excerpt: string;
  meta: Record<string, string | undefined>;
  filters: Record<string, string[]>;
}
interface Pagefind {
  options(o: Record<string, unknown>): Promise<void>;
  init(): Promise<void>;
  debouncedSearch(
    term: string,
    o: Record<string, unknown>,
    ms?: number,
  ): Promise<{ results: { id: string; data(): Promise<PagefindResultData> }[] } | null>;
}
type Hit = PagefindResultData & { title: string; aliases: string[]; status: string };

const PAGE = 20;
/**
 * The sort menu's values as Pagefind sorts. Each direction has its own key so that blocks without a count are last
 * in both (block pages give them 0 for "most first" and a huge value for "fewest first": src/lib/search-terms.ts);
 * a page without the key would be dropped from sorted results altogether.
 */
const SORTS = new Map<string, Record<string, 'asc' | 'desc'>>([
  ['params:desc', { params: 'desc' }],
  ['params:asc', { paramsasc: 'asc' }],
]);
const STATUS_TEXT: Record<string, string> = STATUS_BADGE;

const root = document.querySelector<HTMLElement>('[data-search]')!;
const input = root.querySelector<HTMLInputElement>('input[type=search]')!;
const sortSelect = root.querySelector<HTMLSelectElement>('select[name=sort]')!;
const status = root.querySelector<HTMLElement>('[data-status]')!;
const list = root.querySelector<HTMLOListElement>('[data-results]')!;
const more = root.querySelector<HTMLButtonElement>('[data-more]')!;
const clear = root.querySelector<HTMLButtonElement>('[data-clear]')!;
const facets = root.querySelector<HTMLDetailsElement>('[data-facets]')!;
const activeCount = root.querySelector<HTMLElement>('[data-active-count]')!;
const boxes = [...root.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-filter]')];
let pagefind: Pagefind | undefined;
let results: { data(): Promise<PagefindResultData> }[] = [];
let shown = 0;
/** Bumped after each rendered search, so tests (and assistive tech watchers) can tell when results are final. */
let rendered = 0;

async function load(): Promise<Pagefind> {
  if (pagefind) return pagefind;
  const url = `${root.dataset.bundle}pagefind.js`;
  pagefind = (await import(/* @vite-ignore */ url)) as Pagefind;
  await pagefind.options({ baseUrl: root.dataset.base, excerptLength: 24 });
  await pagefind.init();
  return pagefind;
}

/** Ticked values by filter. Within a filter they are alternatives (`any`: Attention or MLP); filters combine with AND. */
function selectedFilters(): Record<string, string[]> {
  const filters: Record<string, string[]> = {};
  for (const box of boxes) if (box.checked) (filters[box.dataset.filter!] ??= []).push(box.value);
  return filters;
}

/** Pagefind's excerpt is HTML; keep its text and <mark>s only. A <template> parses inertly (no loads, no scripts). */
function safeExcerpt(html: string): DocumentFragment {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  const out = document.createDocumentFragment();
  for (const node of tpl.content.childNodes) {
    if (node instanceof Element && node.tagName === 'MARK') {
      const mark = document.createElement('mark');
      mark.textContent = node.textContent;
      out.append(mark);
    } else out.append(node.textContent ?? '');
  }
  return out;
}

/** Text that may wrap between identifier parts (<wbr>), built from text nodes only. */
function identText(el: HTMLElement, text: string): HTMLElement {
  identPieces(text).forEach((piece, i) => el.append(...(i ? [document.createElement('wbr')] : []), piece));
  return el;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text = ''): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = cls;
  e.textContent = text;
  return e;
}

const hit = (d: PagefindResultData): Hit => ({
  ...d,
  title: d.meta.title ?? d.url,
  aliases: (d.meta.aliases ?? '').split('|').filter(Boolean),
  status: d.meta.status ?? d.filters.status?.[0] ?? 'unvalidated',
});

/** One result: name, then what tells same-named blocks apart (module path, status, size), then where it is from. */
function render(h: Hit): HTMLLIElement {
  const li = document.createElement('li');
  const a = identText(el('a', 'result-link'), h.title);
  a.setAttribute('href', h.url);
  const where = el('p', 'where');
  where.append(identText(el('code', 'module'), h.meta.module ?? ''));
  where.append(
    el('span', `st st-${h.status in STATUS_TEXT ? h.status : 'unvalidated'}`, STATUS_TEXT[h.status] ?? h.status),
  );
  const params = Number(h.meta.params);
  if (h.meta.params && Number.isSafeInteger(params))
    where.append(el('span', 'params', `${params.toLocaleString('en-US')} parameters`));
  const facts = el(
    'p',
    'facts',
    ['category', 'source', 'license']
      .map((f) => h.filters[f]?.[0])
      .filter(Boolean)
      .join(' · '),
  );
  const excerpt = el('p', 'excerpt');
  excerpt.append(safeExcerpt(h.excerpt));
  li.append(a, where, facts, excerpt);
  return li;
}

async function showMore(term = ''): Promise<void> {
  let batch = (await Promise.all(results.slice(shown, shown + PAGE).map((r) => r.data()))).map(hit);
  // Only the first page is re-ranked (it is the only one whose data is loaded); sorted results keep their order.
  if (shown === 0 && term && !sortSelect.value) batch = rerank(batch, term);
  list.append(...batch.map(render));
  shown += batch.length;
  more.hidden = shown >= results.length;
}

function syncFilterUi(filters: Record<string, string[]>): void {
  const n = Object.values(filters).reduce((s, vs) => s + vs.length, 0);
  clear.hidden = n === 0;
  activeCount.textContent = n ? `(${n} active)` : '';
}

async function run(): Promise<void> {
  const term = input.value.trim();
  const filters = selectedFilters();
  syncFilterUi(filters);
  const params = new URLSearchParams();
  if (term) params.set('q', term);
  for (const [k, vs] of Object.entries(filters)) for (const v of vs) params.append(k, v);
  if (sortSelect.value) params.set('sort', sortSelect.value);
  history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}`);
  if (!term && Object.keys(filters).length === 0) {
    list.replaceChildren();
    status.textContent = '';
    more.hidden = true;
    root.dataset.rendered = String(++rendered);
    return;
  }
  const pf = await load();
  const any = Object.fromEntries(Object.entries(filters).map(([k, vs]) => [k, { any: vs }]));
  const sort = SORTS.get(sortSelect.value);
  const search = await pf.debouncedSearch(
    term || (null as unknown as string),
    { filters: any, ...(sort ? { sort } : {}) },
    150,
  );
  if (search === null) return; // a newer query superseded this one
  results = search.results;
  shown = 0;
  list.replaceChildren();
  await showMore(term);
  status.textContent = `${results.length.toLocaleString('en-US')} result${results.length === 1 ? '' : 's'}${term ? ` for “${term}”` : ''}`;
  root.dataset.rendered = String(++rendered);
}

// Restore a shared search from the URL (?q=...&category=Attention&sort=params:desc).
const initial = new URLSearchParams(location.search);
input.value = initial.get('q') ?? '';
sortSelect.value = SORTS.has(initial.get('sort') ?? '') ? initial.get('sort')! : '';
for (const box of boxes) box.checked = initial.getAll(box.dataset.filter!).includes(box.value);
// Filters start folded on a phone (the results come first), open beside the results on a wide screen.
const narrow = matchMedia('(max-width: 48rem)');
facets.open = !narrow.matches || boxes.some((b) => b.checked);
// A wide screen hides the summary that would reopen them: widening the window must not leave them folded.
narrow.addEventListener('change', () => {
  if (!narrow.matches) facets.open = true;
});
root.querySelector('form')!.addEventListener('submit', (e) => {
  e.preventDefault();
  void run();
});
input.addEventListener('input', () => void run());
root.addEventListener('change', (e) => {
  if (e.target !== input) void run();
});
clear.addEventListener('click', () => {
  for (const box of boxes) box.checked = false;
  input.focus();
  void run();
});
more.addEventListener('click', () => void showMore());
root.classList.add('ready');
if (input.value || initial.size > 0) void run();
