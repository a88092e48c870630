// Maps the top-level packages an emitted module imports to installed distributions and versions, by asking the
// Python interpreter once (importlib.metadata), so a manifest says e.g. { name: 'torch', version: '1.13.0a0' }.
import { execFileSync } from 'node:child_process';
import { probeArgs, type HostPython } from '../sources/python-dist.ts';
import { sha256 } from '../index/hash.ts';
import type { AssemblyCacheStore } from './cache.ts';
import type { ManifestEntry, Requirement } from './extract.ts';
import { STDLIB } from './stdlib.ts';

const PROBE = `
import json, sys
from importlib import metadata
tops = json.loads(sys.stdin.read())
dists = metadata.packages_distributions()
out = {}
for t in tops:
    for d in dists.get(t, []):
        try:
            out[t] = {"name": d, "version": metadata.version(d)}
            break
        except Exception:
            pass
print(json.dumps(out))
`;

/**
 * Where the answers of one environment are kept between runs: `key` identifies the interpreter and its installed
 * set (the environment's key), so a warm run starts no Python for them.
 */
export interface VersionMemo {
  key: string;
  store: AssemblyCacheStore;
}

/** Requirement per top-level import name; stdlib names are left out; unknown ones get version null. */
export function requirementVersions(
  python: HostPython | null,
  tops: string[],
  memo?: VersionMemo,
): Map<string, Requirement> {
  const wanted = [...new Set(tops)].filter((t) => !STDLIB.has(t)).sort();
  const out = new Map<string, Requirement>();
  let found: Record<string, Requirement> = {};
  const memoKey = memo && sha256(JSON.stringify([memo.key, python?.path, wanted]));
  const known = memoKey ? memo.store.get(memoKey) : undefined;
  if (known) found = JSON.parse(known) as Record<string, Requirement>;
  else if (python && wanted.length) {
    try {
      const text = execFileSync(python.path, ['-I', ...probeArgs(python, PROBE)], {
        cwd: '/',
        input: JSON.stringify(wanted),
        encoding: 'utf8',
        timeout: 60_000,
      });
      found = JSON.parse(text);
      if (memoKey) memo.store.put(memoKey, JSON.stringify(found));
    } catch {
      found = {};
    }
  }
  for (const t of wanted) out.set(t, found[t] ?? { name: t, version: null });
  return out;
}

/** One Python probe for all blocks: fills each manifest entry's requirements with the installed distribution. */
export function attachRequirementVersions(
  python: HostPython | null,
  extracted: { entry: ManifestEntry }[],
  memo?: VersionMemo,
): void {
  const versions = requirementVersions(
    python,
    extracted.flatMap((e) => e.entry.requires.map((r) => r.name)),
    memo,
  );
  for (const e of extracted) e.entry.requires = e.entry.requires.map((r) => versions.get(r.name) ?? r);
}
