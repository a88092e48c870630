// Number and text formatting shared by pages and charts; pure functions, no locale surprises (fixed en-US).
const grouped = new Intl.NumberFormat('en-US');

export const count = (n: number): string => grouped.format(n);

/** 1234567 → '1.23M'; small counts stay exact. */
export function compact(n: number): string {
  if (n < 10_000) return grouped.format(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`;
  if (n < 1_000_000_000) return `${(n / 1e6).toFixed(2)}M`;
  return `${(n / 1e9).toFixed(2)}B`;
}

const MAC_UNITS = ['', 'k', 'M', 'G', 'T', 'P'];

/**
 * A multiply-accumulate count with its unit: 4089184256 → '4.1 GMACs', 216589760 → '217 MMACs'. One decimal below
 * 100 of the unit, none above; the unit is picked after rounding, so 999,960,000 is '1.0 GMACs', not '1000 MMACs'.
 */
export function macs(n: number): string {
  if (n < 1000) return `${grouped.format(n)} ${n === 1 ? 'MAC' : 'MACs'}`;
  for (let k = 1; ; k++) {
    const v = n / 1000 ** k;
    const text = v < 99.95 ? v.toFixed(1) : v.toFixed(0);
    if (Number(text) < 1000 || k === MAC_UNITS.length - 1) return `${text} ${MAC_UNITS[k]}MACs`;
  }
}

/** `1 block`, `2 blocks`, `1,311 blocks`: a count with its noun, singular for one. */
export const counted = (n: number, noun: string): string => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;

export const percent = (x: number, digits = 1): string => `${(x * 100).toFixed(digits)}%`;

export const shape = (dims: number[]): string => `[${dims.join(', ')}]`;

/** One line, at most `max` characters: upstream annotation or default text can span lines. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Quote for a POSIX shell: ids carry `:` and upstream names. */
export const shellQuote = (s: string): string => (/^[\w.:/@=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
