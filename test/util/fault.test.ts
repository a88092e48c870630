// NNBLOCKS_FAULT parsing (pipeline/util/fault.ts): a malformed value must stop the run, never run it without its fault.
import { describe, expect, it } from 'vitest';
import { parseFault } from '../../pipeline/util/fault.ts';

describe('NNBLOCKS_FAULT', () => {
  it('is off when unset or empty', () => {
    expect(parseFault(undefined)).toBeNull();
    expect(parseFault('')).toBeNull();
  });

  it('reads <point>:<n>', () => {
    expect(parseFault('parse:40')).toEqual({ point: 'parse', n: 40, count: 0 });
    expect(parseFault('write:1')).toEqual({ point: 'write', n: 1, count: 0 });
  });

  it.each([
    ['parse', 'no count'],
    ['parse:0', 'counts start at 1'],
    ['parse:-1', 'not a count'],
    ['index:3', 'not a fault point (a typo would otherwise run to the end)'],
    ['PARSE:3', 'points are lower case'],
  ])('rejects %s (%s), naming the points', (value) => {
    expect(() => parseFault(value)).toThrow(/points are sync, parse, commit, validate, write/);
  });
});
