// Client side of /search/: Pagefind's JS API with facet checkboxes rendered at build time.
// Why not Pagefind's default UI: at startup it loads every filter index (4 × ~22 kB gzipped at 10k blocks) to
// show counts, which put one query at 311 kB; here filter indexes load only when a filter is ticked, so a
// query costs ~200 kB. Excerpts are rebuilt from text nodes, keeping only Pagefind's <mark> highlights:
// upstream strings can never become markup.
interface PagefindResultData {
  url: string;
  excerpt: string;
  meta: Record<string, string>;
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

const PAGE = 20;
const root = document.querySelector<HTMLElement>('[data-search]')!;
const input = root.querySelector<HTMLInputElement>('input[type=search]')!;
const sortSelect = root.querySelector<HTMLSelectElement>('select[name=sort]')!;
const status = root.querySelector<HTMLElement>('[data-status]')!;
const list = root.querySelector<HTMLOListElement>('[data-results]')!;
const more = root.querySelector<HTMLButtonElement>('[data-more]')!;
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

function selectedFilters(): Record<string, string[]> {
  const filters: Record<string, string[]> = {};
  for (const box of root.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-filter]:checked')) {
    (filters[box.dataset.filter!] ??= []).push(box.value);
  }
  return filters;
}

/** Pagefind's excerpt is HTML; keep its text and <mark>s only. A <template> parses inertly (no loads, no scripts). */
function safeExcerpt(html: string): DocumentFragment {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  const out = document.createDocumentFragment();
  for (const node of tpl.content.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) out.append(node.textContent ?? '');
    else if (node instanceof Element && node.tagName === 'MARK') {
      const mark = document.createElement('mark');
      mark.textContent = node.textContent;
      out.append(mark);
    } else out.append(node.textContent ?? '');
  }
  return out;
}

async function showMore(): Promise<void> {
  const batch = await Promise.all(results.slice(shown, shown + PAGE).map((r) => r.data()));
  for (const d of batch) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = d.url;
    a.textContent = d.meta.title ?? d.url;
    a.className = 'result-link';
    const facts = document.createElement('p');
    facts.className = 'facts';
    facts.textContent = ['category', 'source', 'status', 'license']
      .map((f) => d.filters[f]?.[0])
      .filter(Boolean)
      .join(' · ');
    const excerpt = document.createElement('p');
    excerpt.className = 'excerpt';
    excerpt.append(safeExcerpt(d.excerpt));
    li.append(a, facts, excerpt);
    list.append(li);
  }
  shown += batch.length;
  more.hidden = shown >= results.length;
}

async function run(): Promise<void> {
  const term = input.value.trim();
  const filters = selectedFilters();
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
  const [key, dir] = sortSelect.value.split(':');
  const search = await pf.debouncedSearch(
    term || (null as unknown as string),
    { filters, ...(key ? { sort: { [key]: dir } } : {}) },
    150,
  );
  if (search === null) return; // a newer query superseded this one
  results = search.results;
  shown = 0;
  list.replaceChildren();
  await showMore();
  status.textContent = `${results.length.toLocaleString('en-US')} result${results.length === 1 ? '' : 's'}${term ? ` for “${term}”` : ''}`;
  root.dataset.rendered = String(++rendered);
}

// Restore a shared search from the URL (?q=...&category=Attention&sort=params:desc).
const initial = new URLSearchParams(location.search);
input.value = initial.get('q') ?? '';
sortSelect.value = initial.get('sort') ?? '';
for (const box of root.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-filter]')) {
  box.checked = initial.getAll(box.dataset.filter!).includes(box.value);
}
root.querySelector('form')!.addEventListener('submit', (e) => {
  e.preventDefault();
  void run();
});
input.addEventListener('input', () => void run());
root.addEventListener('change', (e) => {
  if (e.target !== input) void run();
});
more.addEventListener('click', () => void showMore());
root.classList.add('ready');
if (input.value || initial.size > 0) void run();

// A module, not a script: its top-level names must not collide with DOM globals such as `window.status`.
export {};
