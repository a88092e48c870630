// Scrollable code, tables and charts reachable by keyboard (WCAG 2.1.1; axe's scrollable-region-focusable): a <pre>,
// a .table-wrap or a chart's <figure> that overflows its width gets tabindex=0, so arrow keys scroll it, and a labelled region role, so a
// screen reader says what it is. Decided in the browser, on load and on resize, because only an overflowing box
// should be a Tab stop: made focusable in the HTML, every table and snippet would add one, scrolling or not.
const MARK = 'data-scroll-region';

function label(box: HTMLElement): string {
  let node: Element | null = box;
  // The nearest heading before the box (or its section's): what the code or table is about.
  while (node && node !== document.body) {
    for (let prev = node.previousElementSibling; prev; prev = prev.previousElementSibling) {
      const h = /^H[1-6]$/.test(prev.tagName) ? prev : prev.querySelector('h1, h2, h3, h4, h5, h6');
      if (h?.textContent?.trim()) return `${h.textContent.trim()} (scrollable)`;
    }
    node = node.parentElement;
  }
  return box.tagName === 'PRE'
    ? 'Code (scrollable)'
    : box.tagName === 'FIGURE'
      ? 'Chart (scrollable)'
      : 'Table (scrollable)';
}

function update(): void {
  for (const box of document.querySelectorAll<HTMLElement>('main pre, main .table-wrap, main figure.chart')) {
    const overflows = box.scrollWidth > box.clientWidth + 1;
    const ours = box.hasAttribute(MARK);
    if (overflows && !box.hasAttribute('tabindex')) {
      box.setAttribute(MARK, '');
      box.tabIndex = 0;
      if (!box.hasAttribute('role')) box.setAttribute('role', 'region');
      if (!box.hasAttribute('aria-label') && !box.hasAttribute('aria-labelledby'))
        box.setAttribute('aria-label', label(box));
    } else if (!overflows && ours) {
      box.removeAttribute(MARK);
      box.removeAttribute('tabindex');
    }
  }
}

update();
let pending = 0;
addEventListener('resize', () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(update);
});
