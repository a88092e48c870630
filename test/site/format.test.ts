// Counts as the site writes them (src/lib/format.ts): grouped digits, and a noun that agrees with the count — a
// search filter's count was read out as "1 blocks".
import { describe, expect, it } from 'vitest';
import { counted } from '../../src/lib/format.ts';

describe('a count with its noun', () => {
  it.each([
    [1, '1 block'],
    [0, '0 blocks'],
    [2, '2 blocks'],
    [1311, '1,311 blocks'],
  ])('%i → %s', (n, text) => {
    expect(counted(n, 'block')).toBe(text);
  });
});
