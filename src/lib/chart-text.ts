// Text widths for the SVG charts, drawn at build time where nothing can measure text: an estimate that errs wide,
// since a label given too much room wastes a few pixels and one given too little is cut at the picture's edge
// ("Detection and segment…" drawn from x = -4). Charts lay their columns out from it.

/** Width in px of `text` in the site's sans-serif at `fontPx`: 0.6 em a character, 0.75 for capitals, m and w. */
export function textWidth(text: string, fontPx: number): number {
  let em = 0;
  for (const ch of text) em += /[A-Z@%mwMW—]/.test(ch) ? 0.75 : 0.6;
  return em * fontPx;
}

/** `text`, cut to fit `maxPx` with a trailing "…". */
export function fitText(text: string, maxPx: number, fontPx: number): string {
  if (textWidth(text, fontPx) <= maxPx) return text;
  let cut = text;
  while (cut.length > 1 && textWidth(`${cut}…`, fontPx) > maxPx) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}
