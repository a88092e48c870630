// The numbers beside the search page's filter values: the catalog's (drawn at build time) until there is a query,
// then how many of the query's results carry each value, ticked filters aside (Pagefind's `totalFilters`, plus the
// named blocks its words missed). Those need every filter index, ~88 kB gzipped at 10,000 blocks: the page loads
// them after the results, at once where the catalog is small enough for that to fit the byte budget
// (`data-counts="query"`, src/lib/search-facets.ts), else once the reader turns to the filters.

type Counts = Record<string, Record<string, number>>;

export class FacetCounts {
  private readonly cells: { filter: string; value: string; el: HTMLElement; total: number }[];
  private wanted: boolean;
  private readonly listeners = new Set<() => void>();

  /** `facets`: the filters' <details>; `note`: where the page says what the numbers count. */
  constructor(
    facets: HTMLDetailsElement,
    private readonly note: HTMLElement,
    eager: boolean,
  ) {
    this.cells = [...facets.querySelectorAll<HTMLInputElement>('input[type=checkbox][data-filter]')].map((box) => {
      const el = box.parentElement!.querySelector<HTMLElement>('.count')!;
      return { filter: box.dataset.filter!, value: box.value, el, total: Number(el.textContent!.replace(/\D/g, '')) };
    });
    this.wanted = eager;
    // Turning to the filters (pointer, keyboard, or opening them on a phone) is when their numbers matter.
    // (A <details> the page script folds on a phone fires `toggle` too: only opening counts.)
    const want = () => {
      if (this.wanted || !facets.open) return;
      this.wanted = true;
      for (const f of this.listeners) f();
    };
    for (const type of ['pointerenter', 'focusin', 'toggle']) facets.addEventListener(type, want);
  }

  /** Whether counts for a query should be fetched now. */
  get active(): boolean {
    return this.wanted;
  }

  /** Called once when the reader turns to the filters while counts were deferred. */
  onWanted(f: () => void): void {
    this.listeners.add(f);
  }

  /** Catalog totals (no query), or the query's counts. */
  show(counts: Counts | null, term = ''): void {
    for (const c of this.cells) {
      const n = counts ? (counts[c.filter]?.[c.value] ?? 0) : c.total;
      c.el.textContent = n.toLocaleString('en-US');
      c.el.setAttribute('aria-label', `${n.toLocaleString('en-US')} block${n === 1 ? '' : 's'}`);
      c.el.classList.toggle('zero', n === 0);
    }
    this.note.textContent = counts ? `Counts: results for “${term}”` : 'Counts: the whole catalog';
  }
}
