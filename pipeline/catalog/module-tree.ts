// The module tree a validation run built, as the catalog publishes it (`composition.tree`): what the block page
// draws as its architecture diagram. The tree is the built module's own report, so as hostile as the code that ran:
// every type must be a dotted Python name and every child name a plain attribute name, or the node is left out; and
// it is capped (MODULE_TREE_LIMITS) breadth first, so a 2,000-node network keeps its top levels rather than one
// deep branch. Parameter *shapes* stay out (sizes per node are enough for a diagram; the hash in dedup has them).
import type { ModuleTreeNode } from '../dedup/types.ts';
import type { ModuleTreeSpec } from '../contract/block-facts.ts';
import { isTreeChildName, isTypeName } from '../contract/rules.ts';
import { MODULE_TREE_LIMITS } from '../contract/vocabulary.ts';

const elements = (shape: number[]) => shape.reduce((n, d) => n * d, 1);

/** The published tree, or null when the root's own type is not a dotted name (then nothing of it is shown). */
export function publishedTree(root: ModuleTreeNode): ModuleTreeSpec | null {
  if (!isTypeName(root.type)) return null;
  const spec = (n: ModuleTreeNode, name?: string): ModuleTreeSpec => ({
    ...(name !== undefined ? { name } : {}),
    type: n.type,
    params: n.params.reduce((sum, p) => sum + elements(p.shape), 0),
    children: [],
  });
  const out = spec(root);
  let budget = MODULE_TREE_LIMITS.nodes - 1;
  // Breadth first: each level is placed before any node of the next.
  let level: { node: ModuleTreeNode; out: ModuleTreeSpec }[] = [{ node: root, out }];
  for (let depth = 1; level.length > 0; depth++) {
    const next: typeof level = [];
    for (const { node, out: parent } of level) {
      for (const child of node.children) {
        const ok = isTypeName(child.type) && isTreeChildName(child.name);
        if (!ok || budget === 0 || depth > MODULE_TREE_LIMITS.depth) {
          parent.truncated = true;
          continue;
        }
        budget--;
        const c = spec(child, child.name);
        parent.children.push(c);
        next.push({ node: child, out: c });
      }
    }
    level = next;
  }
  return out;
}
