// Definition-before-use order: hard edges (read when a statement runs) always hold; soft edges (read by code a
// statement may call when it runs) hold whenever they can, and only a cycle of hard edges is reported.
import { describe, expect, it } from 'vitest';
import { orderNodes, type OrderNode } from '../../pipeline/assemble/order.ts';

const node = (key: string, deps: string[] = [], soft: string[] = []): OrderNode => ({
  key,
  sortKey: key,
  deps: new Set(deps),
  soft: new Set(soft),
});

describe('orderNodes', () => {
  it('a soft edge moves a later-sorted definition first (a decorator whose body reads a global)', () => {
    // a: `@compat def helper`, reads compat (hard) and, through compat's body, VERSION (soft).
    const { order, cycles } = orderNodes([
      node('a_helper', ['b_compat'], ['z_version']),
      node('b_compat'),
      node('z_version'),
    ]);
    expect(order.indexOf('z_version')).toBeLessThan(order.indexOf('a_helper'));
    expect(order.indexOf('b_compat')).toBeLessThan(order.indexOf('a_helper'));
    expect(cycles).toEqual([]);
  });

  it('a cycle of soft edges gives way to the hard ones, and is not reported', () => {
    // x and y each may call the other's code at import time; y also reads x (hard).
    const { order, cycles } = orderNodes([node('x', [], ['y']), node('y', ['x'], ['x'])]);
    expect(order).toEqual(['x', 'y']);
    expect(cycles).toEqual([]);
  });

  it('on a cycle of soft edges, the statement most others wait on goes first (transformers: its logger)', () => {
    // a_check and b_check call is_available() at import, whose body reads z_logger; z_logger's own soft edges (what
    // get_logger may reach) close the cycle through a_check. By sort order a_check would go first, before z_logger.
    const { order, cycles } = orderNodes([
      node('a_check', [], ['z_logger']),
      node('b_check', [], ['z_logger']),
      node('z_logger', [], ['a_check']),
    ]);
    expect(order[0]).toBe('z_logger');
    expect(cycles).toEqual([]);
  });

  it('on a cycle of soft edges, a statement on the cycle goes first, not one more statements wait on (transformers: CONFIG_MAPPING)', () => {
    // a_config and its subclasses are decorated with a_docstring, whose body reads the namespace z_ns; z_ns holds
    // y_mapping = m_lazy(...), and m_lazy's methods reach z_ns again. More statements wait on a_config than on
    // m_lazy, but a_config is no part of the cycle: placed first, it would run its decorator before z_ns existed.
    const { order, cycles } = orderNodes([
      node('a_config', [], ['z_ns']),
      node('b_sub', ['a_config'], ['z_ns']),
      node('c_sub', ['a_config'], ['z_ns']),
      node('m_lazy', [], ['z_ns']),
      node('y_mapping', ['m_lazy'], ['z_ns']),
      node('z_ns', ['y_mapping']),
    ]);
    expect(order.indexOf('z_ns')).toBeLessThan(order.indexOf('a_config'));
    expect(order.slice(0, 3)).toEqual(['m_lazy', 'y_mapping', 'z_ns']);
    expect(cycles).toEqual([]);
  });

  it('a cycle of hard edges is placed in sort order and reported', () => {
    const { order, cycles } = orderNodes([node('p', ['q']), node('q', ['p'])]);
    expect(order).toEqual(['p', 'q']);
    expect(cycles).toEqual(['p']);
  });
});
