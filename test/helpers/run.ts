// Runs the orchestrator's first steps (sources → index → program → discover) on a corpus config written inline,
// for tests that need real sources (git repos, folders) and the run context the later steps take.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openRun, prepare, type Prepared, type RunContext } from '../../pipeline/run/prepare.ts';
import { tempDir } from './tree.ts';

/** Writes a corpus config (cache in its own temp folder unless given) and returns its path. */
export function writeConfig(sources: object[], extra: Record<string, unknown> = {}): string {
  const dir = tempDir('nnb-cfg-');
  const config = join(dir, 'corpus.json');
  writeFileSync(config, JSON.stringify({ name: 'fixture', cacheDir: join(dir, 'cache'), ...extra, sources }, null, 2));
  return config;
}

/** Opens a run on `config` and prepares it; the caller closes `ctx.store`. */
export async function prepareRun(config: string): Promise<{ ctx: RunContext; p: Prepared }> {
  const ctx = openRun(config);
  return { ctx, p: await prepare(ctx) };
}
