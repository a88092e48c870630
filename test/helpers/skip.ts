// Skipping a test with its reason in any reporter's output: the note (shown by the verbose reporter) and a line on
// stderr (the default reporter counts skipped tests but prints no notes).
import type { TestContext } from 'vitest';

export function skipBecause(ctx: TestContext, reason: string): never {
  console.warn(`skipped "${ctx.task.name}": ${reason}`);
  return ctx.skip(reason);
}
