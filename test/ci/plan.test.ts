// The workflow's plan step: git sources pinned to the commits `nnblocks sources` resolved, installed distributions
// keyed by version, and cache keys that change exactly when the config or an upstream pin changes.
import { describe, expect, it } from 'vitest';
import { planFromSources } from '../../.github/scripts/plan.ts';
import type { SourceSnapshot } from '../../pipeline/sources/types.ts';

const config = JSON.stringify({
  cacheDir: '.nnblocks',
  sources: [
    { id: 'vision', kind: 'git', url: 'https://example.org/vision.git', ref: 'main' },
    { id: 'tv', kind: 'python', distribution: 'torchvision' },
    { id: '__proto__', kind: 'git', url: 'https://example.org/proto.git', ref: 'v1' },
  ],
});

function snap(id: string, extra: Partial<SourceSnapshot>): SourceSnapshot {
  return {
    id,
    kind: 'git',
    priority: 1,
    status: 'fetched',
    root: '/r',
    importRoot: '/r',
    files: [],
    skipped: [],
    license: { spdx: null, method: 'none' },
    diagnostics: [],
    ...extra,
  };
}

const snapshots = (visionCommit: string, tvVersion = '0.14.1') => [
  snap('vision', { commit: visionCommit }),
  snap('tv', { kind: 'python', distribution: 'torchvision', version: tvVersion }),
  snap('__proto__', { commit: 'b'.repeat(40) }),
];

describe('planFromSources', () => {
  it('pins git refs to the fetched commits and lists the shards', () => {
    const plan = planFromSources(config, snapshots('a'.repeat(40)), 3);
    const pinned = JSON.parse(plan.pinnedConfig);
    expect(pinned.sources.map((s: { ref?: string }) => s.ref)).toEqual(['a'.repeat(40), undefined, 'b'.repeat(40)]);
    expect(plan.shards).toEqual([1, 2, 3]);
    expect(plan.pins.map((p) => p.id)).toEqual(['__proto__', 'tv', 'vision']);
    expect(plan.pins.find((p) => p.id === 'tv')!.pin).toBe('torchvision 0.14.1');
    expect(plan.configKey.startsWith(plan.family)).toBe(true);
  });

  it('changes the pins hash, not the config key, when upstream moves', () => {
    const a = planFromSources(config, snapshots('a'.repeat(40)), 2);
    expect(planFromSources(config, snapshots('a'.repeat(40)), 2)).toEqual(a);
    const bumped = planFromSources(config, snapshots('c'.repeat(40)), 2);
    const upgraded = planFromSources(config, snapshots('a'.repeat(40), '0.15.0'), 2);
    expect(bumped.configKey).toBe(a.configKey);
    expect(new Set([a.pinsHash, bumped.pinsHash, upgraded.pinsHash]).size).toBe(3);
    expect(planFromSources(config.replace('.nnblocks', '.cache'), snapshots('a'.repeat(40)), 2).configKey).not.toBe(
      a.configKey,
    );
  });

  it('leaves a failed source unpinned with a warning', () => {
    const plan = planFromSources(
      config,
      [snap('vision', { status: 'failed' }), ...snapshots('a'.repeat(40)).slice(1)],
      1,
    );
    expect(JSON.parse(plan.pinnedConfig).sources[0].ref).toBe('main');
    expect(plan.warnings).toEqual([expect.stringContaining('vision could not be fetched')]);
  });

  it('rejects a shard count outside 1..64', () => {
    expect(() => planFromSources(config, snapshots('a'.repeat(40)), 0)).toThrow(/--shards/);
    expect(() => planFromSources(config, snapshots('a'.repeat(40)), 2.5)).toThrow(/--shards/);
  });
});
