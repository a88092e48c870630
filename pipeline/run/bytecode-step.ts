// The originals' bytecode for the validate step (validate/bytecode.ts), started as soon as the environment is known
// so that it compiles while the blocks are assembled (a child process beside the build's own work), and awaited
// before the workers start. Once per prepared run.
import type { Environment, EnvironmentResult } from '../environment/types.ts';
import { bytecodeRoots, compileBytecode, type BytecodeReport } from '../validate/bytecode.ts';
import type { Prepared, RunContext } from './prepare.ts';

const started = new WeakMap<Prepared, Promise<BytecodeReport | null>>();

export function originalsBytecode(ctx: RunContext, p: Prepared, env: Environment): Promise<BytecodeReport | null> {
  let run = started.get(p);
  if (!run) {
    const packages = new Map<string, Set<string>>();
    for (const b of p.discovered.blocks) {
      const set = packages.get(b.sourceId) ?? new Set<string>();
      set.add(b.module.split('.')[0]);
      packages.set(b.sourceId, set);
    }
    const sources = p.snapshots.map((s) => ({
      kind: s.kind,
      importRoot: s.importRoot,
      packages: [...(packages.get(s.id) ?? [])].sort(),
    }));
    run = compileBytecode(env.python, bytecodeRoots(sources, ctx.config.cacheDir));
    started.set(p, run);
  }
  return run;
}

/** Starts it when there is an environment to validate in (nothing for a --no-validate build); returns at once. */
export function startBytecode(ctx: RunContext, p: Prepared, env: EnvironmentResult | null): void {
  if (env?.ok) void originalsBytecode(ctx, p, env.environment);
}
