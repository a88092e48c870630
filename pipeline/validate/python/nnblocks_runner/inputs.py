# nnblocks validate inference: forward input specs for a built block nobody wrote inputs for, read off its forward
# signature (names, annotations), its layers, and its forward's source (forward_source.py). Specs are JSON, the
# replay protocol's (docs/validate.md, "Replay protocol"); replay.make_inputs turns them into arguments.
import inspect, re

import torch

from . import forward_source
from .infer import IMAGE_SIZE_PARAMS, ann_text
from .sources import module_text


def spec(shape, dtype="float32", high=None):
    return {"shape": list(shape), "dtype": dtype, **({"high": int(high)} if high is not None else {})}


def probe_shapes(m):
    """Candidate single-input specs read off the first probe-able layers of the built module, then generic ones."""
    nn, out = torch.nn, []
    for sub in list(m.modules())[:200]:
        if len(out) >= 6:
            break
        if isinstance(sub, nn.modules.lazy.LazyModuleMixin) and sub.has_uninitialized_params():
            continue  # a lazy layer (`nn.LazyLinear`) reads its width off its first input: it has none to give
        if isinstance(sub, (nn.Conv1d, nn.ConvTranspose1d)):
            out += [spec([2, sub.in_channels, 64]), spec([2, sub.in_channels, 32])]
        elif isinstance(sub, (nn.Conv2d, nn.ConvTranspose2d)):
            c = sub.in_channels
            out += [spec([2, c, 32, 32]), spec([2, c, 64, 64]), spec([2, c, 224, 224])]
        elif isinstance(sub, (nn.Conv3d, nn.ConvTranspose3d)):
            out += [spec([2, sub.in_channels, 8, 16, 16]), spec([2, sub.in_channels, 16, 32, 32])]
        elif isinstance(sub, nn.Linear):
            # the 4-d one is (batch, windows, tokens, features), as window/partition attention takes it; the last
            # is windows of 4 x 4 tokens in the batch (Swin's window attention, its window_size inferred as 4)
            out += [spec([2, sub.in_features]), spec([2, 8, sub.in_features]), spec([2, 2, 16, sub.in_features]),
                    spec([2, 16, sub.in_features])]
        elif isinstance(sub, (nn.Embedding, nn.EmbeddingBag)):
            out += [spec([2, 16], "int64", sub.num_embeddings)]
        elif isinstance(sub, nn.LayerNorm):
            ns = list(sub.normalized_shape)
            out += [spec([2, 8] + ns), spec([2] + ns)]
            if len(ns) == 1:  # channels-first blocks that permute to channels-last around the norm
                out += [spec([2, ns[0], 32, 32])]
        elif isinstance(sub, (nn.BatchNorm2d, nn.InstanceNorm2d, nn.GroupNorm)):
            c = sub.num_channels if isinstance(sub, nn.GroupNorm) else sub.num_features
            out += [spec([2, c, 32, 32])]
        elif isinstance(sub, (nn.BatchNorm3d, nn.InstanceNorm3d)):
            out += [spec([2, sub.num_features, 8, 16, 16])]
        elif isinstance(sub, (nn.BatchNorm1d, nn.InstanceNorm1d)):
            out += [spec([2, sub.num_features]), spec([2, sub.num_features, 16])]
        elif isinstance(sub, (nn.RNNBase,)):
            out += [spec([2, 8, sub.input_size])]
        elif isinstance(sub, nn.MultiheadAttention):
            out += [spec([8, 2, sub.embed_dim])]
    out += [spec([2, 3, 32, 32]), spec([2, 16]), spec([2, 8, 16]), spec([2, 16, 32, 32]), spec([2, 3, 8, 16, 16]), spec([2, 8])]
    unique = []
    for s in out:
        if s not in unique:
            unique.append(s)
    return unique[:10]


def input_candidates(m, overrides, kwargs, usage_inputs=()):
    """Lists of input specs: a config override alone; else the inputs the corpus calls the block with (literal
    tensor shapes, from usage mining), then those read off the forward signature and the built module."""
    if overrides.get("inputs") is not None:
        return [overrides["inputs"]]
    return list(usage_inputs) + probed_inputs(m, kwargs)


def probed_inputs(m, kwargs):
    """Lists of specs, one spec per required positional forward argument, one list per probe shape (`arg_spec`).

    A forward of two or more tensor arguments whose code says what width each needs (forward_source.arg_widths:
    `self.convflow1(flow)` wants flow with that conv's in_channels) gets, before each probe shape, the same shape
    with each argument's width set; the plain shape stays next, so blocks it fed keep being fed it. An unannotated
    single argument gets list specs after the plain ones, for heads written without annotations.

    Before every probe shape: the first argument at the rank its forward's source unpacks it into (told_shapes),
    then images of the size the model is built for (image_shapes); the probes of the told rank come first."""
    try:
        params = list(inspect.signature(m.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is inspect.Parameter.empty]
    n = max(len(positional), 1 if any(p.kind == p.VAR_POSITIONAL for p in params) else 0)
    if n == 0:
        # Every argument optional, the first defaulting to None (`forward(self, input_ids=None, ...)`: Hugging Face's
        # embeddings and models, which raise on None): nothing first, then that first one as the one argument.
        first = next((p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)), None)
        if first is None or first.default is not None:
            return [[]]
        return [[]] + [c for c in probed_for(m, kwargs, [first], 1) if c]
    return probed_for(m, kwargs, positional, n)


def probed_for(m, kwargs, positional, n):
    """probed_inputs for the forward arguments `positional` (n of them, at least one)."""
    levels = next((len(v) for v in kwargs.values() if isinstance(v, list) and v), 2)
    shapes, out = probe_shapes(m), []
    anns = [ann_text(p.annotation) for p in positional]
    if "int" in anns:
        # Window partitions: `x` of (batch, windows, window area, channels) with every int argument INT_INPUT.
        shapes = [spec([2, INT_INPUT ** 2, INT_INPUT ** 2, 8])] + shapes
    args = (positional or [None])[:n]
    keys = {p.name: dict_keys(m, p.name, kwargs, levels) for p in positional if TENSOR_DICT.match(ann_text(p.annotation))}
    mappings = read_mappings(m, positional)
    plain_tensors = [p for p in positional if ann_text(p.annotation) in ("", "Tensor") and not BOX_NAME.search(p.name)]
    widths = forward_source.arg_widths(m, ints_of(kwargs)) if len(plain_tensors) >= 2 else {}
    # What the forward's source tells of the first argument's rank, and the image size the model is built for, first.
    told, rank = told_shapes(m, args[0].name, kwargs, shapes) if args[0] in plain_tensors else ([], None)
    shapes = told + image_shapes(m, kwargs, shapes) + sorted(shapes, key=lambda s: rank is not None and len(s["shape"]) != rank)
    shapes = [s for i, s in enumerate(shapes) if s not in shapes[:i]]
    named = named_value(WIDTH_NAMES, m, kwargs)
    out += spatial_inputs(positional, ([spec([2, TOLD_TOKENS, named[1][0]])] if named and not told else []) + shapes)
    # A `data: dict` the forward reads by key: tensors under the keys it reads, then under the first one alone (a
    # data preprocessor's `data['inputs']`; its `data['data_samples']` are records no tensor stands for).
    for variant in (mappings, {n: k[:1] for n, k in mappings.items()}) if mappings else ():
        for s in shapes[:2]:
            candidate = [arg_spec(p, s, m, levels, {**keys, **variant}) for p in args]
            out += [candidate] if candidate not in out else []
    # A pyramid of levels of different widths first: one list of same-width levels could never feed it.
    pyramid = pyramid_inputs(args, m, kwargs, keys)
    widths_differ = any(len({level[1] for level in p[0]["levels"]}) > 1 for p in pyramid)
    out += pyramid if widths_differ else []
    for s in shapes:
        plain = [arg_spec(p, s, m, levels, keys) for p in args]
        fitted = [with_width(a, widths.get(p.name)) if p is not None else a for p, a in zip(args, plain)]
        out += [fitted, plain] if fitted != plain else [plain]
    if len(positional) == 1 and not ann_text(positional[0].annotation):
        out += [[{**s, "list": levels}] for s in shapes[:2]]
    out += [] if widths_differ else pyramid
    out += bool_masks(out, args)
    if n == 1 and says_uint8(m):
        # Image transforms that only take uint8 images (RandAugment, RandomPosterize, RandomEqualize...).
        out += [[spec([2, 3, 32, 32], "uint8", 256)], [spec([3, 32, 32], "uint8", 256)]]
    return out


# ---------------------------------------------------------------- feature pyramids
# Constructor arguments giving the channels of each input level of a neck or head (`in_channels=[256, 512, 1024,
# 2048]` of an FPN), the number of levels beside one width (`num_levels=5` of BFP), and the levels' strides
# (`featmap_strides=[32, 16, 8]` of YOLOv3's head, which takes its levels in that order).
PYRAMID_CHANNELS = re.compile(r"in_channels(_list)?|channels|in_dims?|inplanes")
PYRAMID_COUNT = re.compile(r"num_(levels|inputs|ins|feats?)")
PYRAMID_STRIDES = re.compile(r"(featmap_|feat_|anchor_)?strides")
PYRAMID_SIDE = 256  # the image side a level's stride divides (stride 8: 32 x 32)


def int_list(v):
    return isinstance(v, (list, tuple)) and all(type(x) is int and x > 0 for x in v)


def pyramid_inputs(args, m, kwargs, keys):
    """For a neck or head whose constructor was given one width per input level (PYRAMID_CHANNELS, a list of two or
    more) or one width and a number of levels (PYRAMID_COUNT), or whose module keeps them under those names: inputs
    whose first argument is one [2, C_i, H_i, H_i] tensor per level (`levels`), each level half the size of the one
    before (the last 8 x 8), or, where the levels' strides are given, the side PYRAMID_SIDE / stride. Other arguments
    as arg_spec gives them for the first level. None for a forward without arguments, or a constructor without such
    widths."""
    if not args or args[0] is None:
        return []
    # The constructor's arguments, then what the built module kept of them (a default: `in_channels=(16, 32, 64)`).
    kept = getattr(m, "__dict__", None)
    given = [*kwargs.items(), *((k, v) for k, v in (kept if isinstance(kept, dict) else {}).items() if k not in kwargs)]
    channels = next((list(v) for k, v in given if PYRAMID_CHANNELS.fullmatch(k) and int_list(v) and len(v) >= 2), None)
    if channels is None:
        width = next((v for k, v in given if PYRAMID_CHANNELS.fullmatch(k) and type(v) is int and v > 0), None)
        count = next((v for k, v in given if PYRAMID_COUNT.fullmatch(k) and type(v) is int and 2 <= v <= 8), None)
        if width is None or count is None:
            return []
        channels = [width] * count
    channels = channels[:8]
    strides = next((list(v) for k, v in given if PYRAMID_STRIDES.fullmatch(k) and int_list(v) and len(v) == len(channels)), None)
    if strides and all(PYRAMID_SIDE % s == 0 for s in strides):
        sides = [PYRAMID_SIDE // s for s in strides]
    else:
        sides = [8 << (len(channels) - 1 - i) for i in range(len(channels))]
    levels = [[2, c, h, h] for c, h in zip(channels, sides)]
    first = {"shape": levels[0], "dtype": "float32", "levels": levels}
    rest = [arg_spec(p, spec(levels[0]), m, len(levels), keys) for p in args[1:]]
    return [[first, *rest]]


# ---------------------------------------------------------------- shapes the forward's source tells
# Module attributes and constructor arguments giving a block's token grid, by name: a side or a (height, width) pair
# (`resolution=14` of LeViT's attention: 196 tokens; `window_size=(7, 7)`: 49, or 50 with a class token).
GRID_NAMES = ("input_resolution", "resolution", "window_size", "feat_size", "grid_size")
# Constructor arguments giving the (fixed) image size of a ViT-style model: its positional embeddings' grid.
IMAGE_NAMES = (*IMAGE_SIZE_PARAMS, "input_size")
# Constructor arguments and attributes naming the width of a block's tokens, tried after a layer's width.
WIDTH_NAMES = ("dim", "embed_dim", "embed_dims", "in_channels", "in_features", "channels", "hidden_size", "d_model",
               "hidden_dim", "num_features", "in_chans")
MAX_SIDE = 256  # a told image size above this is not fed (SAM's 1024 pixels): too slow for a probe
TOLD_TOKENS = 16  # tokens of a told rank-3 input when no grid is named (4 x 4: the window_size 4 inference guesses)
TOLD_SIDE = 32  # sides of a told image-like input when no grid is named: the probes' own


def pair(v):
    """(h, w) of a size given as an int or a pair of ints; None otherwise."""
    if type(v) is int and v > 0:
        return (v, v)
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(type(x) is int and x > 0 for x in v):
        return tuple(v)
    return None


def named_value(names, *places):
    """The first (name, value) of `names` that one of `places` (modules, then kwargs) holds as a size pair."""
    for place in places:
        for n in names:
            try:
                v = place.get(n) if isinstance(place, dict) else getattr(place, n, None)
            except Exception:  # an attribute of upstream code may raise anything
                continue
            if pair(v):
                return n, pair(v)
    return None


def defaults(cls):
    """The constructor's parameter defaults, by name ({} where its signature can't be read)."""
    try:
        params = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return {}
    return {n: p.default for n, p in params.items() if p.default is not inspect.Parameter.empty}


def told_shapes(m, name, kwargs, probes=()):
    """Specs of forward argument `name` at the rank its forward's source unpacks its shape into
    (forward_source.shape_names): `B, N, C = x.shape` -> [2, N, C], `b, c, h, w = x.size()` -> [2, C, H, W],
    `B, H, W, C = x.shape` -> [2, H, W, C]. Each axis by the role its name says (a side, a width, tokens), else by
    the rank's usual layout ([B, N, C], [B, C, H, W], [B, C]). The width: what the code feeds the argument to
    (forward_source.arg_widths), else the first layer of the module that unpacks it, else a width-naming argument or attribute
    (`dim`); up to two of them. Tokens: the grid a `resolution`/`window_size`-like attribute or argument names
    (N = h * w, then N + 1 for a class token; the module that unpacks it first, then the block, its kwargs, and the
    two constructors' defaults: LeViT's attention keeps `resolution=14` to itself), else TOLD_TOKENS; sides: that
    grid (not a window's), else TOLD_SIDE. Without any of these widths, that of the first of `probes` of the rank. At most 4 specs,
    with the rank (the probes of that rank go first after them); nothing when the code says nothing, or for ranks
    below 2 or above 5."""
    found = forward_source.shape_names(m, name)
    if not found or not 2 <= len(found[1]) <= 5:
        return [], None
    owner, names = found
    rank = len(names)
    roles = [forward_source.role(n, i) for i, n in enumerate(names)]
    if rank == 4 and roles[1] == "side" and roles[2] == "side":
        template = ["batch", "side", "side", "width"]
    else:
        template = {2: ["batch", "width"], 3: ["batch", "tokens", "width"], 4: ["batch", "width", "side", "side"],
                    5: ["batch", "width", "tokens", "side", "side"]}[rank]
    roles = [r or t for r, t in zip(roles, template)]
    widths = []
    arg_width = forward_source.arg_widths(m, ints_of(kwargs)).get(name)
    first = forward_source.first_width(owner)
    named = named_value(WIDTH_NAMES, owner, m, kwargs)
    # Last, the width of the first probe of that rank (a block without layers: LeViT's Downsample).
    axis = roles.index("width") if "width" in roles else None
    probe = next((p["shape"][axis] for p in probes if axis and len(p["shape"]) == rank and p["dtype"] == "float32"), None)
    for w in (arg_width[1] if arg_width else None, first[1] if first else None, named[1][0] if named else None):
        if w and w not in widths:
            widths.append(w)
    widths = widths or ([probe] if probe else [])
    grid = named_value(GRID_NAMES, owner, m, kwargs, defaults(type(owner)), defaults(type(m)))
    if grid:
        h, w = grid[1]
        tokens = [h * w, h * w + 1] if grid[0] == "window_size" else [h * w]
        # A window is a grid of tokens, not of pixels: an image keeps the probes' sides (Swin's 7 x 7 windows).
        sides = [(TOLD_SIDE, TOLD_SIDE)] if grid[0] == "window_size" else [grid[1]]
    else:
        tokens, sides = [TOLD_TOKENS], [(TOLD_SIDE, TOLD_SIDE)]
    out = []
    for c in widths[:2]:
        for n in tokens:
            for hw in sides:
                it = iter(hw)
                shape = [2 if r == "batch" else c if r == "width" else n if r == "tokens" else next(it, hw[-1]) for r in roles]
                if spec(shape) not in out:
                    out.append(spec(shape))
    return out[:4], rank


def image_shapes(m, kwargs, shapes):
    """Images at the size a ViT-style model is built for (`img_size=[32, 100]`, a `pretrain_img_size` kwarg, else
    the constructor's default): [2, C, h, w], C that of the first image-like probe. None without an image probe,
    a named size, or for one over MAX_SIDE."""
    image = next((s for s in shapes if len(s["shape"]) == 4 and s["dtype"] == "float32"), None)
    if image is None:
        return []
    found = named_value(IMAGE_NAMES, kwargs, defaults(type(m)))
    if found is None or max(found[1]) > MAX_SIDE:
        return []
    return [spec([2, image["shape"][1], *found[1]])]


# Forward arguments giving the spatial size of a token sequence (`forward(self, x, H, W)`: x is [B, H*W, C]), by
# name: the height, the width, or both as a pair (`hw_shape`, `size`).
HEIGHTS = {"h", "height"}
WIDTHS = {"w", "width"}
PAIRS = {"hw_shape", "hw", "hw_size", "size", "x_size", "input_size", "feat_size", "spatial_shape", "spatial_size",
         "in_shape", "input_shape", "input_dimensions"}
# Sides of the token grids tried, square: small, then divisible by common window sizes (2, 4, 7).
TOKEN_SIDES = (8, 14, 4)


def spatial_inputs(positional, shapes):
    """Inputs for a forward taking a token sequence with its spatial size (PVT, SegFormer, Swin-style stages:
    `x, H, W`, `x, hw_shape`): for the first two [B, N, C] probes, each tensor argument as [B, side * side, C] and
    the size arguments as `side` (or the tuple (side, side)), for each of TOKEN_SIDES. None without a size argument."""
    names = [p.name.lower() for p in positional]
    has_pair = any(n in PAIRS for n in names)
    if not (has_pair or (any(n in HEIGHTS for n in names) and any(n in WIDTHS for n in names))):
        return []
    out = []
    for s in [s for s in shapes if len(s["shape"]) == 3 and s["dtype"] == "float32"][:2]:
        batch, channels = s["shape"][0], s["shape"][-1]
        for side in TOKEN_SIDES:
            args = []
            for p, n in zip(positional, names):
                if n in HEIGHTS or n in WIDTHS:
                    args.append(literal(side))
                elif n in PAIRS:
                    args.append(literal({"tuple": [side, side]}))
                elif "mask" in n:
                    args.append(spec([batch, side * side], mask_dtype(n), 2))
                else:
                    args.append(spec([batch, side * side, channels]))
            out.append(args)
    return out


# Larger geometries a builder's model (or a part's parent) is tried at when no probe fed it, smallest first: what
# models of fixed geometry take (MaxViT's partition of 7 at 224 pixels, MViT's 16 frames of 224, S3D's final 7 x 7
# pooling; RAFT's correlation pyramid wants 64). Batch 1: these are production sizes.
GROWN = {2: ([64, 64], [128, 128], [224, 224], [299, 299]), 3: ([16, 112, 112], [8, 224, 224], [16, 224, 224])}


def grown(specs):
    """`specs` at each geometry of GROWN in turn (the search checks each on the meta device first): every floating
    image-like tensor, [B, C, H, W] or [B, C, T, H, W] (batch 1), or a list of [C, H, W] images (one image), takes
    the geometry; other specs stay. Nothing when no spec is image-like."""
    out = []
    for geometry in GROWN[2] + GROWN[3]:
        changed, new = False, []
        for s in specs:
            plain = not set(s) - {"shape", "dtype", "list"} and getattr(torch, s["dtype"]).is_floating_point
            shape, dims = s["shape"], len(geometry)
            if plain and "list" in s and dims == 2 and len(shape) == 3:
                new.append({**s, "shape": shape[:1] + geometry, "list": 1})
            elif plain and "list" not in s and len(shape) == dims + 2:
                new.append({**s, "shape": [1, shape[1]] + geometry})
            else:
                new.append(s)
                continue
            changed = True
        if changed and new not in out:
            out.append(new)
    return out


IMAGE_LIST_NAMES = {"images", "imgs", "image_list", "img_list"}
# Graph arguments beside a [N, C] probe of node features: edges as node index pairs, and a per-node group index.
GRAPH_EDGES = re.compile(r"(pos_|neg_)?edge_index")
GRAPH_INDEX = re.compile(r"index|batch|cluster")
EDGES_PER_GRAPH = 8
# The value of an `int` forward argument (a window or partition size): small, and a divisor of the probe sizes.
INT_INPUT = 2
# Arguments that are regions of interest: `rois`, `boxes`, `proposals`, `bboxes`, `gt_boxes`...
BOX_NAME = re.compile(r"(^|_)(rois?|b?box(es)?|proposals?)$")
OFFSET_NAME = re.compile(r"(^|_)offsets?$")
BOXES_PER_IMAGE = 4  # rows of a boxes input per probe image
LIST = r"(List|Sequence|list)\["
NAMES = re.compile(LIST + r"str\]")
SIZES = re.compile(LIST + r"(Tuple|tuple)\[int, ?int\]\]")
TENSOR_LIST = re.compile(LIST + r"Tensor\]")
TENSOR_DICT = re.compile(r"(Dict|Mapping|dict)\[str, Tensor\]")
# A mapping of anything (`data: dict`, `Dict[str, Any]`): what it holds, only the forward's source says.
LOOSE_MAPPING = re.compile(r"(Dict|Mapping|MutableMapping|dict)(\[str, .*\])?")


def read_mappings(m, positional):
    """Forward arguments annotated as a loose mapping that the forward reads by string key: name -> keys read."""
    out = {}
    for p in positional:
        ann = ann_text(p.annotation)
        if LOOSE_MAPPING.fullmatch(ann) and not TENSOR_DICT.match(ann):
            read = forward_source.subscript_keys(type(m), p.name)
            if read:
                out[p.name] = read
    return out


def arg_spec(p, s, m, levels, keys):
    """The spec of one forward argument for probe shape `s`, by its annotation, then its name:

    - `int`: the plain int INT_INPUT (`value`);
    - `List[str]`: level names "0", "1"..., one per level (`value`; FPN's extra blocks append to them);
    - `List[Tuple[int, int]]`: the probe's image size, once per image (`value`; MultiScaleRoIAlign's image_shapes);
    - `Dict[str, Tensor]`: tensors of `s` under `keys` (dict_keys);
    - a box name (BOX_NAME) beside an image-shaped probe: boxes inside the image (boxes_spec);
    - `edge_index` beside a [N, C] probe: [2, 8] node indices below N; `index`/`batch`: one index per node;
    - `offset` of a deformable convolution: one (dy, dx) per kernel tap and output pixel (offset_spec);
    - a mask: 0/1 integers, one per patch beside the image of a patch-embedding model (patch_grid), else of
      `s[:2]`; `List[Tensor]`: one tensor per level, or separate [C, H, W] images for `images`;
    - anything else: `s` itself."""
    ann, name = (ann_text(p.annotation), p.name) if p is not None else ("", "")
    shape = s["shape"]
    image = len(shape) == 4 and getattr(torch, s["dtype"]).is_floating_point
    if ann == "int":
        return literal(INT_INPUT)
    if NAMES.fullmatch(ann):
        return literal([str(i) for i in range(levels)])
    if SIZES.fullmatch(ann):
        return literal([shape[-2:] if len(shape) >= 3 else [32, 32]] * (shape[0] if shape else 1))
    if TENSOR_DICT.match(ann) or name in keys:
        return {**s, "keys": keys[name]}
    if image and BOX_NAME.search(name):
        return boxes_spec(s, listed=bool(TENSOR_LIST.fullmatch(ann)))
    if image and OFFSET_NAME.search(name) and offset_spec(m, s):
        return offset_spec(m, s)
    if GRAPH_EDGES.fullmatch(name) and len(shape) >= 2:
        # A graph's edges, the probe's next-to-last dimension its nodes (PyG's `edge_index: Adj`, node_dim=-2):
        # [2, E] node indices.
        return spec([2, EDGES_PER_GRAPH], "int64", shape[-2])
    if GRAPH_INDEX.fullmatch(name) and len(shape) == 2:
        # Which group each row belongs to (a scatter `index`, PyG's `batch`): one index per row, below the rows.
        return spec(shape[:1], "int64", shape[0])
    if "mask" in name:
        grid = patch_grid(m, shape) if image else None
        return spec([shape[0], *grid] if grid else shape[:2], mask_dtype(name), 2)
    if TENSOR_LIST.match(ann):
        # `images: List[Tensor]` (detection models) are separate [C, H, W] images; other lists are levels.
        return {**s, "shape": shape[1:], "list": 2} if name in IMAGE_LIST_NAMES and len(shape) == 4 else {**s, "list": levels}
    return s


MASK_VARIANTS = 4  # candidates tried again with bool masks, at most


def bool_masks(candidates, args):
    """The first candidates that give a mask argument 0/1 integers, again with those masks as bool, after all the
    others: a foreground mask taken by `masked_select` or used to index must be bool, where arithmetic takes
    either (a foreground mask: `pred[fg_mask]`). Masks are the arguments named `*mask*`."""
    at = {i for i, p in enumerate(args) if p is not None and "mask" in p.name.lower()}
    out = []
    for c in candidates:
        if len(out) >= MASK_VARIANTS:
            break
        if len(c) != len(args):
            continue
        v = [{**s, "dtype": "bool"} if i in at and s.get("dtype") == "int64" and s.get("high") == 2 and "value" not in s else s
             for i, s in enumerate(c)]
        if v != c and v not in out and v not in candidates:
            out.append(v)
    return out


def mask_dtype(name):
    """A padding mask says which positions to ignore: bool, as attention takes it (nn.MultiheadAttention refuses an
    integer `key_padding_mask`). Other masks are 0/1 integers, which arithmetic takes."""
    return "bool" if "padding_mask" in name.lower() else "int64"


def patch_grid(m, shape):
    """[H / p, W / p] for image shape `shape` when the model's first convolution embeds patches (kernel = stride =
    p > 1: a ViT's patch embedding, what a masked-image-modeling mask covers); else None."""
    conv = next((x for x in list(m.modules())[:50] if isinstance(x, torch.nn.Conv2d)), None)
    if conv is None or tuple(conv.kernel_size) != tuple(conv.stride) or min(conv.stride) < 2:
        return None
    grid = [n // p for n, p in zip(shape[-2:], conv.stride)]
    return grid if min(grid) > 0 else None


def literal(value):
    """A non-tensor argument: an int, a list of names or a list of int pairs, passed as it is (shape [] by rule)."""
    return {"shape": [], "dtype": "int64", "value": value}


def boxes_spec(s, listed):
    """Boxes for the [B, C, H, W] image-shaped probe `s`, valid inside its min(H, W) square: a list of B per-image
    [K, 4] tensors (x1, y1, x2, y2) for a `List[Tensor]` argument (MultiScaleRoIAlign), else one [B*K, 5] tensor
    whose first column is the image index, row i on image i % B (the RoI format of torchvision's roi_align)."""
    batch, side = s["shape"][0], min(s["shape"][-2:])
    if listed:
        return {"shape": [BOXES_PER_IMAGE, 4], "dtype": s["dtype"], "boxes": side, "list": batch}
    return {"shape": [BOXES_PER_IMAGE * batch, 5], "dtype": s["dtype"], "boxes": side, "high": batch}


def offset_spec(m, s):
    """The offsets a deformable convolution (torchvision's DeformConv2d) with a [O, I, kh, kw] `weight` takes for the
    image-shaped probe `s`: [B, 2 * kh * kw, H', W'], H' and W' the convolution's output size from the module's
    stride, padding and dilation. None when the module has no such weight."""
    w = getattr(m, "weight", None)
    if not isinstance(w, torch.Tensor) or w.dim() != 4:
        return None
    pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) and len(v) == 2 else (v, v) if isinstance(v, int) else None
    stride, padding, dilation = (pair(getattr(m, a, d)) for a, d in (("stride", 1), ("padding", 0), ("dilation", 1)))
    if None in (stride, padding, dilation):
        return None
    kh, kw = w.shape[-2:]
    out = [(n + 2 * p - d * (k - 1) - 1) // st + 1 for n, k, st, p, d in zip(s["shape"][-2:], (kh, kw), stride, padding, dilation)]
    return spec([s["shape"][0], 2 * kh * kw, *out], s["dtype"]) if min(out) > 0 else None


def dict_keys(m, name, kwargs, levels):
    """Keys for a dict argument: the string keys the forward reads it with (`input["low"]`), else the names a list
    kwarg gives (`featmap_names`, which the dict must carry), else "0", "1"... as torchvision's IntermediateLayerGetter
    names feature maps."""
    read = forward_source.subscript_keys(type(m), name)
    if read:
        return read
    named = next((v for v in kwargs.values() if isinstance(v, list) and v and len(v) <= 16
                  and all(isinstance(x, str) and forward_source.SAFE_NAME.match(x) for x in v)), None)
    return list(named) if named else [str(i) for i in range(levels)]


def with_width(a, width):
    """Plain tensor spec `a` with its channels (axis 1, of a [B, C, ...] probe) or features (the last axis) set."""
    if width is None or set(a) - {"shape", "dtype"} or not getattr(torch, a["dtype"]).is_floating_point:
        return a
    axis, n = width
    shape = list(a["shape"])
    if (axis == 1 and len(shape) >= 3) or (axis == -1 and len(shape) >= 2):
        shape[axis] = n
    return {**a, "shape": shape}


def ints_of(kwargs):
    """The int-valued kwargs: the widths a constructor was given (`hidden_size`), for forward_source.named_width."""
    return {k: v for k, v in kwargs.items() if isinstance(v, int) and not isinstance(v, bool)}


def says_uint8(m):
    """Whether the block's module mentions `uint8`: the code says its images may (or must) be integers."""
    return "uint8" in (module_text(type(m).__module__) or "")
