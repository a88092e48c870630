// The architecture diagram of a block page: the module tree validation built (`composition.tree`) laid out as an
// indented tree — one row per module, children below and right of their parent, joined by elbow lines — between
// the recorded input and output shapes. A layout, not markup: the component draws the boxes as SVG elements, so
// every label is an Astro text node (escaped by construction); nothing here builds an SVG string.
//
// Deterministic (same tree, same numbers) and bounded: at most DIAGRAM_LIMITS.rows rows and DIAGRAM_LIMITS.depth
// levels; what does not fit is folded into a "+N more" row or the parent's "+N inside" note, never dropped silently.
import type { ModuleTreeSpec } from '../../pipeline/contract/block-facts.ts';
import { isShape, isTorchDtype } from '../../pipeline/contract/rules.ts';

export const DIAGRAM_LIMITS = { rows: 40, depth: 3 } as const;

/**
 * Geometry (px, in the SVG's own units): a monospace label at 12px is 7.2px a character in DejaVu Sans Mono and
 * Menlo; CHAR leaves a little over for fonts a bit wider.
 */
const ROW = 30;
const BOX_H = 22;
const INDENT = 26;
const CHAR = 7.4;
const PAD = 8;
const MARGIN = 4;
/** From a box's right edge to its note (Diagram.astro draws the note at `x + w + NOTE_GAP`). */
export const NOTE_GAP = 8;

export type BoxKind = 'io' | 'root' | 'module' | 'more';

export interface DiagramBox {
  kind: BoxKind;
  x: number;
  y: number;
  w: number;
  h: number;
  /** `conv1: Conv2d`, `input 2×64×14×14 float32`. */
  label: string;
  /** Right of the box: `1,728 params`, `+12 inside`. */
  note?: string;
}

export interface DiagramEdge {
  /** SVG path data (`M x y V y H x`), numbers only. */
  d: string;
  arrow: boolean;
}

export interface Diagram {
  width: number;
  height: number;
  boxes: DiagramBox[];
  edges: DiagramEdge[];
  /** Modules in the tree, and how many rows show. */
  modules: number;
  shown: number;
  /** One sentence for <desc>: what the picture shows, for a screen reader. */
  summary: string;
}

export interface TensorFact {
  shape: number[];
  dtype: string;
}

/** `2×64×14×14 float32`; null for a shape or dtype that breaks the catalog's rules (then it is not drawn). */
export function tensorLabel(t: TensorFact): string | null {
  if (!isShape(t.shape) || !isTorchDtype(t.dtype)) return null;
  return `${t.shape.length ? t.shape.join('×') : 'scalar'} ${t.dtype}`;
}

const lastSegment = (type: string) => type.split('.').pop() || type;
const countNodes = (n: ModuleTreeSpec): number => 1 + n.children.reduce((s, c) => s + countNodes(c), 0);
const sumParams = (n: ModuleTreeSpec): number => n.params + n.children.reduce((s, c) => s + sumParams(c), 0);
const fmt = (n: number) => n.toLocaleString('en-US');

export function layoutDiagram(input: {
  name: string;
  tree: ModuleTreeSpec;
  inputs: TensorFact[];
  outputs: TensorFact[];
}): Diagram {
  const boxes: DiagramBox[] = [];
  const edges: DiagramEdge[] = [];
  let row = 0;
  const place = (kind: BoxKind, depth: number, label: string, note?: string): DiagramBox => {
    const box: DiagramBox = {
      kind,
      x: MARGIN + depth * INDENT,
      y: MARGIN + row * ROW,
      w: Math.ceil(label.length * CHAR + 2 * PAD),
      h: BOX_H,
      label,
      ...(note ? { note } : {}),
    };
    row++;
    boxes.push(box);
    return box;
  };
  const ins = input.inputs.map(tensorLabel).filter((l): l is string => l !== null);
  const outs = input.outputs.map(tensorLabel).filter((l): l is string => l !== null);
  const inBox = ins.length ? place('io', 0, `input ${ins.join(', ')}`) : null;

  let shown = 0;
  const modules = countNodes(input.tree);
  const draw = (node: ModuleTreeSpec, depth: number): DiagramBox => {
    const type = lastSegment(node.type);
    // The root is the block itself: its name, and its class only when that says more (a subclass built in its place).
    const label = depth > 0 ? `${node.name}: ${type}` : type === input.name ? input.name : `${input.name}: ${type}`;
    const total = sumParams(node);
    const inside = depth >= DIAGRAM_LIMITS.depth ? countNodes(node) - 1 : 0;
    const notes = [
      total > 0 ? `${fmt(total)} params` : '',
      inside > 0 ? `+${fmt(inside)} inside` : '',
      node.truncated ? 'more not recorded' : '',
    ].filter(Boolean);
    const box = place(depth === 0 ? 'root' : 'module', depth, label, notes.join(' · ') || undefined);
    shown++;
    if (inside > 0) return box;
    let lastY = -1;
    for (const [k, child] of node.children.entries()) {
      // Room for this child and, if more siblings follow, one "+N more" row after it.
      const left = node.children.length - k;
      if (row >= DIAGRAM_LIMITS.rows - (left > 1 ? 1 : 0) - (outs.length ? 1 : 0)) {
        const rest = node.children.slice(k).reduce((s, c) => s + countNodes(c), 0);
        const more = place('more', depth + 1, `+${fmt(rest)} more`);
        lastY = more.y + BOX_H / 2;
        edges.push({ d: `M ${box.x + 10} ${lastY} H ${more.x}`, arrow: false });
        break;
      }
      const c = draw(child, depth + 1);
      lastY = c.y + BOX_H / 2;
      edges.push({ d: `M ${box.x + 10} ${lastY} H ${c.x}`, arrow: false });
    }
    if (lastY >= 0) edges.push({ d: `M ${box.x + 10} ${box.y + BOX_H} V ${lastY}`, arrow: false });
    return box;
  };
  const root = draw(input.tree, 0);
  if (inBox) edges.push({ d: `M ${inBox.x + 10} ${inBox.y + BOX_H} V ${root.y}`, arrow: true });
  if (outs.length) {
    const outBox = place('io', 0, `output ${outs.join(', ')}`);
    // Along the root's trunk, past its children, into the output box: data leaves through the block.
    edges.push({ d: `M ${root.x + 10} ${root.y + BOX_H} V ${outBox.y}`, arrow: true });
  }
  // A note is drawn in the labels' font, NOTE_GAP right of its box: its full width counts ("+2 inside", not "+2 insid").
  const width = Math.max(...boxes.map((b) => b.x + b.w + (b.note ? NOTE_GAP + b.note.length * CHAR : 0))) + MARGIN;
  const summary = [
    `Module tree of ${input.name}: ${fmt(modules)} module${modules === 1 ? '' : 's'}`,
    shown < modules ? `, ${fmt(shown)} shown` : '',
    ins.length ? `; input ${ins.join(', ')}` : '',
    outs.length ? `; output ${outs.join(', ')}` : '',
    '.',
  ].join('');
  return {
    width: Math.ceil(width),
    height: MARGIN * 2 + row * ROW - (ROW - BOX_H),
    boxes,
    edges,
    modules,
    shown,
    summary,
  };
}
