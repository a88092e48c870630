// A PATH without some tools, to run the real pipeline on a machine that lacks them: a temp folder of links to every
// other program on the current PATH (the first of each name, as a shell would find it).
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tempDir } from './tree.ts';

export function pathWithout(tools: string[]): string {
  const bin = tempDir('nnb-path-');
  const seen = new Set(tools);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (seen.has(name)) continue;
      seen.add(name);
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

/** Runs `fn` with `process.env[name]` set to `value` (deleted when undefined), then restores it. */
export async function withEnv<T>(name: string, value: string | undefined, fn: () => Promise<T>): Promise<T> {
  const before = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  }
}
