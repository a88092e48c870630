// What a block asks of a module it is handed (a `backbone`, a `transformer`, a `neck`), read off its class's source,
// and which other blocks of its source fit that contract: the instances composite recipes build it with
// (docs/validate.md, "Recipes"). Text only, like the rest of usage mining: nothing here runs upstream code; the
// runner still has to build, run and back-propagate every candidate.
//   self.backbone = backbone                      # alias: `self.backbone` stands for the parameter
//   nn.Conv2d(backbone.num_channels, 256, 1)      # contract: the instance has `num_channels`
//   features, pos = self.backbone(samples)        # contract: the instance is called
//   self.neck = MODELS.build(neck)                # a config: `dict(type='GlobalAveragePooling')`, built by a registry

/** How a block uses one constructor parameter that takes a module instance (or a config it builds one from). */
export interface InstanceSlot {
  param: string;
  /** Attributes and methods read off it (or off what its registry builds), `nn.Module`'s own left out, sorted. */
  attrs: string[];
  /** It is called: `self.backbone(x)`. */
  called: boolean;
  /** The block builds its module from it through a registry or builder (`MODELS.build(neck)`): it takes a config. */
  config: boolean;
  /** The class its annotation names (`backbone: Backbone` in detectron2): an instance of it or of a subclass. */
  type?: string;
  /** How the block reads what a call of it returns: by key (`features['0']`), by position (`out[-1]`, unpacking). */
  outputs?: Shape;
}

/** What a forward returns, as far as indexing tells: a mapping (`{...}`, `OrderedDict`) or a sequence. */
export type Shape = 'mapping' | 'sequence';

/** What a class offers: the attributes it sets on `self`, its methods and class attributes (its bases' too). */
export interface ProviderFacts {
  members: Set<string>;
  /** The names of the classes of its base chain (`Backbone`, `Module`): what an annotation may name. */
  bases: string[];
  /** What its forward returns, when its source says (forwardReturns). */
  returns?: Shape;
  /** Registered in a registry (`@MODELS.register_module()`): a config `dict(type=Name)` builds it. */
  registered: boolean;
}

/**
 * `nn.Module`'s own attributes: every module has them, so they say nothing of the contract; nor do a container's
 * (`input_shape.items()` reads a dict of values).
 */
const MODULE_ATTRS = new Set(
  (
    'parameters named_parameters modules named_modules children named_children buffers named_buffers state_dict ' +
    'load_state_dict train eval to cuda cpu half float double apply zero_grad requires_grad_ training forward ' +
    'register_buffer register_parameter register_forward_hook register_forward_pre_hook add_module get_submodule ' +
    'init_weights __class__ __call__ items keys values get update append extend pop copy'
  ).split(' '),
);

/** Parameter names that take a class, a function or a value, not an instance (inference's business). */
const NOT_INSTANCE =
  /(^|_)(block|builder|constructor|maker|layer|cls|class|fn|func|act|activation|type|kwargs|cfg_type)$/;

/** Annotations an instance parameter may carry: none, a module, a config dict (`Optional[dict]`, `ConfigType`). */
const INSTANCE_ANNOTATION = /^$|Module|^(Optional\[)?(dict|Dict)\]?$|Config/;

/** Annotation names that are types of values, not of modules (inference guesses those). */
const VALUE_TYPES = new Set(
  'List Tuple Dict Sequence Mapping Callable Type Union Any Optional Iterable Tensor ShapeSpec Literal'.split(' '),
);

/** The class an annotation names, `Optional[...]` unwrapped, when it may be a module's: `Backbone`, `nn.Module`. */
function annotatedClass(annotation: string): string | undefined {
  const inner = /^Optional\[(.*)\]$/.exec(annotation)?.[1] ?? annotation;
  const name = /^(?:\w+\.)*([A-Z]\w*)$/.exec(inner)?.[1];
  return name && !VALUE_TYPES.has(name) && name !== 'Module' && !/Config/.test(name) ? name : undefined;
}

/**
 * Python source with its strings emptied and its comments dropped: a docstring's `backbone (nn.Module): ...` is
 * no call.
 */
export function codeOnly(text: string): string {
  return text.replace(/("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*)/g, (m) =>
    m.startsWith('#') ? '' : '""',
  );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A regex for a name read where it starts an expression (not `x.backbone`, not `my_backbone`). */
const at = (name: string, rest: string) => new RegExp(`(?<![\\w.])${escape(name)}${rest}`, 'g');

/**
 * The slots of a class's required constructor parameters: those its source reads attributes off, calls, or builds
 * through a registry, directly or through the attribute it stores them in (`self.body = backbone`). `params` are
 * the required ones (no default), with their annotations. The parameter's own name is read in `init` only (the
 * `__init__`'s source, when given): elsewhere the same name is another variable
 * (`losses = {}; losses.update(...)` in a forward is no `losses` parameter).
 */
export function instanceSlots(
  source: string,
  params: { name: string; annotation?: string }[],
  init?: string,
): InstanceSlot[] {
  const classText = codeOnly(source);
  const initText = init === undefined ? classText : codeOnly(init);
  const out: InstanceSlot[] = [];
  for (const p of params) {
    const type = annotatedClass(p.annotation ?? '');
    if (!type && !INSTANCE_ANNOTATION.test(p.annotation ?? '')) continue;
    const aliases = [p.name];
    let config = false;
    for (const m of initText.matchAll(at('self', `\\.(\\w+)\\s*=\\s*${escape(p.name)}\\s*(?:$|[\\n;#)]|if\\b)`)))
      aliases.push(`self.${m[1]}`);
    // `MODELS.build(neck)`, `build_backbone(backbone)`, `build_from_cfg(head, HEADS)`: the block builds it.
    const build = `\\s*=\\s*[\\w.]*\\bbuild\\w*\\(\\s*${escape(p.name)}\\b`;
    for (const m of initText.matchAll(at('self', `\\.(\\w+)${build}`))) {
      aliases.push(`self.${m[1]}`);
      config = true;
    }
    if (new RegExp(`[\\w.]*\\bbuild\\w*\\(\\s*${escape(p.name)}\\b`).test(initText)) config = true;
    const attrs = new Set<string>();
    let called = false;
    for (const a of aliases) {
      const text = a === p.name ? initText : classText;
      for (const m of text.matchAll(at(a, '\\.(\\w+)'))) if (!MODULE_ATTRS.has(m[1])) attrs.add(m[1]);
      if (at(a, '\\s*\\(').test(text)) called = true;
    }
    if (!type && NOT_INSTANCE.test(p.name.toLowerCase()) && attrs.size === 0) continue;
    const outputs = aliases.map((a) => outputsRead(a === p.name ? initText : classText, a)).find(Boolean);
    if (attrs.size || called || config || type)
      out.push({
        param: p.name,
        attrs: [...attrs].sort(),
        called,
        config,
        ...(type ? { type } : {}),
        ...(outputs ? { outputs } : {}),
      });
  }
  return out;
}

/**
 * How `text` reads the result of calling `alias`: `alias(x)['0']`, or `features = alias(x)` then `features['0']` /
 * `features.items()` (a mapping); `alias(x)[-1]`, `out = alias(x)` then `out[-1]`, or `features, pos = alias(x)` (a
 * sequence). Strings are already emptied (codeOnly): a key reads `[""]`.
 */
function outputsRead(text: string, alias: string): Shape | undefined {
  const call = `${escape(alias)}\\([^()]*(?:\\([^()]*\\)[^()]*)*\\)`;
  const read = (x: string): Shape | undefined =>
    new RegExp(`${x}\\s*\\[\\s*""`).test(text) || new RegExp(`${x}\\.(items|keys|values)\\(`).test(text)
      ? 'mapping'
      : new RegExp(`${x}\\s*\\[\\s*-?\\d`).test(text)
        ? 'sequence'
        : undefined;
  const direct = read(`(?<![\\w.])${call}`);
  if (direct) return direct;
  if (new RegExp(`(?<![\\w.])\\w+\\s*,\\s*\\w+[\\w\\s,]*=\\s*${call}`).test(text)) return 'sequence';
  for (const m of text.matchAll(new RegExp(`(?<![\\w.])(\\w+)\\s*=\\s*${call}`, 'g'))) {
    const shape = read(`(?<![\\w.])${m[1]}`);
    if (shape) return shape;
  }
  return undefined;
}

/**
 * What a forward returns, from its source: `return {...}`, `dict(...)`, `OrderedDict(...)`, or a name bound to one
 * in it, is a mapping; `return [...]`, `return a, b`, or a name bound to a list, a sequence; else undefined.
 */
export function forwardReturns(forward: string): Shape | undefined {
  const text = codeOnly(forward);
  const kind = (expr: string): Shape | undefined =>
    /^(\{|dict\(|(collections\.)?OrderedDict\()/.test(expr)
      ? 'mapping'
      : /^(\[|tuple\(|list\()/.test(expr) || /^[\w.]+\s*,/.test(expr)
        ? 'sequence'
        : undefined;
  for (const m of text.matchAll(/(?<![\w.])return\s+([^\n]+)/g)) {
    const expr = m[1].trim();
    const direct = kind(expr);
    if (direct) return direct;
    const name = /^(\w+)\s*$/.exec(expr)?.[1];
    const bound = name && new RegExp(`(?<![\\w.])${name}\\s*(?::[^=\\n]+)?=\\s*([^\\n]+)`).exec(text);
    if (bound) {
      const shape = kind(bound[1].trim());
      if (shape) return shape;
    }
  }
  return undefined;
}

/** What a class's source offers: `self.x = ...` anywhere in it, its methods (`def x`), its class attributes. */
export function providerMembers(classText: string, methods: string[], attributes: string[]): Set<string> {
  const out = new Set([...methods, ...attributes]);
  for (const m of codeOnly(classText).matchAll(/(?<![\w.])self\.(\w+)\s*(?::[^=\n]+)?=(?!=)/g)) out.add(m[1]);
  return out;
}

/** Words of a parameter's name that a class's name may share (`image_encoder` → image, encoder). */
function words(name: string): string[] {
  return name
    .toLowerCase()
    .split('_')
    .filter((w) => w.length >= 3 && !['the', 'module', 'model', 'net', 'layer'].includes(w));
}

/**
 * How well a provider fits a slot, or null when it does not: it must be the class the slot's annotation names or
 * a subclass, offer every attribute the block reads off the slot (a slot with neither needs a class whose name
 * shares a word of the parameter's: `backbone` → `ResNetBackbone`), return what the block indexes (a mapping for
 * `features['0']`, a sequence for `out[-1]`) where both are known, and, for a config slot, be registered. Higher
 * is better: attributes matched, then the name, then the result read as it is returned.
 */
export function fit(slot: InstanceSlot, className: string, provider: ProviderFacts): number | null {
  if (slot.config && !provider.registered) return null;
  if (slot.type && className !== slot.type && !provider.bases.includes(slot.type)) return null;
  if (!slot.attrs.every((a) => provider.members.has(a))) return null;
  // A block that reads its result by key takes no module returning a list, and the other way round.
  if (slot.outputs && provider.returns && slot.outputs !== provider.returns) return null;
  const named = words(slot.param).some((w) => className.toLowerCase().includes(w)) ? 1 : 0;
  if (slot.attrs.length === 0 && !named && !slot.type) return null;
  return slot.attrs.length * 2 + named + (slot.outputs && slot.outputs === provider.returns ? 1 : 0);
}
