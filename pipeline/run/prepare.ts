// Runs the stages in order for the CLI commands: config → sources → index → program → discover (→ extract ...).
// Each step returns typed records; commands print them. One Store per run, closed by the caller.
import { quietContext, type StageContext } from '../contract/context.ts';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { discoverBlocks, type DiscoverResult } from '../discover/discover.ts';
import { indexSources } from '../index/index.ts';
import { Store } from '../index/store.ts';
import type { IndexResult } from '../index/types.ts';
import { Program } from '../resolve/program.ts';
import { cachedUsageIndex } from '../usage/cached.ts';
import type { UsageIndex } from '../usage/usage-index.ts';
import { kvStore } from './kv-store.ts';
import { loadConfig } from '../config/load.ts';
import type { CorpusConfig } from '../config/types.ts';
import type { EnvironmentResult } from '../environment/types.ts';
import { fetchCorpusSources } from './sources-step.ts';
import type { SourceSnapshot } from '../sources/types.ts';
import type { SourceLabel } from '../assemble/emit.ts';

/** A stage context plus what one run shares: the loaded config and the open index. */
export interface RunContext extends StageContext {
  config: CorpusConfig;
  store: Store;
}

export interface Prepared {
  snapshots: SourceSnapshot[];
  index: IndexResult;
  program: Program;
  discovered: DiscoverResult;
  diagnostics: Diagnostic[];
  timings: Record<string, number>;
  /**
   * Usage mining over the whole index (docs/usage.md), computed on first use: extraction takes builders from it,
   * validation its recipe candidates, the catalog `usedBy`. Every shard sees the same corpus, so the same users.
   */
  usage(): UsageIndex;
  /**
   * Lets go of what the run no longer needs while blocks are validated (usage mining's corpus, the program's derived
   * tables): the build's own memory sits beside every block's sandbox for the whole validate stage. Answers already
   * given stay; anything asked later is derived again.
   */
  settle(): void;
  /** Stores what this run mined of usage (pipeline/usage/cached.ts), for the next run of the same corpus. */
  keep(): void;
  /**
   * The validation environment (pipeline/environment/), resolved on first use: python sources need it while the
   * sources are fetched; validation and requirement versions after. Commands that run no Python never create it.
   */
  environment(): Promise<EnvironmentResult>;
}

/** Loads the config and opens the index; the caller closes `store`. Quiet unless given a terminal's context. */
export function openRun(configPath: string, stage: StageContext = quietContext()): RunContext {
  const config = loadConfig(configPath);
  const store = Store.open(config.cacheDir);
  return { ...stage, config, store };
}

/** Sources, index, program and discovery: what every command after `sources` starts from. */
export async function prepare(ctx: RunContext): Promise<Prepared> {
  const timings: Record<string, number> = {};
  let t = performance.now();
  const { sources, environment } = await fetchCorpusSources(ctx, timings);
  timings.sources = performance.now() - t;
  t = performance.now();
  const usable = sources.snapshots.filter((s) => s.status !== 'failed');
  const index = await indexSources(usable, ctx.store, ctx);
  timings.index = performance.now() - t;
  t = performance.now();
  const program = new Program(index.modules, usable);
  const symbols = new Map<string, string[]>();
  for (const s of usable) if (s.symbols?.length) symbols.set(s.id, s.symbols);
  const discovered = discoverBlocks(program, { symbols, sources: usable.map((s) => s.id) });
  timings.discover = performance.now() - t;
  let usage: UsageIndex | undefined;
  const usageStore = kvStore(ctx.store, USAGE);
  return {
    snapshots: sources.snapshots,
    index,
    program,
    discovered,
    diagnostics: [...sources.diagnostics, ...index.diagnostics, ...discovered.diagnostics],
    timings,
    environment,
    usage: () => {
      if (!usage) {
        const t0 = performance.now();
        usage = cachedUsageIndex(program, discovered.blocks, usageStore);
        timings.usage = performance.now() - t0;
      }
      return usage;
    },
    settle: () => {
      usage?.release?.();
      program.forgetDerived();
    },
    keep: () => usageStore.flush(),
  };
}

/** The kv namespace of each block's usage as last mined (pipeline/usage/cached.ts). */
const USAGE = 'usage';

/** How each source is named in provenance comments of emitted modules. */
export function sourceLabels(snapshots: SourceSnapshot[]): Map<string, SourceLabel> {
  const labels = new Map<string, SourceLabel>();
  for (const s of snapshots) {
    const revision = s.commit
      ? `${s.repository ?? s.url ?? s.id} commit ${s.commit}${s.dirty ? ' (dirty)' : ''}`
      : s.version
        ? `${s.distribution ?? s.id} ${s.version}${s.repository ? ` (${s.repository}${s.tag ? ` tag ${s.tag}` : ''})` : ''}`
        : s.root;
    labels.set(s.id, { revision, license: s.license?.spdx ?? null });
  }
  return labels;
}
