// node-tree-sitter frees a tree's native memory only in its wrapper's finalizer, after a GC and a turn of the event
// loop; V8 does not see that memory. `releaseTrees` must bound what a parsing loop holds, and `collectGarbage` must
// really collect (V8's `gc({ type: 'major' })` collected nothing on Node 20, silently).
import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../pipeline/util/memory.ts';
import { releaseTrees, treeSitterParser } from '../../pipeline/util/tree-sitter.ts';

const MB = 1024 * 1024;
// ~150 KB of source: about 7 MB of tree.
const CODE = 'class A(nn.Module):\n    def forward(self, x):\n        return self.conv(x) + 1\n'.repeat(2000);

describe('parse tree memory', () => {
  it('stays bounded when a loop releases its trees every few megabytes of source', async () => {
    await releaseTrees();
    const before = process.memoryUsage().rss;
    // 100 trees, ~700 MB if none were freed before the loop ends.
    for (let i = 1; i <= 100; i++) {
      expect(treeSitterParser().parse(CODE).rootNode.namedChildren.length).toBe(2000);
      if (i % 10 === 0) await releaseTrees();
    }
    expect((process.memoryUsage().rss - before) / MB).toBeLessThan(250);
  }, 60_000);

  it('collects garbage on request', async () => {
    const holder: { arrays?: number[][] } = {
      arrays: Array.from({ length: 100 }, (_, i) => Array.from({ length: 50_000 }, (_, j) => i + j / 2)),
    };
    const withIt = process.memoryUsage().heapUsed;
    expect(holder.arrays).toHaveLength(100);
    delete holder.arrays;
    await collectGarbage();
    expect((withIt - process.memoryUsage().heapUsed) / MB).toBeGreaterThan(20);
  });
});
