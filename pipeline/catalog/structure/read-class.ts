// What a class's own code says about its structure, read from the tree-sitter syntax tree and never run: the
// submodules `__init__` assigns (in order, with the class or factory that makes each), the learned parameters it
// declares, and its `forward`'s data flow (read-flow.ts). Plain records out; the catalog interprets them
// (features.ts, roles.ts). What can't be read statically is left out, never guessed:
//
//   self.norm1 = norm_layer(dim)              # a constructor parameter: its default names the class (LayerNorm)
//   norm_layer = norm_layer or nn.LayerNorm   # ... or the fallback the body gives it
//   self.attn = _create_attn(attn_layer, dim) # a factory given a class: the class (Attention)
//   self.gate = create_act_layer(gate_layer)  # a factory given a string: the factory, the default in its hint
//   self.ls1 = LayerScale(dim) if init_values else nn.Identity()   # the branch that is not Identity
//   self.blocks = nn.Sequential(*[Block(...) for i in range(depth)])  # a repeated stack of Block
//   self.gamma = nn.Parameter(init_values * torch.ones(dim))          # a per-channel parameter
import { readFlow, type FlowReading } from './read-flow.ts';
import type { Node } from './syntax.ts';

/** A submodule `__init__` assigns to `self.<name>`. */
export interface ReadChild {
  name: string;
  /** The class or factory that makes it, as written (`nn.Conv2d`, `LayerNorm`, `build_norm_layer`, `nn.Sequential`). */
  type: string;
  /** Lower-cased text a role may be read from: the call's arguments and the defaults of the parameters they name. */
  hint: string;
  /** The modules an `nn.Sequential(...)` / `nn.ModuleList([...])` is made of, in order. */
  parts?: ReadChild[];
  /** Made by a comprehension or a loop: a stack of repeated blocks. */
  repeated?: true;
}

export interface ReadParameter {
  name: string;
  perChannel: boolean;
  constantInit: boolean;
}

export interface ClassReading {
  children: ReadChild[];
  /**
   * `self.<name> = nn.Parameter(...)`: per-channel when its size is not a literal (`torch.ones(dim)`); a constant
   * init when it is a value times ones or a fill (`init_values * torch.ones(dim)`, `torch.full((dim,), v)`).
   */
  parameters: ReadParameter[];
  /** The data flow of `forward` (and what it calls); null when the class defines no forward. */
  flow: FlowReading | null;
  /** Method names the class defines. */
  methods: string[];
}

const HINT_CHARS = 400;
/** Factories that build a module, by name: `build_norm_layer`, `create_conv2d`, `get_act_layer`, `_create_attn`. */
const FACTORY =
  /^_*(build|create|get|make)_\w*(layer|norm|act|activation|conv\w*|attn|attention|pool|dropout|drop_path|mlp|ffn|block|module|head|neck|backbone|model|upsample|downsample|plugin|transformer\w*|positional_encoding)s?$|^(build|partial)$|^(conv|linear|norm|act|pool)\w*_(layer|fn)$|^(conv|deconv|dwconv)(\d|_?bn|_?norm|_?act|\d+x\d+|\d?d|_nxn)\w*$/;
/** `self._make_layer(...)`, `self.make_res_layer(...)`, `self._make_stage(...)`, `self.build_layers(...)`: a stage. */
const MAKES_STACK = /^_*(make|build)_\w*(layer|stage|block|blocks|layers|stages|branch|branches)s?$/;
/** Containers whose arguments are the modules they hold. */
const CONTAINER = /(^|\.)(Sequential|ModuleList|ModuleDict)$/;
const IDENTITY = /(^|\.)(Identity|None)$/;

/** The `class_definition` whose `class` keyword is on `line` (1-based), anywhere in the module. */
export function classAtLine(root: Node, line: number): Node | undefined {
  return root.descendantsOfType('class_definition').find((c) => c.startPosition.row + 1 === line);
}

/** Module-level functions by name: a forward that calls `shifted_window_attention(...)` reaches into one. */
export function moduleFunctions(root: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  for (const n of root.namedChildren) {
    const def = n.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
    if (def?.type === 'function_definition') out.set(def.childForFieldName('name')!.text, def);
  }
  return out;
}

/** The methods defined directly in a class body (inside if/try too), by name. */
export function methodsOf(cls: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  const visit = (block: Node | null) => {
    for (const n of block?.namedChildren ?? []) {
      const def = n.type === 'decorated_definition' ? n.childForFieldName('definition') : n;
      if (def?.type === 'function_definition') out.set(def.childForFieldName('name')!.text, def);
      else if (n.type === 'if_statement' || n.type === 'try_statement')
        for (const c of n.namedChildren) visit(c.type === 'block' ? c : (c.childForFieldName('body') ?? c));
    }
  };
  visit(cls.childForFieldName('body'));
  return out;
}

export function readClass(cls: Node, functions: Map<string, Node> = new Map()): ClassReading {
  const methods = methodsOf(cls);
  const init = methods.get('__init__');
  const reader = init ? new InitReader(init, methods) : undefined;
  reader?.read();
  const forward = methods.get('forward') ?? methods.get('__call__');
  return {
    children: reader?.children ?? [],
    parameters: reader?.parameters ?? [],
    flow: forward ? readFlow(forward, methods, functions) : null,
    methods: [...methods.keys()],
  };
}

/** Text of a parameter's default, by name, for the parameters of a function. */
export function paramDefaults(fn: Node): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of fn.childForFieldName('parameters')?.namedChildren ?? []) {
    const name = p.childForFieldName('name') ?? (p.type === 'identifier' ? p : p.namedChildren[0]);
    const value = p.childForFieldName('value');
    if (name?.type === 'identifier') out.set(name.text, value?.text ?? '');
  }
  return out;
}

/** The statements of a block, flattened through if/else, try, with and for (their bodies run in order). */
export function statements(block: Node | null, out: Node[] = [], inLoop = false, loops?: Set<Node>): Node[] {
  for (const n of block?.namedChildren ?? []) {
    switch (n.type) {
      case 'if_statement':
      case 'try_statement':
      case 'with_statement':
        for (const c of n.namedChildren)
          if (c.type === 'block') statements(c, out, inLoop, loops);
          else if (/clause$/.test(c.type))
            statements(c.childForFieldName('body') ?? c.namedChildren.at(-1) ?? null, out, inLoop, loops);
        break;
      case 'for_statement':
      case 'while_statement': {
        const before = out.length;
        statements(n.childForFieldName('body'), out, true, loops);
        if (loops) for (const s of out.slice(before)) loops.add(s);
        break;
      }
      default:
        out.push(n);
    }
  }
  return out;
}

const unparen = (n: Node): Node =>
  n.type === 'parenthesized_expression' && n.namedChildren[0] ? unparen(n.namedChildren[0]) : n;

/** Reads `__init__`: assignments to self attributes, local names that hold modules, `add_module`, `append`. */
class InitReader {
  readonly children: ReadChild[] = [];
  readonly parameters: ClassReading['parameters'] = [];
  private defaults: Map<string, string>;
  /** Local names bound in the body: `norm_layer = norm_layer or nn.LayerNorm`, `layers = []`. */
  private readonly locals = new Map<string, Node>();
  /** Local lists built by `.append(...)`: `layers.append(Block(...))` in a loop. */
  private readonly lists = new Map<string, { parts: ReadChild[]; repeated: boolean }>();
  private readonly loops = new Set<Node>();

  /** Methods `__init__` calls on self (OpenMMLab's `self._init_layers()`), read once each. */
  private readonly followed = new Set<string>();

  constructor(
    private readonly fn: Node,
    private readonly methods: Map<string, Node> = new Map(),
  ) {
    this.defaults = paramDefaults(fn);
  }

  read(): void {
    this.body(this.fn);
    // A list never filled with modules (`self.feature_info = []`) holds none.
    for (let i = this.children.length - 1; i >= 0; i--)
      if (this.children[i].type === 'list' && !this.children[i].parts?.length) this.children.splice(i, 1);
  }

  private body(fn: Node): void {
    for (const s of statements(fn.childForFieldName('body'), [], false, this.loops)) this.statement(s);
  }

  private statement(s: Node): void {
    const e = s.type === 'expression_statement' ? s.namedChildren[0] : undefined;
    if (!e) return;
    // `self._init_layers()`: a helper that assigns submodules, read where it is called (two deep at most).
    const callee = e.type === 'call' ? selfAttr(e.childForFieldName('function')!) : undefined;
    const helper = callee ? this.methods.get(callee) : undefined;
    if (helper && callee !== '__init__' && !this.followed.has(callee!) && this.followed.size < 8) {
      this.followed.add(callee!);
      for (const [k, v] of paramDefaults(helper)) if (!this.defaults.has(k)) this.defaults.set(k, v);
      this.body(helper);
      return;
    }
    if (e.type === 'assignment') return this.assignment(e, this.loops.has(s));
    if (e.type === 'call') return this.call(e, this.loops.has(s));
    if (e.type === 'augmented_assignment' && e.childForFieldName('operator')?.text === '+=')
      return this.extend(e, this.loops.has(s));
  }

  private assignment(a: Node, inLoop: boolean): void {
    const left = a.childForFieldName('left');
    const right = a.childForFieldName('right');
    if (!left || !right) return;
    // `self.norm1_name, norm1 = build_norm_layer(...)`: the module is the last element.
    const targets = left.type === 'pattern_list' || left.type === 'tuple_pattern' ? left.namedChildren : [left];
    const target = targets.at(-1)!;
    if (target.type === 'identifier') {
      this.locals.set(target.text, right);
      // `layers = []`, `layers = OrderedDict()`: a list of modules the loop below fills.
      const empty =
        (right.type === 'list' || right.type === 'dictionary') && right.namedChildren.length === 0
          ? true
          : right.type === 'call' &&
            /(^|\.)(OrderedDict|dict|list)$/.test(right.childForFieldName('function')!.text) &&
            argNodes(right).length === 0;
      if (empty) this.lists.set(target.text, { parts: [], repeated: false });
      return;
    }
    // `layers[f"encoder_layer_{i}"] = EncoderBlock(...)` (torchvision's Encoder): a part of the list local.
    if (target.type === 'subscript') {
      const list = this.lists.get(target.childForFieldName('value')!.text);
      const part = list ? this.module(String(list.parts.length), right, inLoop) : undefined;
      if (list && part) {
        list.parts.push(part);
        if (inLoop) list.repeated = true;
      }
      return;
    }
    const attr = selfAttr(target);
    if (!attr) return;
    const value = unparen(right);
    const branch = value.type === 'conditional_expression' ? unparen(value.namedChildren[0]) : value;
    if (isParameter(value) || isParameter(branch)) {
      if (!this.parameters.some((p) => p.name === attr))
        this.parameters.push(parameterOf(attr, isParameter(value) ? value : branch));
      return;
    }
    const child = this.module(attr, value, inLoop);
    if (child) this.put(child);
  }

  /** `self.add_module(name, m)`, `self.blocks.append(m)`, `layers.append(m)`, `self.register_parameter(...)`. */
  private call(c: Node, inLoop: boolean): void {
    const fn = c.childForFieldName('function');
    const args = argNodes(c);
    if (fn?.type !== 'attribute') return;
    const method = fn.childForFieldName('attribute')!.text;
    const obj = fn.childForFieldName('object')!;
    if (method === 'add_module' && obj.text === 'self' && args[1]) {
      const name = args[0].type === 'string' ? args[0].text.replace(/^[rfbu]*['"]+|['"]+$/gi, '') : `${args[0].text}`;
      const child = this.module(name.replace(/\W+/g, '_') || 'module', args[1], inLoop);
      if (child) this.put(inLoop ? { ...child, repeated: true } : child);
    } else if (method === 'register_parameter' && obj.text === 'self' && args[1] && isParameter(unparen(args[1]))) {
      this.parameters.push(parameterOf(args[0].text.replace(/^['"]|['"]$/g, ''), unparen(args[1])));
    } else if ((method === 'append' || method === 'extend') && args[0]) {
      const part = this.module(String(this.partsOf(obj).length), args[0], inLoop);
      if (!part) return;
      const attr = selfAttr(obj);
      const list = attr ? this.children.find((x) => x.name === attr) : this.lists.get(obj.text);
      if (!list) return;
      list.parts = [...(list.parts ?? []), part];
      if (inLoop) list.repeated = true;
    }
  }

  /** `stages += [Stage(...)]` in a loop: a list local (or a self list) gains parts. */
  private extend(e: Node, inLoop: boolean): void {
    const left = e.childForFieldName('left')!;
    const attr = selfAttr(left);
    const list = attr ? this.children.find((x) => x.name === attr) : this.lists.get(left.text);
    if (!list) return;
    const right = unparen(e.childForFieldName('right')!);
    const added =
      right.type === 'list' || right.type === 'tuple'
        ? this.partsFrom(right.namedChildren, inLoop, 0)
        : [this.module(String(list.parts?.length ?? 0), right, inLoop)].filter((x): x is ReadChild => Boolean(x));
    if (added.length === 0) return;
    list.parts = [...(list.parts ?? []), ...added];
    if (inLoop) list.repeated = true;
  }

  private partsOf(obj: Node): ReadChild[] {
    const attr = selfAttr(obj);
    return (attr ? this.children.find((x) => x.name === attr)?.parts : this.lists.get(obj.text)?.parts) ?? [];
  }

  private put(child: ReadChild): void {
    const at = this.children.findIndex((x) => x.name === child.name);
    // Assigned twice (an if/else): the first real module is what the block usually holds.
    if (at < 0) this.children.push(child);
    else if (IDENTITY.test(this.children[at].type) && !IDENTITY.test(child.type)) this.children[at] = child;
  }

  /** The module an expression makes, or undefined when it makes none we can tell (a number, a flag, a string). */
  private module(name: string, v: Node, inLoop: boolean, depth = 0): ReadChild | undefined {
    if (depth > 6) return undefined;
    v = unparen(v);
    switch (v.type) {
      case 'conditional_expression': {
        // `A(...) if cond else nn.Identity()`: the branch that is a module.
        const [yes, , no] = v.namedChildren;
        const a = this.module(name, yes, inLoop, depth + 1);
        const b = no ? this.module(name, no, inLoop, depth + 1) : undefined;
        return a && !IDENTITY.test(a.type) ? a : (b ?? a);
      }
      case 'boolean_operator':
        return this.module(name, v.childForFieldName('right')!, inLoop, depth + 1);
      case 'subscript':
        // `build_norm_layer(cfg, dim)[1]`
        return this.module(name, v.childForFieldName('value')!, inLoop, depth + 1);
      case 'identifier': {
        const local = this.locals.get(v.text);
        if (local && local !== v) {
          const list = this.lists.get(v.text);
          if (list)
            return {
              name,
              type: 'list',
              hint: '',
              parts: list.parts,
              ...(list.repeated ? { repeated: true as const } : {}),
            };
          return this.module(name, local, inLoop, depth + 1);
        }
        return undefined;
      }
      case 'list':
      case 'tuple': {
        const parts = this.partsFrom(v.namedChildren, inLoop, depth);
        // `self.feature_info = []` filled with dicts later is no module; `self.blocks = []` appended to may be.
        return parts.length > 0 || v.namedChildren.length === 0 ? { name, type: 'list', hint: '', parts } : undefined;
      }
      case 'list_comprehension':
      case 'generator_expression': {
        const body = v.childForFieldName('body');
        const part = body ? this.module('0', body, inLoop, depth + 1) : undefined;
        return part ? { name, type: 'list', hint: '', parts: [part], repeated: true } : undefined;
      }
      case 'call':
        return this.callModule(name, v, inLoop, depth);
      default:
        return undefined;
    }
  }

  private callModule(name: string, c: Node, inLoop: boolean, depth: number): ReadChild | undefined {
    const fn = unparen(c.childForFieldName('function')!);
    const args = argNodes(c);
    // `nn.Conv2d(...).requires_grad_(False)`, `Block(...).to(device)`: the module the chain starts from.
    if (
      fn.type === 'attribute' &&
      unparen(fn.childForFieldName('object')!).type === 'call' &&
      /^(requires_grad_|to|eval|train|float|half|cuda|cpu)$/.test(fn.childForFieldName('attribute')!.text)
    )
      return this.callModule(name, unparen(fn.childForFieldName('object')!), inLoop, depth + 1);
    // `get_act_layer(act)()`, `partial(nn.LayerNorm, eps=1e-6)(dim)`: the callee's own module.
    if (fn.type === 'call') {
      const inner = this.callModule(name, fn, inLoop, depth + 1);
      return inner && { ...inner, hint: clip(`${inner.hint} ${this.hintOf(args)}`) };
    }
    // `self._make_layer(block, 64, layers[0])`: the idiom that returns a stage, a stack of blocks.
    const method = selfAttr(fn);
    if (method !== undefined)
      return MAKES_STACK.test(method)
        ? { name, type: 'nn.Sequential', hint: '', parts: [{ name: '0', type: method, hint: '' }], repeated: true }
        : undefined;
    // `_get_clones(layer, n)`, `copy.deepcopy(layer)`: copies of a module (often a constructor parameter).
    const last = fn.text.slice(fn.text.lastIndexOf('.') + 1);
    if (/^_?(get_)?clones?$|^deepcopy$/.test(last) && args[0]) return this.copies(name, last, args[0], inLoop, depth);
    const callee = this.calleeType(fn.text, depth);
    if (callee === undefined || !this.makesModule(fn.text, callee)) return undefined;
    if (callee === 'partial' && args[0]) return this.typed(name, args[0], args.slice(1), depth);
    const hint = this.hintOf(args);
    if (CONTAINER.test(callee)) return this.container(name, callee, args, hint, inLoop, depth);
    // A lowercase factory given a class first, a parameter naming a class, or a local holding one: that class
    // (`_create_attn(attn_layer, dim)` with `attn_layer=Attention`).
    if (
      /^[a-z_][\w.]*$/.test(callee) &&
      !/^(nn|torch)\./.test(callee) &&
      args[0]?.parent?.type !== 'keyword_argument'
    ) {
      const t = args[0] ? this.classNamed(args[0].text, depth) : undefined;
      if (t) return { name, type: t, hint };
    }
    return { name, type: callee, hint: clip(`${callee.toLowerCase()} ${hint}`) };
  }

  /** Copies of a module: `_get_clones(layer, n)` a repeated list, `copy.deepcopy(layer)` the module itself. */
  private copies(name: string, fn: string, arg: Node, inLoop: boolean, depth: number): ReadChild | undefined {
    const made = this.module('0', arg, inLoop, depth + 1);
    // A parameter holding a module (`encoder_layer`), not a config (`copy.deepcopy(norm_cfg)`).
    if (!made && /cfg|conf|dict|args|setting|option|param/i.test(arg.text)) return undefined;
    const part = made ?? { name: '0', type: this.classNamed(arg.text, depth) ?? arg.text, hint: '' };
    return fn === 'deepcopy'
      ? { ...part, name }
      : { name, type: 'nn.ModuleList', hint: '', parts: [part], repeated: true };
  }

  /** `nn.Sequential(a, b)`, `nn.Sequential(*layers)`, `nn.ModuleList([...])`: the modules it holds, in order. */
  private container(name: string, type: string, args: Node[], hint: string, inLoop: boolean, depth: number): ReadChild {
    const parts: ReadChild[] = [];
    let repeated = inLoop;
    for (const a of args) {
      const inner = a.type === 'list_splat' || a.type === 'dictionary_splat' ? a.namedChildren[0] : a;
      const m = inner ? this.module(String(parts.length), inner, inLoop, depth + 1) : undefined;
      if (!m) continue;
      if (m.type === 'list' || (a.type === 'list_splat' && m.parts)) {
        parts.push(...(m.parts ?? []));
        if (m.repeated) repeated = true;
      } else parts.push(m);
    }
    return { name, type, hint, parts, ...(repeated ? { repeated: true as const } : {}) };
  }

  /**
   * Whether a call makes a module: a class (CapWords: `nn.Conv2d`, `Block`), a constructor parameter or local called
   * (`norm_layer(dim)`, `block(...)`), or a factory by its name (`build_norm_layer`, `create_act_layer`,
   * `_create_attn`, `make_divisible` not). Helpers like `to_2tuple`, `len`, `use_fused_attn` make none.
   */
  private makesModule(text: string, callee: string): boolean {
    if (/(^|\.)(Parameter|Buffer|Tensor|tensor|OrderedDict|True|False|None)$/.test(callee)) return false;
    const last = callee.slice(callee.lastIndexOf('.') + 1);
    // A called CapWords or all-caps name is a class (`FFN`, `SE`, `ASPP`); constants are not called.
    if (/^_*[A-Z]/.test(last)) return true;
    if (this.defaults.has(text) || this.locals.has(text)) return true;
    return FACTORY.test(last);
  }

  /** `partial(nn.LayerNorm, eps=1e-6)`: the class partial was given. */
  private typed(name: string, cls: Node, rest: Node[], depth: number): ReadChild | undefined {
    const t = this.classNamed(cls.text, depth) ?? this.calleeType(cls.text, depth);
    return t && this.makesModule(cls.text, t) ? { name, type: t, hint: this.hintOf(rest) } : undefined;
  }

  /** A dotted callee, a constructor parameter resolved to its default, or a local resolved to what it holds. */
  private calleeType(text: string, depth: number): string | undefined {
    if (depth > 6) return undefined;
    const head = text.split('.')[0];
    if (!this.defaults.has(head) && !this.locals.has(head)) return text;
    if (head !== text) return text;
    const local = this.locals.get(text);
    if (local) {
      const v = unparen(local);
      if (v.type === 'boolean_operator') return this.calleeType(unparen(v.childForFieldName('right')!).text, depth + 1);
      if (v.type === 'call') {
        const f = v.childForFieldName('function')!.text;
        const first = argNodes(v)[0];
        // `partial(get_norm_act_layer(norm_layer, act_layer), eps=eps)`: what the inner factory makes.
        if (f === 'partial' && first?.type === 'call')
          return this.calleeType(first.childForFieldName('function')!.text, depth + 1);
        if (f === 'partial') return this.calleeType(first?.text ?? '', depth + 1);
        return this.classNamed(first?.text ?? '', depth + 1) ?? f;
      }
      if (/^[A-Za-z_][\w.]*$/.test(v.text) && v.text !== text) return this.calleeType(v.text, depth + 1);
    }
    const d = this.defaults.get(text);
    if (d && /^[A-Za-z_][\w.]*$/.test(d) && !/^(True|False|None)$/.test(d)) return d;
    const m = d ? /^partial\(\s*([A-Za-z_][\w.]*)/.exec(d) : null;
    if (m) return m[1];
    // A parameter with no class default (`block`, `norm_layer=None`): a module of unknown class.
    return text;
  }

  /** A name that is a class (CapWords), directly or as a parameter's default or a local's value. */
  private classNamed(text: string, depth: number): string | undefined {
    if (/^(True|False|None)$/.test(text)) return undefined;
    if (/^([a-z_]\w*\.)*[A-Z]\w*$/.test(text) && !/^[A-Z_\d]+$/.test(text)) return text;
    if (!/^[A-Za-z_]\w*$/.test(text) || depth > 6) return undefined;
    const d = this.defaults.get(text);
    if (d && /^([a-z_]\w*\.)*[A-Z]\w*$/.test(d) && !/^(True|False|None)$/.test(d)) return d;
    const local = this.locals.get(text);
    if (local) {
      const v = unparen(local);
      if (v.type === 'boolean_operator') return this.classNamed(unparen(v.childForFieldName('right')!).text, depth + 1);
    }
    return undefined;
  }

  private partsFrom(nodes: Node[], inLoop: boolean, depth: number): ReadChild[] {
    const out: ReadChild[] = [];
    for (const n of nodes) {
      const m = this.module(String(out.length), n, inLoop, depth + 1);
      if (m) out.push(m);
    }
    return out;
  }

  /** The arguments' text, and the defaults of the constructor parameters they name (`act_cfg` → its dicts). */
  private hintOf(args: Node[]): string {
    const words: string[] = [];
    for (const a of args) {
      words.push(a.text);
      for (const id of a.type === 'identifier' ? [a] : a.descendantsOfType('identifier')) {
        const d = this.defaults.get(id.text);
        if (d) words.push(d);
      }
    }
    return clip(words.join(' ').toLowerCase());
  }
}

const clip = (s: string) => (s.length > HINT_CHARS ? s.slice(0, HINT_CHARS) : s);

export function argNodes(call: Node): Node[] {
  const args = call.childForFieldName('arguments');
  if (!args) return [];
  return args.namedChildren
    .filter((a) => a.type !== 'comment')
    .map((a) => (a.type === 'keyword_argument' ? a.childForFieldName('value')! : a));
}

/** `self.x` → `x` (not `self.x.y`). */
export function selfAttr(n: Node): string | undefined {
  if (n.type !== 'attribute') return undefined;
  const obj = n.childForFieldName('object');
  return obj?.type === 'identifier' && obj.text === 'self' ? n.childForFieldName('attribute')!.text : undefined;
}

function isParameter(v: Node): boolean {
  return v.type === 'call' && /(^|\.)Parameter$/.test(v.childForFieldName('function')!.text);
}

const FILLS = /(^|\.)(ones|full|ones_like|full_like)$/;

function parameterOf(name: string, p: Node): ReadParameter {
  const init = unparen(argNodes(p)[0] ?? p);
  const isFill = (n: Node) => n.type === 'call' && FILLS.test(n.childForFieldName('function')!.text);
  const constantInit =
    (init.type === 'call' && /(^|\.)full(_like)?$/.test(init.childForFieldName('function')!.text)) ||
    (init.type === 'binary_operator' &&
      init.childForFieldName('operator')!.text === '*' &&
      [init.childForFieldName('left')!, init.childForFieldName('right')!].some((x) => isFill(unparen(x))));
  return { name, perChannel: perChannel(p), constantInit };
}

/** A parameter whose size is not all literals: `torch.ones(dim)`, `init_values * torch.ones((1, dim, 1, 1))`. */
function perChannel(p: Node): boolean {
  for (const c of p.descendantsOfType('call')) {
    if (
      !/(^|\.)(ones|full|zeros|empty|rand|randn|Tensor|ones_like|zeros_like|full_like)$/.test(
        c.childForFieldName('function')!.text,
      )
    )
      continue;
    const sizes = argNodes(c).filter(
      (a) => a.parent?.type !== 'keyword_argument' || a.parent.childForFieldName('name')?.text === 'size',
    );
    const first = /_like$/.test(c.childForFieldName('function')!.text)
      ? []
      : /full$/.test(c.childForFieldName('function')!.text)
        ? sizes.slice(0, 1)
        : sizes;
    if (first.some((a) => a.descendantsOfType('identifier').length > 0 || a.type === 'identifier')) return true;
  }
  return false;
}
