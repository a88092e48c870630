# The replay protocol (docs/validate.md, "Replay protocol"): how a recipe turns into inputs, a built module, a
# forward and a backward pass, and how outputs are summarised. A reader replaying a published recipe does exactly
# this, so every function here is deterministic given the recipe's seed.
import math

import torch

from . import infer


def make_inputs(specs, seed, device):
    """One CPU generator seeded once, drawn in order; a spec with `list: n` draws n tensors of its shape in turn
    and passes them as one list argument."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for s in specs:
        dtype = getattr(torch, s["dtype"])
        draw = (lambda: torch.randn(s["shape"], generator=g, dtype=dtype).to(device)) if dtype.is_floating_point else (
            lambda: torch.randint(0, s.get("high", 2), s["shape"], generator=g, dtype=dtype).to(device))
        out.append([draw() for _ in range(s["list"])] if "list" in s else draw())
    return out


def build(cls, kwargs, seed, device, refs=()):
    """Names in `refs` are dotted names resolved first (relative to `cls`'s module when they start with a dot, so
    fidelity resolves them in the original package); then seed, construct, move, eval."""
    kwargs = infer.resolve_refs(kwargs, refs, cls)
    torch.manual_seed(seed)
    return cls(**kwargs).to(device).eval()


def tensors(value, out=None, depth=0):
    """Tensors of an output in order: tuples, lists and dicts (insertion order)."""
    out = [] if out is None else out
    if depth > 5:
        return out
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            tensors(v, out, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            tensors(v, out, depth + 1)
    return out


def forward(m, specs, seed, device):
    """Eval-mode forward without gradients; the output tensors on the CPU. No tensor out is a failure."""
    with torch.no_grad():
        out = tensors(m(*make_inputs(specs, seed, device)))
    if not out:
        raise TypeError("forward returned no tensor")
    return [t.detach().cpu() for t in out]


def backward(m, specs, seed, device):
    """Training-mode forward, sum of floating outputs, backward; counts parameters with and without a gradient."""
    m.train()
    inputs = make_inputs(specs, seed, device)
    for x in tensors(inputs):
        if x.is_floating_point():
            x.requires_grad_(True)  # so parameter-free blocks still back-propagate to their input
    outs = [t for t in tensors(m(*inputs)) if t.is_floating_point() and t.requires_grad]
    params = [p for p in m.parameters() if p.requires_grad]
    if not outs:
        if params:
            raise RuntimeError("no floating output depends on the parameters")
        return {"withGrad": 0, "without": 0}
    sum(t.float().sum() for t in outs).backward()
    with_grad = [p for p in params if p.grad is not None]
    bad = sum(1 for p in with_grad if not bool(torch.isfinite(p.grad).all()))
    if bad:
        raise FloatingPointError(f"{bad} parameters got non-finite gradients")
    return {"withGrad": len(with_grad), "without": len(params) - len(with_grad)}


def checksum(t):
    """Σ|x| in float64 (a plain sum cancels to noise after normalisation layers); non-finite values as strings."""
    v = float(t.detach().double().abs().sum()) if t.numel() else 0.0
    return v if math.isfinite(v) else str(v)


def output_record(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", ""), "checksum": checksum(t)}
