// Architecture identity: a Merkle hash of the module tree validation built, blind to how the code was written.
//
// Decisions (each so that two implementations of the same network share the hash):
// - names are dropped: child attribute names (`self.conv1` vs `self.c1`) and parameter names (`gamma` vs
//   `scale`) are spelling, not architecture;
// - user classes are anonymous (`*`): their identity is their contents; only torch classes keep their name, by
//   last component (`Conv2d`), which survives torch moving classes between modules;
// - torch containers (Sequential, ModuleList, ModuleDict) are transparent: their children are spliced into the
//   parent, so `self.body = nn.Sequential(conv, bn)` equals `self.conv = ...; self.bn = ...`;
// - children and parameters are unordered (sorted by hash): registration order is an accident of the code, and
//   the tree does not record data flow anyway;
// - buffers (BatchNorm running stats) are not in the tree; parameter shapes carry the sizes.
import { createHash } from 'node:crypto';
import type { ModuleTreeChild, ModuleTreeNode } from './types.ts';

const CONTAINERS = new Set(['Sequential', 'ModuleList', 'ModuleDict']);

/** Checks the shape of an untrusted tree; returns the typed tree or a message saying what is wrong. */
export function parseModuleTree(value: unknown, path = 'moduleTree'): ModuleTreeNode | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${path} is not an object`;
  const v = value as Record<string, unknown>;
  if (typeof v.type !== 'string') return `${path}.type is not a string`;
  if (!Array.isArray(v.params)) return `${path}.params is not an array`;
  if (!Array.isArray(v.children)) return `${path}.children is not an array`;
  const params: ModuleTreeNode['params'] = [];
  for (const [i, p] of v.params.entries()) {
    const q = p as Record<string, unknown> | null;
    if (typeof q !== 'object' || q === null || typeof q.name !== 'string' || !Array.isArray(q.shape)) {
      return `${path}.params[${i}] is not { name, shape }`;
    }
    if (!q.shape.every((d) => Number.isInteger(d) && (d as number) >= 0))
      return `${path}.params[${i}].shape is not a list of sizes`;
    params.push({ name: q.name, shape: q.shape as number[] });
  }
  const children: ModuleTreeChild[] = [];
  for (const [i, ch] of v.children.entries()) {
    const parsed = parseModuleTree(ch, `${path}.children[${i}]`);
    if (typeof parsed === 'string') return parsed;
    const name = (ch as Record<string, unknown>).name;
    if (typeof name !== 'string') return `${path}.children[${i}].name is not a string`;
    children.push({ name, ...parsed });
  }
  return { type: v.type, params, children };
}

/** The label a node contributes: torch classes by short name, user classes anonymous. */
function typeLabel(type: string): string {
  return type.startsWith('torch.') ? type.slice(type.lastIndexOf('.') + 1) : '*';
}

function isContainer(type: string): boolean {
  return type.startsWith('torch.') && CONTAINERS.has(typeLabel(type));
}

/** Children with torch containers spliced in, recursively (a Sequential inside a ModuleList too). */
function effectiveChildren(node: ModuleTreeNode): ModuleTreeNode[] {
  const out: ModuleTreeNode[] = [];
  for (const child of node.children) {
    if (isContainer(child.type) && child.params.length === 0) out.push(...effectiveChildren(child));
    else out.push(child);
  }
  return out;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Canonical text of one node: `label(shapes)[child digests]`, children as digests so deep trees stay linear.
 * The root's own class is always anonymous: it is the block being compared.
 */
export function canonicalNode(node: ModuleTreeNode, isRoot: boolean): string {
  const label = isRoot ? '*' : typeLabel(node.type);
  const shapes = node.params.map((p) => p.shape.join('x')).sort();
  const children = effectiveChildren(node)
    .map((c) => sha256(canonicalNode(c, false)))
    .sort();
  return `${label}(${shapes.join(',')})[${children.join(',')}]`;
}

/** SHA-256 (hex) of the canonical tree: equal for two implementations that build the same network. */
export function archHash(tree: ModuleTreeNode): string {
  return sha256(canonicalNode(tree, true));
}
