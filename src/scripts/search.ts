// Client side of /search/: Pagefind's JS API, the name index beside it, and facet checkboxes rendered at build time.
// Why not Pagefind's default UI: at startup it loads every filter index (4 × ~22 kB gzipped at 10k blocks) to
// show counts, which put one query at 311 kB; here a query costs Pagefind's index chunks, the first page's fragments
// and one shard of the name index (src/lib/name-index.ts), and the filter indexes load after the results, for counts
// of the current query, only where the catalog is small enough for them to fit the budget (src/lib/search-facets.ts)
// or once the reader turns to the filters (facet-counts.ts). Ranking: Pagefind knows words; the name index knows which blocks a query names
// exactly, and those come first among all results (rank.ts). Excerpts are rebuilt from text nodes, keeping only
// Pagefind's <mark> highlights: upstream strings can never become markup.
import { STATUS_BADGE } from '../lib/status.ts';
import { identPieces } from '../lib/wbr.ts';
import { FacetCounts } from './facet-counts.ts';
import { NameLookup, namedMatches, standIn, type Named } from './name-lookup.ts';
import { arrange, passedFirst, type Arranged, type NameMatch } from './rank.ts';

interface PagefindResultData {
  url: string;
  excerpt: string;
  meta: Record<string, string | undefined>;
  filters: Record<string, string[]>;
}
interface PagefindResult {
  id: string;
  data(): Promise<PagefindResultData>;
}
type Counts = Record<string, Record<string, number>>;
interface PagefindSearch {
  results: PagefindResult[];
  /** Per filter value, how many results of the words carry it, ticked filters aside (filters whose index is loaded). */
  totalFilters: Counts;
}
interface Pagefind {
  options(o: Record<string, unknown>): Promise<void>;
  init(): Promise<void>;
  debouncedSearch(term: string, o: Record<string, unknown>, ms?: number): Promise<PagefindSearch | null>;
  search(term: string, o: Record<string, unknown>): Promise<PagefindSearch>;
  /** Loads every filter index. */
  filters(): Promise<Counts>;
}
type Hit = PagefindResultData & { title: string; status: string; match?: NameMatch };

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
const none = root.querySelector<HTMLElement>('[data-none]')!;
const list = root.querySelector<HTMLOListElement>('[data-results]')!;
const more = root.querySelector<HTMLButtonElement>('[data-more]')!;
const clear = root.querySelector<HTMLButtonElement>('[data-clear]')!;
const facets = root.querySelector<HTMLDetailsElement>('[data-facets]')!;
const activeCount = root.querySelector<HTMLElement>('[data-active-count]')!;
const boxes = [...root.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-filter]')];
const names = new NameLookup(root.dataset.names ?? '', Number(root.dataset.nameShards ?? 0));
const counts = new FacetCounts(
  facets,
  root.querySelector<HTMLElement>('[data-counts-note]')!,
  root.dataset.counts === 'query',
);
let pagefind: Pagefind | undefined;
let listed: Arranged<PagefindResult>[] = [];
let shown = 0;
/** Bumped after each rendered search, so tests (and assistive tech watchers) can tell when results are final. */
let rendered = 0;
/** The latest query, for counts fetched after its results (or once the reader turns to the filters). */
let latest: { term: string; named: Named | null; seq: number } = { term: '', named: null, seq: 0 };

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

const hit = (d: PagefindResultData, match?: NameMatch): Hit => ({
  ...d,
  title: d.meta.title ?? d.url,
  status: d.meta.status ?? d.filters.status?.[0] ?? 'unvalidated',
  ...(match ? { match } : {}),
});

/** Why a named block leads: the synonym, method or parameter the query named (its own name needs no saying). */
function why(m: NameMatch): HTMLElement | null {
  if (!m.why) return null;
  const p = el('p', 'why');
  if (m.tier === 'synonym') p.append(`Also known as “${m.why}”`);
  else if (m.tier === 'method') p.append(`Implements ${m.why}`);
  else p.append('Takes ', el('code', '', m.why));
  return p;
}

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
  const reason = h.match ? why(h.match) : null;
  li.append(a, where, ...(reason ? [reason] : []), facts);
  if (h.excerpt) {
    const excerpt = el('p', 'excerpt');
    excerpt.append(safeExcerpt(h.excerpt));
    li.append(excerpt);
  }
  return li;
}

async function showMore(): Promise<void> {
  const slice = listed.slice(shown, shown + PAGE);
  let batch = await Promise.all(slice.map(async (x) => hit(await x.result.data(), x.match)));
  // A failed block never leads a passed one of the same name on the first page (sorted results keep their order).
  if (shown === 0 && !sortSelect.value) batch = passedFirst(batch);
  list.append(...batch.map(render));
  shown += batch.length;
  more.hidden = shown >= listed.length;
}

function syncFilterUi(filters: Record<string, string[]>): void {
  const n = Object.values(filters).reduce((s, vs) => s + vs.length, 0);
  clear.hidden = n === 0;
  activeCount.textContent = n ? `(${n} active)` : '';
}

/** "No block implements X" when the query names a taxonomy method nothing in the catalog implements. */
function showNone(named: Named | null): void {
  const methods = named?.entry.hits.length === 0 ? (named.entry.unimplemented ?? []) : [];
  none.hidden = methods.length === 0;
  none.textContent = methods.length ? `No block in this catalog implements ${methods.join(' or ')}.` : '';
}

/** Counts for the latest query: Pagefind's over the words' results, plus named blocks the words missed. */
async function showCounts(): Promise<void> {
  const { term, named, seq } = latest;
  if (!term || !counts.active) {
    counts.show(null);
    root.dataset.counted = String(seq);
    return;
  }
  const pf = await load();
  await pf.filters();
  const search = await pf.search(term, {});
  if (seq !== latest.seq) return; // a newer query is on its way
  const total: Record<string, Record<string, number>> = structuredClone(search.totalFilters);
  const ids = new Set(search.results.map((r) => r.id));
  for (const b of named?.blocks ?? [])
    if (b.id && !ids.has(b.id))
      for (const [f, values] of Object.entries(b.filters))
        for (const v of values) (total[f] ??= {})[v] = (total[f]?.[v] ?? 0) + 1;
  counts.show(total, term);
  root.dataset.counted = String(seq);
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
    none.hidden = true;
    more.hidden = true;
    latest = { term: '', named: null, seq: latest.seq + 1 };
    root.dataset.rendered = String(++rendered);
    void showCounts();
    return;
  }
  const pf = await load();
  const any = Object.fromEntries(Object.entries(filters).map(([k, vs]) => [k, { any: vs }]));
  const sort = SORTS.get(sortSelect.value);
  const [search, named] = await Promise.all([
    pf.debouncedSearch(term || (null as unknown as string), { filters: any, ...(sort ? { sort } : {}) }, 150),
    names.lookup(term),
  ]);
  if (search === null) return; // a newer query superseded this one
  // Under a sort, Pagefind's order is the point; otherwise the blocks the query names lead.
  const matches = sort ? [] : namedMatches(named, new Set(search.results.map((r) => r.id)), filters);
  listed = arrange(search.results, matches, (m) => standIn(named!, m.id));
  shown = 0;
  list.replaceChildren();
  showNone(named);
  await showMore();
  status.textContent = `${listed.length.toLocaleString('en-US')} result${listed.length === 1 ? '' : 's'}${term ? ` for “${term}”` : ''}`;
  latest = { term, named, seq: latest.seq + 1 };
  root.dataset.rendered = String(++rendered);
  void showCounts();
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
counts.onWanted(() => void showCounts());
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
