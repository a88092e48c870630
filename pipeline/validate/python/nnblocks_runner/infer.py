# nnblocks validate inference: constructor kwargs for a block nobody wrote a recipe for, guessed from parameter
# names, annotations and defaults. Forward inputs are inputs.py's.
#
# Part of the runner package (nnblocks_runner/__init__.py). Everything returned is JSON: layer and class arguments
# are *references*, dotted names listed in the recipe's `refs` and resolved with importlib at build time (see
# resolve_refs).
import ast, functools, importlib, inspect, re, sys

import torch

from .init_source import forwarded_to_base, param_uses
from .sources import module_tree

IN_CHANNELS = {"in_channels", "in_chans", "in_ch", "in_channel", "inplanes", "in_planes", "input_channels", "c_in", "cin", "inp", "in_c",
               "width_in"}
FIXED = {
    **{n: 10 for n in ("num_classes", "n_classes", "nclass", "num_class", "classes")},
    **{n: 2 for n in ("num_heads", "heads", "n_heads", "nhead", "n_head", "num_attention_heads", "num_groups", "depth",
                      "num_layers", "n_layers", "num_blocks", "n_blocks", "levels", "expand_ratio", "expansion", "mlp_ratio", "expansion_ratio")},
    **{n: 1 for n in ("groups", "stride", "dilation", "num_convs", "num_columns")},
    **{n: 3 for n in ("kernel_size", "kernel", "ksize", "num_anchors")},
    "padding": 1, "reduction": 4, "ratio": 4, "reduction_ratio": 4, "patch_size": 4, "window_size": 4, "shift_size": 2,
    "partition_size": 4, "head_dim": 8, "sampling_ratio": 2, "spatial_scale": 1.0, "squeeze_ratio": 0.25,
    # RoI pooling output: position-sensitive pooling (PSRoIAlign) splits the channels into output_size² groups, so
    # 2 x 2 divides the 16-channel probes (7 x 7 would want 49).
    "output_size": 2,
    **{n: 100 for n in ("vocab_size", "num_embeddings", "n_tokens", "num_tokens", "n_vocab", "vocab")},
    **{n: 64 for n in ("max_len", "seq_len", "max_length", "num_positions", "n_positions", "block_size")},
    # Relative-position attention wants a square sequence length; 16 = 4 x 4 matches partition_size/window_size 4.
    "max_seq_len": 16,
    # Spatial sizes agree with the 32 x 32 probe inputs, so grid/partition arithmetic matches the tensors fed.
    **{n: 32 for n in ("img_size", "image_size", "input_size", "resolution", "grid_size", "input_grid_size", "spatial_size", "size")},
    "eps": 1e-5, "momentum": 0.1,
}
# Norm layers to try for a required `norm_layer`, in order: 2-d feature maps first, then token sequences, video.
NORMS = ("torch.nn.BatchNorm2d", "torch.nn.LayerNorm", "torch.nn.BatchNorm3d")
INT_SEQ = re.compile(r"^(List|Sequence|Tuple|list|tuple)\[int")
NAME_LIST = re.compile(r"(List|Sequence|list)\[str\]")
CHANNEL_STATS = re.compile(r"(^|_)(mean|std)s?$")
LISTY_NAMES = re.compile(r"(_list|layers|depths|repeats|rates|_sizes|channels_per_stage)$")


class Ref(str):
    """A kwarg value that names an object instead of being one: `torch.nn.BatchNorm2d`, or `.BasicBlock` for an
    attribute of the block's own module (so the same recipe replays on the original class in its own package)."""


class Construct(dict):
    """A kwarg value built by calling a class of the block's module with literal kwargs: a config object, e.g.
    `cnf: MBConvConfig` -> {"call": ".MBConvConfig", "kwargs": {"expand_ratio": 2, ...}}. JSON as it is; the recipe
    names such kwargs in `calls`, resolved at build time like refs."""


def config_class(ann, cls):
    """A plain (non-Module) class of the block's module that the annotation names: a config object the block is
    built from (`cnf: MBConvConfig`, `cfg: "_MBConvConfig"`), or None."""
    mod = sys.modules.get(cls.__module__)
    for word in re.findall(r"[A-Za-z_]\w*", ann or ""):
        obj = getattr(mod, word, None) if mod else None
        if isinstance(obj, type) and not issubclass(obj, torch.nn.Module) and obj.__module__ == cls.__module__:
            return obj
    return None


def declared_config(name, ann, cls):
    """The config class a Hugging Face model declares (`config_class`, which PreTrainedModel sets from BertPreTrainedModel's
    `config: BertConfig`) for its unannotated `config` parameter, when the block's module holds it by that name (a
    Construct names it there); else None."""
    if ann or name != "config":
        return None
    obj = getattr(cls, "config_class", None)
    mod = sys.modules.get(cls.__module__)
    if isinstance(obj, str):  # the annotation's text, under `from __future__ import annotations`
        obj = getattr(mod, obj, None)
    if isinstance(obj, type) and not issubclass(obj, torch.nn.Module) and getattr(mod, obj.__name__, None) is obj:
        return obj
    return None


# A Hugging Face config's sizes, made small: its defaults are the production model's (BertConfig(): 12 layers of
# 768, 110 M parameters), which a probe need not pay for. Set only where the config's own signature names them.
SMALL_PRETRAINED = {"num_hidden_layers": 2, "hidden_size": 32, "num_attention_heads": 2, "intermediate_size": 64,
                    "ffn_dim": 64, "word_embed_proj_dim": 32}


def construct(cfg, c):
    """A Construct of config class `cfg` with its required parameters guessed like a block's, or None."""
    try:
        params = list(inspect.signature(cfg).parameters.values())
    except (TypeError, ValueError):
        return None
    kwargs = {}
    for p in params:
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or p.default is not inspect.Parameter.empty:
            continue
        value = guess(p, cfg, c, depth=1)
        if value is None or isinstance(value, (Ref, Construct)):
            return None
        kwargs[p.name] = None if value is NULL else value
    if any(k.__name__ == "PretrainedConfig" for k in cfg.__mro__[1:]):
        # A Hugging Face config made outside `from_pretrained` names no attention implementation, and their
        # attention layers then look None up among the optimised ones (`ALL_ATTENTION_FUNCTIONS[None]`: KeyError):
        # the plain PyTorch one, which every model has.
        kwargs["attn_implementation"] = "eager"
        names = {p.name for p in params}
        kwargs.update({k: v for k, v in SMALL_PRETRAINED.items() if k in names and k not in kwargs})
    return Construct(call="." + cfg.__name__, kwargs=kwargs)


def ann_text(annotation):
    """An annotation as short text: module prefixes dropped, Optional unwrapped.

    e.g. `typing.Optional[typing.List[int]]` -> `List[int]`; `list[float] | None` -> `List[float]`; `torch.dtype` ->
    `dtype` (`List[int].__name__` is just 'List' on Python 3.10+, so names alone lose the element type)."""
    if annotation is inspect.Parameter.empty:
        return ""
    text = annotation if isinstance(annotation, str) else annotation.__name__ if isinstance(annotation, type) else str(annotation)
    text = re.sub(r"\b(?:\w+\.)+(?=\w)", "", text)
    # Builtin generics (PEP 585) read as typing's: `list[float]` is `List[float]` (torchvision 0.29 writes them).
    text = re.sub(r"\b(list|tuple|dict|type|set)\[", lambda g: g.group(1).capitalize() + "[", text)
    m = (re.fullmatch(r"Optional\[(.*)\]", text) or re.fullmatch(r"Union\[(.*), NoneType\]", text)
         or re.fullmatch(r"(.*?) \| None", text) or re.fullmatch(r"None \| (.*)", text))
    return m.group(1) if m else text


def init_params(cls):
    """Constructor parameters, looking through `__init__(self, *args, **kwargs)` wrappers to the base class's.

    e.g. `class QuantizableBasicBlock(BasicBlock): def __init__(self, *args, **kwargs)` takes BasicBlock's, and
    `class LayerNorm2d(nn.LayerNorm)` with no `__init__` of its own takes LayerNorm's `normalized_shape`. A
    constructor with parameters of its own that hands `**kwargs` on to its base's (`def __init__(self, *args,
    num_prototypes=8, **kwargs): super().__init__(*args, **kwargs)`) takes its own and the base's required ones
    that it does not pass itself (`num_classes`, `in_channels`), before its `**kwargs`."""
    return _init_params(cls.__mro__)


def _init_params(mro):
    for i, klass in enumerate(mro):
        if "__init__" not in vars(klass) or klass is torch.nn.Module:
            continue
        try:
            params = list(inspect.signature(klass.__init__).parameters.values())[1:]
        except (TypeError, ValueError):
            return []
        if not all(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params) or not params:
            return params + _forwarded(klass, params, mro[i + 1:])
    return []


def _forwarded(klass, params, bases):
    """The base's required parameters that `klass.__init__` leaves to its `**kwargs` (none if it passes none on)."""
    if not any(p.kind == p.VAR_KEYWORD for p in params):
        return []
    fwd = forwarded_to_base(klass)
    if fwd is None:
        return []
    positional, named = fwd
    base = _init_params(bases)
    leading = [q for q in base if q.kind == q.POSITIONAL_OR_KEYWORD][:positional]  # passed by position
    given = {p.name for p in params} | named | {q.name for q in leading}
    return [p for p in base if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is inspect.Parameter.empty
            and p.name not in given]


def string_choices(cls):
    """Per name, the string literals it is compared with anywhere in the block's module.

    e.g. `if mode not in ["batch", "row"]: raise ValueError(...)` makes `mode` -> ["batch", "row"]."""
    return _string_choices(cls.__module__)


@functools.lru_cache(maxsize=8)
def _string_choices(module):
    """string_choices of one module, walked once: inference asks for every candidate list it makes (the block's own,
    each instance candidate's), and a walk of an assembled module's 100,000 nodes takes tens of milliseconds."""
    tree = module_tree(module)
    if tree is None:
        return {}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        names = [s.id if isinstance(s, ast.Name) else s.attr for s in sides if isinstance(s, (ast.Name, ast.Attribute))]
        consts = []
        for s in sides:
            for c in (s.elts if isinstance(s, (ast.List, ast.Tuple, ast.Set)) else [s]):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    consts.append(c.value)
        for n in names if consts else ():
            out.setdefault(n, [])
            out[n] += [c for c in consts if c not in out[n]]
    return out


def module_classes(cls):
    """nn.Module classes defined in the block's own module, in definition order, the block itself excluded."""
    mod = sys.modules.get(cls.__module__)
    return [v for v in vars(mod).values() if isinstance(v, type) and issubclass(v, torch.nn.Module)
            and v.__module__ == cls.__module__ and v is not cls] if mod else []


def instance_class(name, ann, cls):
    """A Module class of the block's own module that a required parameter takes an *instance* of: the class its
    annotation names (`encoder: Encoder`), or, unannotated, the parameter's name in CamelCase (`motion_encoder` ->
    MotionEncoder, `recurrent_block` -> RecurrentBlock: RAFT's UpdateBlock is built from its siblings). The instance
    is built with the same width choices as the block, so sibling blocks agree on channels. `Type[...]` and
    `Callable` annotations take classes, not instances (layer_ref)."""
    if ann.startswith(("Callable", "Type[")):
        return None
    local = {k.__name__: k for k in module_classes(cls)}
    if ann:
        return local.get(ann)
    camel = "".join(w[:1].upper() + w[1:] for w in name.split("_"))
    if camel in local:
        return local[camel]
    # `encoder_layer` -> the one sibling named `...EncoderLayer` (DETR's TransformerEncoder takes a
    # TransformerEncoderLayer). Only names of two words or more, and never one that takes a class (`conv_block`).
    hits = [k for n, k in local.items() if n.endswith(camel)] if "_" in name and not CLASS_PARAM.search(name) else []
    return hits[0] if len(hits) == 1 else None


def layer_ref(name, ann, cls, norm):
    """A reference for a layer/class-valued parameter, or None when nothing fits (backbones, configs)."""
    if "norm" in name:
        return Ref(NORMS[norm])
    if "activation" in name or name.startswith("act"):
        return Ref("torch.nn.ReLU")
    local = module_classes(cls)
    # `block: Type[Union[BasicBlock, Bottleneck]]`: the first class the annotation names.
    for word in re.findall(r"\w+", ann):
        hit = next((c for c in local if c.__name__ == word), None)
        if hit is not None:
            return Ref("." + hit.__name__)
    # `conv_builder: Callable[..., nn.Module]`: a local class whose name shares a word with the parameter's.
    words = [w.removesuffix("s") for w in name.split("_")
             if len(w) >= 4 and w not in ("layer", "type", "builder", "constructor", "maker", "class")]
    hit = next((c for c in local if any(w in c.__name__.lower() for w in words)), None)
    return Ref("." + hit.__name__) if hit is not None else None


# Parameters that take a loss function instance: `loss_fcn`, `loss_fn`, `criterion`, `base_loss`.
LOSS_PARAM = re.compile(r"^(loss|criterion)$|^loss_(fn|fcn|func|function)$|_(loss|criterion)$")
# Parameters that take the network a graph layer applies to its nodes' or edges' features (PyG's `nn` of GINConv,
# EdgeConv, PointNetConv's `local_nn` and `global_nn`): any module from features to features.
NN_PARAM = re.compile(r"^(\w+_)?nn$")
# Parameters that take the model a wrapper wraps, of any kind.
WRAPPED_PARAM = re.compile(r"^(model|module)$")
# Unannotated parameters that take a class by their name (`block`, `conv_builder`, `block_constructor`); the build
# step assembles the module's matching classes with the block (run/extract-step.ts, layerClasses).
CLASS_PARAM = re.compile(r"(^|_)(block|builder|constructor|maker|class|cls|fn)$")
# OpenMMLab-style config dicts (`conv_cfg`, `norm_cfg`, `act_cfg`): None asks for the plain layer (no norm, no
# activation), which every builder of theirs accepts; a norm dict is tried with the other norm choices.
CFG_PARAM = re.compile(r"(^|_)cfg$")
CFG_NORMS = ({"type": "BN"}, {"type": "LN"}, {"type": "BN3d"})
# Counts named like lists (`num_hidden_layers` ends like `layers`): a small count, never a list.
COUNT_NAME = re.compile(r"^(num|n)_\w*(layers|blocks|stages|levels|branches)$")


class Null:
    """A guessed None (a `*_cfg` that asks for the plain layer), told apart from guess()'s "no value"."""


NULL = Null()


def guess(p, cls, c, depth=0):
    """One value for a required constructor parameter; None when nothing sensible (JSON, a Ref or a Construct)
    exists. `c` is the candidate's choices: in_ch, base (widths), n (list length), norm (index into NORMS), strings.
    At depth 0 a parameter annotated with a config class of the block's module gets one built (Construct)."""
    name, ann = p.name.lower(), ann_text(p.annotation)
    given = (c.get("given") or {}).get(p.name) if depth == 0 else None
    if given is not None:
        return given_instance(given, c)
    cfg = (config_class(ann, cls) or declared_config(p.name, ann, cls)) if depth == 0 else None
    if cfg is not None:
        return construct(cfg, c)
    u = (c.get("uses") or {}).get(p.name) if depth == 0 else None
    # `drop_path > 0.`: a number, though a class of the module is named like it (DropPath).
    sub = instance_class(name, ann, cls) if depth == 0 and not (u is not None and u.number) else None
    built = construct(sub, c) if sub is not None else None
    if built is not None:
        return built
    if LOSS_PARAM.search(name) and ann in ("", "Module"):
        # A loss that wraps another (focal, quality-focal losses) reads and sets its `reduction`: an instance of
        # torch's logits loss, which takes predictions and targets of any one shape.
        return Construct(call="torch.nn.BCEWithLogitsLoss", kwargs={})
    if NN_PARAM.match(name) and ann in ("", "Module", "Callable"):
        # A linear layer whose input width is read off its first input (torch's lazy layer), so one value fits
        # whatever width the layer hands it: node features, concatenated pairs (EdgeConv), positions beside them.
        return Construct(call="torch.nn.LazyLinear", kwargs={"out_features": c["in_ch"]})
    if WRAPPED_PARAM.match(name) and ann in ("", "Module"):
        # A wrapper of any model (an EMA or weight-averaging copy, a parallel wrapper): a 1 x 1 convolution over
        # the input's channels, which keeps the input's shape whatever the wrapper does with its output.
        return Construct(call="torch.nn.Conv2d", kwargs={"in_channels": c["in_ch"], "out_channels": c["in_ch"],
                                                          "kernel_size": 1})
    if ann.startswith(("Callable", "Type[")) or (not ann and (name.endswith(("_layer", "norm_layer", "activation"))
                                                               or CLASS_PARAM.search(name))):
        return layer_ref(name, ann, cls, c["norm"])
    if ann == "dtype":
        return Ref("torch.float32")
    bag = attribute_bag(u, ann, cls, c)
    if bag is not None:
        return bag
    if depth == 0 and p.name in (c.get("slots") or ()):
        # The block reads attributes off it, calls it or builds it through a registry (usage/instances.ts): a
        # module or a config, never the number the rest would guess (`backbone=16`, then `16.num_channels`).
        return None
    if not ann and u is not None and u.called:
        # Called by the class and not a module it takes: a class or a factory (`blocks` of HRNet's HRModule, whose
        # `blocks.expansion` and `blocks(...)` an int fails), never a number.
        return layer_ref(name, ann, cls, c["norm"])
    if NAME_LIST.fullmatch(ann):
        # Feature-map names (`featmap_names: List[str]`): "0", "1"... as torchvision's IntermediateLayerGetter names
        # them, the keys dict inputs get (inputs.py).
        return [str(i) for i in range(c["n"])]
    if ann == "str" or (not ann and p.name in c["strings"]):
        return (c["strings"].get(p.name) or [None])[0]
    if not ann and CFG_PARAM.search(name) and not (u and (u.attrs or u.called)):
        return CFG_NORMS[c["norm"] - 1] if "norm" in name and c["norm"] else NULL
    if u is not None and u.keys and (not ann or ann == type(u.keys[0]).__name__):
        # `NORMS[norm]`: a key of the module-level dict it indexes; `self.arch_settings[depth]` with `depth: int`:
        # one of the table's depths, never the count FIXED would give (mmcv's ResNet: "invalid depth 2").
        return u.keys[0]
    if ann in ("", "int") and u is not None and u.count_of is not None:
        return c["n"]  # `if num_branches != len(num_blocks)`: as many as the lists are long
    if not ann and u is not None and u.seq and not u.keyed:
        # Iterated, measured, indexed or unpacked in the class (`for d in dilations`, `H, W = input_resolution`).
        return listed(name, c, u)
    pair = re.fullmatch(r"Tuple\[int, int(, int)?\]", ann)
    if pair:
        return [scalar(name, "int", c)] * (3 if pair.group(1) else 2)
    # `num_layers` ends like `layers` but is a count: a name with a fixed value is never a list.
    if INT_SEQ.match(ann) or (not ann and LISTY_NAMES.search(name) and name not in FIXED and not COUNT_NAME.match(name)):
        return [element(name, c)] * c["n"]
    if re.match(r"(List|Sequence|Tuple)\[float", ann) or (not ann and CHANNEL_STATS.search(name)):
        if CHANNEL_STATS.search(name):  # per-channel image statistics: one value per RGB channel
            return [0.25 if "std" in name else 0.5] * 3
        return [scalar(name, "float", c)] * c["n"]  # e.g. per-layer stochastic-depth probabilities
    return scalar(name, ann, c)


def given_instance(given, c):
    """The value of a parameter an `instance` candidate names a class for (`given`: the class and whether the block
    takes a config): an instance built with the block's own width choices, so the two agree on channels, or, for a
    block that builds the module through its registry (`MODELS.build(neck)`), the config naming it,
    `dict(type="GlobalAveragePooling", ...)` (the class registered itself when the module was imported). None when
    the class's own arguments can't be guessed."""
    sub, config = given
    built = construct(sub, c)
    if built is None or not config:
        return built
    return Construct(call="builtins.dict", kwargs={"type": sub.__name__, **built["kwargs"]})


def attribute_bag(u, ann, cls, c):
    """For a parameter the class only reads attributes off (`config.hidden_size`, `self.config.is_decoder`; never
    called, never indexed by a key), an object holding those attributes, each guessed from its name as a parameter
    would be: `types.SimpleNamespace(hidden_size=16, num_attention_heads=2, is_decoder=False, ...)` (a Construct).
    An attribute read only as a truth value is False (an optional branch off); one iterated or indexed a list."""
    if u is None or not u.attrs or u.called or u.keyed or u.seq or u.methods or (ann and not ann.endswith("Config")):
        return None
    kwargs = {}
    for attr, au in u.attrs.items():
        low = attr.lower()
        if au.keys:
            value = au.keys[0]  # a key of the module-level dict it indexes: `ACT2FN[config.hidden_act]`
        elif au.truth and not (au.seq or au.attrs or au.count_of):
            value = False
        elif re.search(r"(^|_)(act|activation)(_fn)?$", low):
            value = (c["strings"].get(attr) or ["gelu"])[0]  # a name activation tables know (`ACT2FN["gelu"]`)
        elif au.seq and not au.keyed:
            value = listed(low, c, au)
        else:
            value = guess(inspect.Parameter(attr, inspect.Parameter.KEYWORD_ONLY), cls, c, depth=1)
        if value is not None and not isinstance(value, (Ref, Construct, Null)):
            kwargs[attr] = value
    return Construct(call="types.SimpleNamespace", kwargs=kwargs)


# Positions in a list the block is fed (`idx` of YOLO's CBFuse, `*_index`): the first.
INDEX_NAME = re.compile(r"(^|_)(idx|index|indices|indexes)$")


def listed(name, c, u=None):
    """The list an int-list parameter gets, `[element] * n`; a list of such lists when the class takes an element of
    it as a sequence too (`self.na = len(anchors[0]) // 2` of YOLO's `Detect`: `[[16, 16], [16, 16]]`)."""
    inner = [element(name, c)] * c["n"]
    return [list(inner) for _ in range(c["n"])] if u is not None and u.nested else inner


def element(name, c):
    """One element of an int-list parameter: counts (layers, depths, repeats) and rates stay small."""
    if INDEX_NAME.search(name):
        return 0
    if name in FIXED:
        return FIXED[name]
    if name in IN_CHANNELS:
        return c["in_ch"]
    if any(w in name for w in ("layer", "depth", "repeat", "rate", "dilation", "stride")):
        return 1
    return c["base"]


def scalar(name, ann, c):
    if INDEX_NAME.search(name) and ann in ("", "int"):
        return 0
    if name in IN_CHANNELS:
        return c["in_ch"]
    if name in FIXED:
        return FIXED[name]
    if ann == "bool":
        return False
    if "drop" in name or "prob" in name or name == "p":
        return 0.0  # dropout and stochastic-depth probabilities: off, so the probe is deterministic
    if "thresh" in name:
        return 0.5
    if name.endswith(("eps", "epsilon")):
        return 1e-5
    if COUNT_NAME.match(name):
        return 2
    if "position" in name:
        return 64  # `max_position_embeddings`: at least the longest token probe
    if "chunk" in name:
        return 0  # `chunk_size_feed_forward`: 0 runs the feed-forward whole
    if "multiplier" in name:
        return 1.0
    if ann == "float":
        return 0.25 if "ratio" in name else 0.1
    if ann in ("", "int") or ann.startswith(("int", "Union[int")):
        return c["base"]  # channel/dim/features-like ints, and unannotated names: a small power of two
    return None


# The last is wide enough for a grouped block's default groups (ResNeXt-style `g=32` over half of half the width).
WIDTHS = ((3, 16), (16, 16), (64, 16), (3, 8), (8, 8), (3, 32), (32, 32), (64, 64), (128, 128))


def candidate(kwargs, refs=(), origin="inference", builder=None, calls=None):
    """One way to build the block: keyword arguments (names in `refs` hold dotted names, names in `calls` config
    objects to build), and the builder function of the block's module to call with them instead of the class
    (`resnet50`), if any. `origin` is recorded with the recipe: override, builder, usage or inference."""
    calls = calls_of(kwargs) if calls is None else list(calls)
    return {"kwargs": kwargs, "refs": list(refs), "calls": calls, "origin": origin, **({"builder": builder} if builder else {})}


def build_candidates(cls, overrides, usage=(), slots=()):
    """Candidates in the documented order (docs/validate.md, "Recipes"): a config override alone; else the job's
    usage candidates (zero-argument builders of the block's source, then literal construction sites, as the
    TypeScript side mined them from the index), then inference, then the models of other builders of its source
    that hold it (`part`: the block is found in the model built, fed what the model passes it), then other blocks
    of its source as the modules it takes (`instance`). `slots`: the parameters that take a module (given_instance),
    which inference leaves alone."""
    if overrides.get("kwargs") is not None or overrides.get("builder"):
        kwargs = {k: from_config(v) for k, v in (overrides.get("kwargs") or {}).items()}
        return [candidate(kwargs, overrides.get("refs") or (), "override", overrides.get("builder"))]
    inferred = inferred_kwargs(cls, slots=slots)
    out, parts, instances = [], [], []
    for c in usage:
        if c["origin"] == "instance":  # other blocks of its source as its modules: the last way tried (search.py)
            instances += instance_candidates(cls, c.get("instances") or {}, slots)
            continue
        if c["origin"] == "config":  # a config file's configuration: counted (canonical.py), never searched
            continue
        if c["origin"] == "part":  # a bigger model's part: after inference, the last way tried (search.py)
            parts.append({**candidate(dict(c.get("kwargs") or {}, **(c.get("sizing") or {})), (), "part", c["builder"]),
                          "builderModule": c["builderModule"], "path": None})
            continue
        kwargs = {k: from_config(v) for k, v in {**(c.get("kwargs") or {}), **(c.get("sizing") or {})}.items()}
        refs = list(c.get("refs") or ())
        if c.get("fill") and inferred:  # a site that left arguments unknown: inference's first guess fills them
            guess, guess_refs = inferred[0]
            for name, value in guess.items():
                if name not in kwargs:
                    kwargs[name] = value
                    refs += [name] if name in guess_refs else []
        # A builder of a sibling module (SAM's build_sam.py) keeps its upstream module, for fidelity only.
        home = {"builderModule": c["builderModule"]} if c["origin"] == "builder" and c.get("builderModule") else {}
        out.append({**candidate(kwargs, refs, c["origin"], c.get("builder")), **home})
    return out + [candidate(kw, refs) for kw, refs in inferred] + parts + instances


# Width choices an instance candidate is tried at: each builds the block and its instances alike.
INSTANCE_WIDTHS = 3


def instance_candidates(cls, named, slots=()):
    """Candidates that build the block with instances of other blocks of its source (`named`: parameter ->
    {"class": ".ResNetBackbone", "config": true?}, the classes the build step assembled with it), each width choice
    of inference's in turn; the parameters no instance is named for are guessed as inference guesses them. None when a
    named class is not in the block's module, or is no module class."""
    given, homes = {}, {}
    for param, spec in named.items():
        try:
            sub = resolve_name(str(spec["class"]), cls)
        except (AttributeError, KeyError, ValueError, ImportError):
            return []
        if not (isinstance(sub, type) and issubclass(sub, torch.nn.Module)):
            return []
        given[param] = (sub, bool(spec.get("config")))
        if spec.get("module"):
            homes[sub.__name__] = str(spec["module"])
    found = [kw for kw, _ in inferred_kwargs(cls, given, slots) if all(k in kw for k in given)]
    # `homes`: the upstream module of each class, for fidelity only (rehomed); the recipe names `.X` alone.
    return [{**candidate(kw, [k for k, v in kw.items() if isinstance(v, Ref)], "instance"), "homes": homes}
            for kw in found[:INSTANCE_WIDTHS]]


def rehomed(kwargs, homes):
    """An instance candidate's kwargs as the original package builds them (fidelity): each `.X` call of a class
    of another module of the package named by its upstream module (`pkg.backbones.X`: the original's package need
    not export it); a config dict's `type` stays (the original's registry knows X once `homes`' modules are
    imported)."""
    def one(v):
        if isinstance(v, Construct):
            call = str(v["call"])
            home = homes.get(call[1:]) if call.startswith(".") else None
            return Construct(call=f"{home}.{call[1:]}" if home else call,
                             kwargs={k: one(x) for k, x in (v.get("kwargs") or {}).items()})
        return v
    return {k: one(v) for k, v in kwargs.items()}


def uninferred(cls, slots=()):
    """Required constructor parameters inference has no value for (a `backbone`, a `cnf` config object): what a
    reader must supply, named on the block's page."""
    params = init_params(cls)
    required = [p for p in params if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    c = {**dict(in_ch=WIDTHS[0][0], base=WIDTHS[0][1], n=2, norm=0), "strings": string_choices(cls), "slots": slots,
         "uses": param_uses(cls, [p.name for p in params])}
    return [p.name for p in required if guess(p, cls, c) is None]


def inferred_kwargs(cls, given=None, slots=()):
    """(kwargs, refs) to try in order: defaults alone, else guesses. Widths: the (64, 16) pair fits bottlenecks whose
    residual needs in = 4 x width; the (16, 16) pairs fit residuals that need in = out. Norm choices and list lengths
    vary right after the first width, so the attempt budget reaches them before exotic widths. `given`: parameters
    an instance candidate names a class for (given_instance); `slots`: parameters that take a module, never guessed."""
    params = init_params(cls)
    required = [p for p in params if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    # A default that is an empty sequence holds a place (`ch=()` of a detection head that indexes `ch[0]`): after
    # the defaults, tried again with a list.
    empties = [p for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
               and isinstance(p.default, (tuple, list)) and not p.default]
    small = small_image(params)
    uses = param_uses(cls, [p.name for p in params])
    if not required and not empties:
        defaults = ([(small, [])] if small else []) + [({}, [])]
        return defaults + called_defaults(cls, params, uses, defaults[-1:])
    strings = string_choices(cls)
    choices = [dict(in_ch=i, base=b, n=2, norm=0) for i, b in WIDTHS[:2]]
    choices += [dict(in_ch=i, base=b, n=2, norm=k) for k in (1, 2) for i, b in WIDTHS[:2]]
    choices += [dict(in_ch=i, base=b, n=n, norm=0) for n in (4, 3) for i, b in WIDTHS[:2]]
    choices += [dict(in_ch=i, base=b, n=2, norm=0) for i, b in WIDTHS[2:]]
    out = [] if required else [({}, [])]
    for c in choices:
        kw = {p.name: guess(p, cls, {**c, "strings": strings, "given": given, "slots": slots, "uses": uses}) for p in required}
        if None in kw.values() or any(kw == k for k, _ in out):
            continue
        kw = {k: None if v is NULL else v for k, v in kw.items()}
        out.append((kw, [k for k, v in kw.items() if isinstance(v, Ref)]))
    out += [({**kw, **{p.name: listed(p.name.lower(), c, uses.get(p.name)) for p in empties}}, refs)
            for (kw, refs), c in zip(out[:2], choices[:2])] if empties else []
    # An unannotated size may be indexed (`window_size[0]` in Swin's window attention): the first two guesses again
    # with each such int as a pair, after the ints.
    sized = [p.name for p in required if not ann_text(p.annotation) and p.name.lower().endswith("_size")]
    out += [({**kw, **{n: [kw[n]] * 2 for n in sized if type(kw[n]) is int}}, refs) for kw, refs in out[:2]
            if any(type(kw[n]) is int for n in sized)]
    if any(p.kind == p.VAR_KEYWORD for p in params):  # **kwargs often forwarded to a conv that needs kernel_size
        out += [({**kw, "kernel_size": 3}, refs) for kw, refs in out[:2]]
    out += called_defaults(cls, params, uses, out[:2])
    if small:  # the first guess at a small image size first (inputs.image_shapes feeds that size)
        out = [({**kw, **small}, refs) for kw, refs in out[:1]] + out
    return out or [({}, [])]


def called_defaults(cls, params, uses, firsts):
    """`firsts` (kwargs, refs) again with a layer for each parameter whose default is None and that the constructor
    calls (timm's `DownsampleAvg(..., conv_layer=None)`, which only its callers fill in: "'NoneType' object is not
    callable"): torch's convolution for a `conv` name, else what layer_ref names; [] when there is none. They come
    after every other guess: a block whose defaults build never reaches them."""
    fills = {}
    for p in params:
        u = uses.get(p.name)
        if p.default is not None or p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) or u is None or not u.called or u.number:
            continue
        # torch's convolution for a `conv` name: a class of the module sharing the word is a variant that takes more
        # than an image (timm's `CondConv2d` wants routing weights).
        ref = Ref("torch.nn.Conv2d") if "conv" in p.name.lower() else layer_ref(p.name.lower(), ann_text(p.annotation), cls, 0)
        if ref is not None:
            fills[p.name] = ref
    return [({**kw, **fills}, [*refs, *fills]) for kw, refs in firsts] if fills else []


# Image-size parameters of a ViT-style model (its positional embeddings' grid), and the size tried before a default
# that would be slow to run (SAM's ImageEncoderViT: img_size=1024): 64 pixels, a pair where the default is one.
IMAGE_SIZE_PARAMS = ("img_size", "image_size", "pretrain_img_size")
SMALL_IMAGE = 64


def small_image(params):
    """{name: 64} (or [64, 64]) for an image-size parameter whose default is over 128 pixels a side; else {}."""
    for p in params:
        d = p.default
        if p.name not in IMAGE_SIZE_PARAMS:
            continue
        if type(d) is int and d > 2 * SMALL_IMAGE:
            return {p.name: SMALL_IMAGE}
        if isinstance(d, (tuple, list)) and len(d) == 2 and all(type(x) is int for x in d) and max(d) > 2 * SMALL_IMAGE:
            return {p.name: [SMALL_IMAGE, SMALL_IMAGE]}
    return {}


def from_config(value):
    """A config override's kwarg in the recipe's form: `{"class": X, "kwargs": {...}}` an instance to build (a
    Construct, its kwargs converted in turn: `MaskDecoder(transformer=TwoWayTransformer(...))`), `{"tuple": [...]}`
    a tuple, kept as that marker until build time (JSON has no tuples); lists and literals as they are."""
    if isinstance(value, dict) and "class" in value:
        return Construct(call=value["class"], kwargs={k: from_config(v) for k, v in (value.get("kwargs") or {}).items()})
    if isinstance(value, dict) and "tuple" in value:
        return {"tuple": [from_config(v) for v in value["tuple"]]}
    if isinstance(value, list):
        return [from_config(v) for v in value]
    return value


def calls_of(kwargs):
    """Names of kwargs whose value is a Construct (a config object to build)."""
    return [k for k, v in kwargs.items() if isinstance(v, Construct)]


def resolve_name(target, cls):
    """The object a dotted name denotes: `.X` in the block's own module, else `module.attr`.

    `.X` that the block's module lacks is looked up in its package, then the package's parents: a class of a sibling
    module that the package exports. The assembled module holds such a class itself (the build step assembles the
    classes a config override names with the block); the original module does not, its package does (fidelity:
    `segment_anything.modeling.mask_decoder` lacks `TwoWayTransformer`, `segment_anything.modeling` exports it)."""
    if target.startswith("."):
        name, where = target[1:], cls.__module__
        while True:
            mod = sys.modules.get(where)
            if mod is not None and hasattr(mod, name):
                return getattr(mod, name)
            if "." not in where:
                return getattr(sys.modules[cls.__module__], name)  # raises the block module's own AttributeError
            where = where.rsplit(".", 1)[0]
    module, attr = target.rsplit(".", 1)
    return getattr(importlib.import_module(module), attr)


def materialize(value, cls):
    """A recipe value as the constructor gets it: a call (`{"call": dotted, "kwargs": {...}}`) built, its kwargs
    first; a `{"tuple": [...]}` a tuple; lists item by item; literals as they are. Nested calls are built depth first,
    in kwarg order, after the seed (replay.py `build`), the same in every replay."""
    if isinstance(value, dict) and "call" in value:
        kwargs = {k: materialize(v, cls) for k, v in (value.get("kwargs") or {}).items()}
        return resolve_name(str(value["call"]), cls)(**kwargs)
    if isinstance(value, dict) and "tuple" in value:
        return tuple(materialize(v, cls) for v in value["tuple"])
    if isinstance(value, list):
        return [materialize(v, cls) for v in value]
    return value


def resolve_refs(kwargs, refs, cls, calls=()):
    """kwargs with each name in `refs` replaced by the object its dotted name denotes (see Ref), each name in
    `calls` ({"call": dotted, "kwargs": {...}}) by the object that call builds (see Construct), and tuples made."""
    out = dict(kwargs)
    for name, value in kwargs.items():
        if name in (refs or ()):
            out[name] = resolve_name(str(value), cls)
        elif name in (calls or ()) or isinstance(value, (dict, list)):
            out[name] = materialize(value, cls)
    return out
