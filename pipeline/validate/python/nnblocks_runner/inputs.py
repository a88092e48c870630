# nnblocks validate inference: forward input specs for a built block nobody wrote inputs for, read off its forward
# signature (names, annotations) and its layers. Specs are JSON, the replay protocol's (docs/validate.md, "Replay
# protocol"); replay.make_inputs turns them into arguments.
import inspect, re, sys

import torch

from .infer import ann_text

def spec(shape, dtype="float32", high=None):
    return {"shape": list(shape), "dtype": dtype, **({"high": int(high)} if high is not None else {})}


def probe_shapes(m):
    """Candidate single-input specs read off the first probe-able layers of the built module, then generic ones."""
    nn, out = torch.nn, []
    for sub in list(m.modules())[:200]:
        if len(out) >= 6:
            break
        if isinstance(sub, (nn.Conv1d, nn.ConvTranspose1d)):
            out += [spec([2, sub.in_channels, 64]), spec([2, sub.in_channels, 32])]
        elif isinstance(sub, (nn.Conv2d, nn.ConvTranspose2d)):
            c = sub.in_channels
            out += [spec([2, c, 32, 32]), spec([2, c, 64, 64]), spec([2, c, 224, 224])]
        elif isinstance(sub, (nn.Conv3d, nn.ConvTranspose3d)):
            out += [spec([2, sub.in_channels, 8, 16, 16]), spec([2, sub.in_channels, 16, 32, 32])]
        elif isinstance(sub, nn.Linear):
            # the 4-d one is (batch, windows, tokens, features), as window/partition attention takes it
            out += [spec([2, sub.in_features]), spec([2, 8, sub.in_features]), spec([2, 2, 16, sub.in_features])]
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
    """One spec per required positional forward argument; masks get 0/1 integer tokens.

    An argument annotated `List[Tensor]` (detection heads over feature levels) gets a `list` spec: as many tensors
    as the constructor's list arguments are long (one per level). An unannotated single argument gets list specs
    after the plain ones, for heads written without annotations."""
    try:
        params = list(inspect.signature(m.forward).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is inspect.Parameter.empty]
    n = max(len(positional), 1 if any(p.kind == p.VAR_POSITIONAL for p in params) else 0)
    if n == 0:
        return [[]]
    levels = next((len(v) for v in kwargs.values() if isinstance(v, list) and v), 2)
    shapes, out = probe_shapes(m), []
    anns = [ann_text(p.annotation) for p in positional]
    if "int" in anns:
        # Window partitions: `x` of (batch, windows, window area, channels) with every int argument INT_INPUT.
        shapes = [spec([2, INT_INPUT ** 2, INT_INPUT ** 2, 8])] + shapes
    for s in shapes:
        args = []
        for p in (positional or [None])[:n]:
            ann = ann_text(p.annotation) if p is not None else ""
            if ann == "int":
                args.append({"shape": [], "dtype": "int64", "value": INT_INPUT})
            elif re.match(r"(Dict|Mapping|dict)\[str, Tensor\]", ann):
                # Feature maps by name (FeaturePyramidNetwork): one per level, keyed "0", "1"... as torchvision's
                # IntermediateLayerGetter names them.
                args.append({**s, "keys": [str(i) for i in range(levels)]})
            elif p is not None and "mask" in p.name:
                args.append(spec(s["shape"][:2], "int64", 2))
            elif re.match(r"(List|Sequence|list)\[Tensor\]", ann):
                # `images: List[Tensor]` (detection models) are separate [C, H, W] images; other lists are levels.
                images = p.name in IMAGE_LIST_NAMES and len(s["shape"]) == 4
                args.append({**s, "shape": s["shape"][1:], "list": 2} if images else {**s, "list": levels})
            else:
                args.append(s)
        out.append(args)
    if len(positional) == 1 and not ann_text(positional[0].annotation):
        out += [[{**s, "list": levels}] for s in shapes[:2]]
    if n == 1 and says_uint8(m):
        # Image transforms that only take uint8 images (RandAugment, RandomPosterize, RandomEqualize...).
        out += [[spec([2, 3, 32, 32], "uint8", 256)], [spec([3, 32, 32], "uint8", 256)]]
    return out


IMAGE_LIST_NAMES = {"images", "imgs", "image_list", "img_list"}
# The value of an `int` forward argument (a window or partition size): small, and a divisor of the probe sizes.
INT_INPUT = 2


def says_uint8(m):
    """Whether the block's module mentions `uint8`: the code says its images may (or must) be integers."""
    try:
        return "uint8" in inspect.getsource(sys.modules[type(m).__module__])
    except (TypeError, OSError, KeyError):
        return False
