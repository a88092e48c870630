// The sources step with the validation environment wired in: python sources are located with the environment's
// interpreter, which is resolved (created, the first time on a machine) from what the other sources declare.
// `prepare` and `nnblocks sources` / `nnblocks environment` share it, so every command sees the same interpreter.
import { loadConfig } from '../config/load.ts';
import { resolveEnvironment } from '../environment/environment.ts';
import type { EnvironmentResult } from '../environment/types.ts';
import type { CorpusConfig } from '../config/types.ts';
import type { StageContext } from '../contract/context.ts';
import { fetchSources } from '../sources/fetch.ts';
import type { SourcesResult, SourceSnapshot } from '../sources/types.ts';

export type { SourceSnapshot };

export interface CorpusSources {
  sources: SourcesResult;
  /** The environment, resolved on first use (or already during the fetch, for python sources). */
  environment(): Promise<EnvironmentResult>;
}

export async function fetchCorpusSources(
  ctx: StageContext & { config: CorpusConfig },
  timings: Record<string, number> = {},
): Promise<CorpusSources> {
  let env: Promise<EnvironmentResult> | undefined;
  let fetched: SourceSnapshot[] = [];
  const environment = (snapshots: SourceSnapshot[]) => {
    if (!env) {
      const t0 = performance.now();
      env = resolveEnvironment(ctx.config, snapshots, ctx);
      // Counted once, whichever step needed it first (inside `sources` when a python source asked).
      void env.then(() => (timings.environment = performance.now() - t0));
    }
    return env;
  };
  const sources = await fetchSources(ctx.config, ctx, {
    python: async (others) => {
      const r = await environment(others);
      if (r.ok) return { ok: true, host: r.environment.host };
      const d = r.diagnostics.find((x) => x.severity === 'error') ?? r.diagnostics[0];
      return { ok: false, diagnostic: { ...d, stage: 'sources' } };
    },
  });
  fetched = sources.snapshots;
  return { sources, environment: () => environment(fetched) };
}

/**
 * `nnblocks sources` and `nnblocks environment`: the config at `configPath` loaded and its sources fetched, with the
 * environment on demand. No index is opened: these commands load no later stage.
 */
export async function corpusSources(
  configPath: string,
  stage: StageContext,
): Promise<CorpusSources & { config: CorpusConfig }> {
  const config = loadConfig(configPath);
  return { config, ...(await fetchCorpusSources({ ...stage, config })) };
}
