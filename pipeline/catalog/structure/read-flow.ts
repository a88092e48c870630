// A forward's data flow, read from its syntax tree: what each value is derived from, and every add, multiply, matrix
// product and concatenation with its two operands. A value is a set of *steps* (the submodules, functions and tensor
// methods it went through) and whether it is still the *stream*: the block's input, an alias of it, or the input
// through a shortcut (`self.downsample(x)`) or a residual add. Enough to tell the ideas the taxonomy matches apart:
//
//   x = x + self.drop_path(self.attn(self.norm1(x)))    # add(stream, {self.drop_path, self.attn, self.norm1}): residual
//   return x * self.gate(self.fc(x.mean((2, 3))))       # mul(stream, {self.gate, self.fc, m:mean(2,3)}): a gate
//   return x.mul_(self.gamma)                            # mul(stream, {attr:gamma}): a scale by a parameter
//
// Helpers are followed with their arguments' values bound to their parameters (depth 3): methods of the class
// (`self._attn(x)`), functions nested in forward (OpenMMLab's `_inner_forward`, also through `cp.checkpoint(f, x)`),
// and module-level functions (`shifted_window_attention(...)`). `getattr(self, name)(...)` follows every method.
import type { Node } from './syntax.ts';

export interface Operand {
  stream: boolean;
  /** Sorted step tokens: `self.<attr>` (a submodule call), `attr:<name>` (a self attribute read), `fn:<dotted>(<literal args>)`, `m:<method>(<literal args>)`, `arg` (another input). */
  via: string[];
}

export interface FlowEvent {
  op: 'add' | 'mul' | 'matmul' | 'cat';
  a: Operand;
  b: Operand;
}

export interface FlowReading {
  events: FlowEvent[];
  /** Every call made (step tokens), forward and the helpers it reaches. */
  calls: string[];
}

interface Val {
  stream: boolean;
  via: Set<string>;
  /** The local names a submodule (`for blk in self.blocks`) or a function (`def _inner_forward`). */
  module?: string;
  fn?: Node;
  /** `getattr(self, self.mode)`: some method of the class, which one decided at run time. */
  anyMethod?: true;
}

const MAX_VIA = 48;
const MAX_DEPTH = 3;
const MAX_EVENTS = 400;
const EMPTY = (): Val => ({ stream: false, via: new Set() });
/**
 * Tensor methods that only rearrange or convert: the value stays what it was (the stream included); `pop` takes an
 * element of a list of inputs (`x = args.pop(0)`), as a subscript does.
 */
const TRANSPARENT =
  /^(view|reshape|permute|transpose|contiguous|flatten|unflatten|unsqueeze|squeeze|expand|expand_as|view_as|reshape_as|chunk|split|unbind|to|type|type_as|float|half|double|clone|detach|movedim|narrow|repeat|flip|roll|pad|t|pop)$/;
const TRANSPARENT_FN =
  /^(F\.pad|torch\.nn\.functional\.pad|torch\.(flatten|reshape|permute|transpose|squeeze|unsqueeze|chunk|split|roll)|rearrange|einops\.rearrange)$/;
/** A submodule that carries the input to the residual add: the shortcut path, not a branch. */
const SHORTCUT = /short|skip|downsample|^down$|identity|^res(idual)?(_conv|_proj)?$|^sc$|^proj_shortcut$/i;
const CHECKPOINT = /(^|\.)checkpoint(_sequential)?$/;

const union = (...vs: Val[]): Val => {
  const via = new Set<string>();
  for (const v of vs) for (const s of v.via) if (via.size < MAX_VIA) via.add(s);
  return { stream: false, via };
};
const isEmpty = (v: Val) => !v.stream && v.via.size === 0;
const operand = (v: Val): Operand => ({ stream: v.stream, via: [...v.via].sort() });

/** Literal arguments as a short signature: `x.mean((2, 3), keepdim=True)` → `2,3`; `dim=1` → `1`. */
function literalArgs(args: Node[]): string {
  const out: string[] = [];
  for (const a of args) {
    const value = a.type === 'keyword_argument' ? a.childForFieldName('value')! : a;
    const key = a.type === 'keyword_argument' ? a.childForFieldName('name')!.text : '';
    if (key === 'keepdim' || key === 'inplace') continue;
    if (value.descendantsOfType('identifier').length > 0 && value.type !== 'identifier') continue;
    if (/^(-?\d+|\(?[-\d,\s]+\)?|\[[-\d,\s]+\])$/.test(value.text) || value.type === 'string')
      out.push(value.text.replace(/[\s()[\]'"]/g, ''));
  }
  return out.join(',').slice(0, 24);
}

export function readFlow(forward: Node, methods: Map<string, Node>, functions: Map<string, Node>): FlowReading {
  const r = new FlowReader(methods, functions);
  r.run(forward, null);
  return { events: r.events, calls: [...r.calls].sort() };
}

class FlowReader {
  readonly events: FlowEvent[] = [];
  readonly calls = new Set<string>();
  private depth = 0;

  constructor(
    private readonly methods: Map<string, Node>,
    private readonly functions: Map<string, Node>,
  ) {}

  /** Evaluates a function with its parameters bound (`null`: forward, whose first input is the stream); its return. */
  run(fn: Node, args: Val[] | null, env = new Map<string, Val>()): Val {
    const params = (fn.childForFieldName('parameters')?.namedChildren ?? [])
      .map((p) => (p.type === 'identifier' ? p : (p.childForFieldName('name') ?? p.namedChildren[0])))
      .filter((p): p is Node => p?.type === 'identifier')
      .map((p) => p.text);
    const own = params[0] === 'self' || params[0] === 'cls' ? params.slice(1) : params;
    for (const [i, p] of own.entries())
      env.set(
        p,
        args
          ? (args[i] ?? EMPTY())
          : i === 0
            ? { stream: true, via: new Set() }
            : { stream: false, via: new Set(['arg']) },
      );
    const returns: Val[] = [];
    this.block(fn.childForFieldName('body'), env, returns);
    if (returns.length === 0) return EMPTY();
    const out = union(...returns);
    out.stream = returns.some((v) => v.stream);
    return out;
  }

  private block(b: Node | null, env: Map<string, Val>, returns: Val[]): void {
    for (const s of b?.namedChildren ?? []) this.statement(s, env, returns);
  }

  private statement(s: Node, env: Map<string, Val>, returns: Val[]): void {
    switch (s.type) {
      case 'expression_statement': {
        const e = s.namedChildren[0];
        if (!e) return;
        if (e.type === 'assignment') this.assign(e.childForFieldName('left')!, e.childForFieldName('right'), env);
        else if (e.type === 'augmented_assignment') this.augmented(e, env);
        else this.value(e, env);
        return;
      }
      case 'return_statement':
        if (s.namedChildren[0]) returns.push(this.value(s.namedChildren[0], env));
        return;
      case 'function_definition':
        // `def _inner_forward(x): ...` inside forward: run when called.
        env.set(s.childForFieldName('name')!.text, { ...EMPTY(), fn: s });
        return;
      case 'if_statement':
        return this.ifStatement(s, env, returns);
      case 'for_statement':
        return this.forStatement(s, env, returns);
      case 'while_statement':
      case 'with_statement':
      case 'try_statement':
        for (const c of s.namedChildren)
          if (c.type === 'block') this.block(c, env, returns);
          else if (/clause$/.test(c.type))
            this.block(c.childForFieldName('body') ?? c.namedChildren.at(-1) ?? null, env, returns);
        return;
      default:
        return;
    }
  }

  /** Each branch on its own copy of the names; after the if, a name holds what any branch left in it. */
  private ifStatement(s: Node, env: Map<string, Val>, returns: Val[]): void {
    const branches = s.namedChildren.filter((c) => c.type === 'block' || /clause$/.test(c.type));
    const envs = branches.map((c) => {
      const e = new Map(env);
      this.block(c.type === 'block' ? c : (c.childForFieldName('body') ?? c.namedChildren.at(-1) ?? null), e, returns);
      return e;
    });
    if (!branches.some((c) => c.type === 'else_clause')) envs.push(new Map(env));
    for (const e of envs)
      for (const [k, v] of e) {
        const before = env.get(k);
        if (!before || before === v) env.set(k, v);
        else
          env.set(k, {
            ...union(before, v),
            stream: before.stream || v.stream,
            module: v.module ?? before.module,
            fn: v.fn ?? before.fn,
          });
      }
  }

  /** `for blk in self.blocks:` binds a submodule; the body runs once. */
  private forStatement(s: Node, env: Map<string, Val>, returns: Val[]): void {
    const left = s.childForFieldName('left');
    const right = s.childForFieldName('right');
    if (left?.type === 'identifier' && right) {
      const attr =
        right.type === 'attribute' && right.childForFieldName('object')?.text === 'self'
          ? right.childForFieldName('attribute')!.text
          : undefined;
      env.set(left.text, attr ? { ...EMPTY(), module: attr } : this.value(right, env));
    }
    this.block(s.childForFieldName('body'), env, returns);
  }

  private assign(left: Node, right: Node | null, env: Map<string, Val>): void {
    if (!right) return;
    if (right.type === 'assignment') {
      this.assign(right.childForFieldName('left')!, right.childForFieldName('right'), env);
      right = right.childForFieldName('left')!;
    }
    const targets = left.type === 'pattern_list' || left.type === 'tuple_pattern' ? left.namedChildren : [left];
    const values =
      (right.type === 'expression_list' || right.type === 'tuple') && right.namedChildren.length === targets.length
        ? right.namedChildren.map((n) => this.value(n, env))
        : targets.map(() => undefined);
    const whole = values[0] === undefined ? this.value(right, env) : undefined;
    for (const [i, t] of targets.entries()) {
      const v = values[i] ?? whole!;
      if (t.type === 'identifier') env.set(t.text, v);
      else if (t.type === 'list_splat_pattern' && t.namedChildren[0]) env.set(t.namedChildren[0].text, v);
    }
  }

  private augmented(e: Node, env: Map<string, Val>): void {
    const left = e.childForFieldName('left')!;
    const op = e.childForFieldName('operator')!.text;
    const a = this.value(left, env);
    const b = this.value(e.childForFieldName('right')!, env);
    const out = this.binary(op.slice(0, -1), a, b);
    if (left.type === 'identifier') env.set(left.text, out);
  }

  private record(op: FlowEvent['op'], a: Val, b: Val): void {
    if (this.events.length < MAX_EVENTS && !isEmpty(a) && !isEmpty(b))
      this.events.push({ op, a: operand(a), b: operand(b) });
  }

  private binary(op: string, a: Val, b: Val): Val {
    const kind = op === '+' ? 'add' : op === '*' ? 'mul' : op === '@' ? 'matmul' : undefined;
    if (kind) this.record(kind, a, b);
    // Scaled by a number (`x * 0.5`, `attn / d ** 0.5`): still what it was.
    if (isEmpty(b)) return a;
    if (isEmpty(a)) return b;
    const out = union(a, b);
    // A residual add keeps the stream going; so does gating or scaling the stream.
    out.stream = (kind === 'add' || kind === 'mul') && (a.stream || b.stream);
    return out;
  }

  private value(n: Node, env: Map<string, Val>): Val {
    switch (n.type) {
      case 'identifier':
        return env.get(n.text) ?? EMPTY();
      case 'parenthesized_expression':
      case 'unary_operator':
      case 'not_operator':
      case 'await':
        return n.namedChildren[0] ? this.value(n.namedChildren.at(-1)!, env) : EMPTY();
      case 'attribute': {
        const obj = n.childForFieldName('object')!;
        const attr = n.childForFieldName('attribute')!.text;
        if (obj.type === 'identifier' && obj.text === 'self')
          return { stream: false, via: new Set([`attr:${attr}`]), module: attr };
        const v = this.value(obj, env);
        return attr === 'T' || attr === 'mT' || attr === 'data' ? v : EMPTY();
      }
      case 'subscript':
        return this.value(n.childForFieldName('value')!, env);
      case 'binary_operator':
        return this.binary(
          n.childForFieldName('operator')!.text,
          this.value(n.childForFieldName('left')!, env),
          this.value(n.childForFieldName('right')!, env),
        );
      case 'conditional_expression':
      case 'boolean_operator': {
        const parts =
          n.type === 'conditional_expression'
            ? [n.namedChildren[0], n.namedChildren[2]]
            : [n.childForFieldName('left')!, n.childForFieldName('right')!];
        const vs = parts.filter(Boolean).map((p) => this.value(p, env));
        const out = union(...vs);
        out.stream = vs.some((v) => v.stream);
        return out;
      }
      case 'list':
      case 'tuple':
      case 'expression_list':
        return union(...n.namedChildren.map((c) => this.value(c, env)));
      case 'call':
        return this.call(n, env);
      default:
        return EMPTY();
    }
  }

  private args(c: Node, env: Map<string, Val>): { nodes: Node[]; vals: Val[] } {
    const nodes = c.childForFieldName('arguments')?.namedChildren.filter((a) => a.type !== 'comment') ?? [];
    const vals = nodes.map((a) =>
      this.value(
        a.type === 'keyword_argument'
          ? a.childForFieldName('value')!
          : a.type === 'list_splat'
            ? (a.namedChildren[0] ?? a)
            : a,
        env,
      ),
    );
    return { nodes, vals };
  }

  /** Runs a helper with the arguments' values; past the depth limit, its value is the arguments'. */
  private enter(fn: Node, vals: Val[], token: string): Val {
    this.calls.add(token);
    if (this.depth >= MAX_DEPTH) return union(...vals);
    this.depth++;
    try {
      const out = this.run(fn, vals);
      if (isEmpty(out)) return union(...vals);
      return out;
    } finally {
      this.depth--;
    }
  }

  private call(c: Node, env: Map<string, Val>): Val {
    const fn = c.childForFieldName('function')!;
    const { nodes, vals } = this.args(c, env);
    // getattr(self, self.mode)(a, b), or through a local: any method may run.
    const dynamic =
      fn.type === 'call' ? this.getattrOfSelf(fn) : env.get(fn.text)?.anyMethod === true && fn.type === 'identifier';
    if (dynamic) return this.anyMethod(vals);
    if (this.getattrOfSelf(c)) return { ...EMPTY(), anyMethod: true };
    if (fn.type === 'identifier') {
      // `args = list(args)`: the same values in a list (PyG's DeepGCNLayer takes `*args` and pops its input).
      if ((fn.text === 'list' || fn.text === 'tuple') && vals.length === 1 && !env.has(fn.text)) return vals[0];
      const local = env.get(fn.text);
      if (local?.fn) return this.enter(local.fn, vals, `fn:${fn.text}`);
      if (local?.module) return this.through(local.module, vals, nodes);
      const f = this.functions.get(fn.text);
      if (f) return this.enter(f, vals, `fn:${fn.text}`);
    }
    if (fn.type === 'subscript') {
      // `self.layers[i](x)`
      const v = fn.childForFieldName('value')!;
      if (v.type === 'attribute' && v.childForFieldName('object')?.text === 'self')
        return this.through(v.childForFieldName('attribute')!.text, vals, nodes);
    }
    if (fn.type !== 'attribute') return union(...vals);
    const obj = fn.childForFieldName('object')!;
    const name = fn.childForFieldName('attribute')!.text;
    if (obj.type === 'identifier' && obj.text === 'self') {
      const m = this.methods.get(name);
      if (m) return this.enter(m, vals, `self-method:${name}`);
      return this.through(name, vals, nodes);
    }
    const head = fn.text.split('.')[0];
    const dotted = /^[A-Za-z_][\w.]*$/.test(fn.text) && head !== 'self' && !env.has(head) ? fn.text : undefined;
    if (dotted) return this.function(dotted, c, nodes, vals, env);
    return this.method(name, this.value(obj, env), nodes, vals);
  }

  private getattrOfSelf(c: Node): boolean {
    const f = c.childForFieldName('function');
    const first = c.childForFieldName('arguments')?.namedChildren[0];
    return f?.text === 'getattr' && first?.text === 'self';
  }

  private anyMethod(vals: Val[]): Val {
    const outs = [...this.methods.entries()]
      .filter(([k]) => k !== 'forward' && k !== '__init__')
      .map(([k, m]) => this.enter(m, vals, `self-method:${k}`));
    return union(...outs, ...vals);
  }

  /** A submodule called: its token, the stream kept only through a shortcut path. */
  private through(attr: string, vals: Val[], nodes: Node[]): Val {
    const token = `self.${attr}`;
    this.calls.add(token);
    const out = union(...vals);
    out.via.add(token);
    out.stream = SHORTCUT.test(attr) && vals[0]?.stream === true && nodes.length > 0;
    return out;
  }

  private function(dotted: string, c: Node, nodes: Node[], vals: Val[], env: Map<string, Val>): Val {
    const last = dotted.slice(dotted.lastIndexOf('.') + 1);
    if (CHECKPOINT.test(dotted) && nodes[0]) {
      // cp.checkpoint(_inner_forward, x): the function, run on the rest.
      const f =
        env.get(nodes[0].text)?.fn ??
        (nodes[0].type === 'attribute' && nodes[0].childForFieldName('object')?.text === 'self'
          ? this.methods.get(nodes[0].childForFieldName('attribute')!.text)
          : undefined);
      if (f) return this.enter(f, vals.slice(1), `fn:${nodes[0].text}`);
      if (env.get(nodes[0].text)?.module)
        return this.through(env.get(nodes[0].text)!.module!, vals.slice(1), nodes.slice(1));
    }
    if (/^torch\.(add)$/.test(dotted) && vals.length >= 2) return this.binary('+', vals[0], vals[1]);
    if (/^torch\.(mul|multiply)$/.test(dotted) && vals.length >= 2) return this.binary('*', vals[0], vals[1]);
    if (/^torch\.(matmul|bmm|mm)$/.test(dotted) && vals.length >= 2) return this.binary('@', vals[0], vals[1]);
    if (/^torch\.einsum$/.test(dotted) && vals.length >= 3) return this.binary('@', vals[1], vals[2]);
    // torch.addcmul(b, a, x) = b + a * x (ResMLP's Affine)
    if (/^torch\.addcmul$/.test(dotted) && vals.length >= 3)
      return this.binary('+', vals[0], this.binary('*', vals[1], vals[2]));
    const token = `fn:${dotted}(${literalArgs(nodes)})`;
    this.calls.add(token);
    if (/^torch\.(cat|concat|concatenate|stack|hstack|vstack)$/.test(dotted)) {
      const parts =
        nodes[0]?.type === 'list' || nodes[0]?.type === 'tuple'
          ? nodes[0].namedChildren.map((x) => this.value(x, env))
          : vals;
      for (let i = 1; i < parts.length; i++) this.record('cat', parts[0], parts[i]);
      const out = union(...parts);
      out.via.add(token);
      return out;
    }
    if (TRANSPARENT_FN.test(dotted) && vals[0]) return vals[0];
    const out = union(...vals);
    out.via.add(`fn:${last}(${literalArgs(nodes)})`);
    return out;
  }

  private method(name: string, recv: Val, nodes: Node[], vals: Val[]): Val {
    if (name === 'add' || name === 'add_') return this.binary('+', recv, vals[0] ?? EMPTY());
    if (name === 'mul' || name === 'mul_' || name === 'multiply') return this.binary('*', recv, vals[0] ?? EMPTY());
    if (name === 'matmul' || name === 'bmm') return this.binary('@', recv, vals[0] ?? EMPTY());
    // Shape reads are numbers, not tensors: `N, C, H, W = x.size()`.
    if (/^(size|dim|numel|ndimension|stride|element_size|item|tolist|data_ptr|is_contiguous)$/.test(name)) {
      this.calls.add(`m:${name}()`);
      return EMPTY();
    }
    if (TRANSPARENT.test(name)) {
      this.calls.add(`m:${name}()`);
      return recv;
    }
    const token = `m:${name}(${literalArgs(nodes)})`;
    this.calls.add(token);
    const out = union(recv, ...vals);
    out.via.add(token);
    return out;
  }
}
