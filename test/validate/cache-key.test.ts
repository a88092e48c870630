// A validation result is found again when anything that can change it changes: here, the sandbox's walls. A wall
// that stops DNS turned a sandbox violation (the kernel counting a resolver's packets) into an ordinary failure;
// the violation cached behind the old walls must not be served after.
import { describe, expect, it } from 'vitest';
import { cacheKey, type CacheKeyParts } from '../../pipeline/validate/cache-key.ts';
import { SANDBOX_WALLS } from '../../pipeline/validate/sandbox.ts';
import type { ValidateItem } from '../../pipeline/validate/types.ts';

const item = {
  id: 'p:m.Block',
  module: 'm',
  className: 'Block',
  moduleHash: 'abc',
  blockedPackages: [],
} as unknown as ValidateItem;

const parts: CacheKeyParts = {
  runnerVersion: 'r',
  torchVersion: '2.14.1',
  device: 'cpu',
  timeoutMs: 1000,
  memoryBytes: 1 << 30,
  sandbox: true,
};

describe('cacheKey', () => {
  it('changes with the sandbox walls', () => {
    const before = cacheKey(item, { ...parts, walls: 'walls/1' });
    expect(cacheKey(item, { ...parts, walls: SANDBOX_WALLS })).not.toBe(before);
    expect(cacheKey(item, { ...parts, walls: 'walls/1' })).toBe(before);
  });

  it('keeps the key of an unsandboxed run, which has no walls', () => {
    expect(cacheKey(item, { ...parts, sandbox: false })).toBe(cacheKey(item, { ...parts, sandbox: false }));
    expect(cacheKey(item, { ...parts, sandbox: false })).not.toBe(cacheKey(item, { ...parts, walls: SANDBOX_WALLS }));
  });
});
