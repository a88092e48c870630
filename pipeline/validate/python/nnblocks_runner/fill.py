# The initial weights of large tensors (docs/validate.md, "Replay protocol", the fill). Random initialisation was
# most of a production-size model's build: torch's CPU generator draws one value at a time, about 3 ns each on one
# core plus the first touch of the memory, and `uniform_`/`normal_` under `kaiming_uniform_`, `trunc_normal_`,
# `normal_` were 37% of a worker's time on torchvision (VGG's 133 M parameters: 0.8 s per build, and a block is built
# two to four times: its run, a fresh copy, fidelity's original). While a block is built, a CPU float tensor of at
# least FILL_MIN elements that is filled by `uniform_(a, b)` or `normal_(mean, std)` gets its values from a fixed pool
# instead, read from an offset that the seed and the call's number decide, and scaled to the same distribution: 5
# times faster, the same bounds, mean and spread, and a different value in every element of a layer (the pool's
# length is prime, so rows don't repeat). The constructor still runs every line of its own; only the source of its
# random numbers changes. Smaller tensors, other dtypes and devices, an explicit generator, and every draw outside a
# build (dropout, the recipe's inputs) are torch's own, so a block without a large tensor is built exactly as
# `torch.manual_seed(seed)` and its constructor build it. (The fill draws nothing from torch's generator, so in a
# block with one, what torch draws after it differs from a plain build too: deterministic all the same.) The site's
# replay script installs the same fill (src/lib/replay-fill.ts): tested equal, value for value.
import contextlib, math

import torch

FILL_MIN = 1 << 18
POOL = 1_048_573  # prime
POOL_SEED = 0x6E6E62  # "nnb"
_MASK = (1 << 64) - 1

_Tensor, _Parameter = torch.Tensor, torch.nn.Parameter
# Taken when the runner starts, before any block is imported: the fill reads and writes through these, never
# through attributes a block may have replaced.
_uniform, _normal = torch.Tensor.uniform_, torch.Tensor.normal_
_Generator, _rand, _empty, _float32, _float64 = torch.Generator, torch.rand, torch.empty, torch.float32, torch.float64
_numel, _copy, _view, _mul, _add, _narrow, _size, _sqrt = (
    torch.Tensor.numel, torch.Tensor.copy_, torch.Tensor.view, torch.Tensor.mul_, torch.Tensor.add_,
    torch.Tensor.narrow, torch.Tensor.size, torch.Tensor.sqrt)
_is_contiguous = torch.Tensor.is_contiguous
_log1p, _cos, _to = torch.log1p, torch.cos, torch.Tensor.to
_is_grad_enabled, _no_grad = torch.is_grad_enabled, torch.no_grad
_requires_grad_get = (getattr(torch._C, "TensorBase", None) or torch._C._TensorBase).requires_grad.__get__
_device_of, _dtype_of = torch.Tensor.device.__get__, torch.Tensor.dtype.__get__
_FLOATS = {torch.float32, torch.float64, torch.float16, torch.bfloat16}

def _pools():
    """(uniform in [0, 1), standard normal), POOL float32 values each: `torch.rand` from a generator seeded with
    POOL_SEED (one value at a time, the same bits on every CPU), the normals from it by Box-Muller in float64 (torch's
    `randn` has vectorised paths that may round differently from one CPU to another)."""
    g = _Generator().manual_seed(POOL_SEED)
    u = _rand(2 * POOL, generator=g, dtype=_float64)
    u1, u2 = _narrow(u, 0, 0, POOL), _narrow(u, 0, POOL, POOL)
    return _to(u1, _float32), _to(_sqrt(-2 * _log1p(-u1)) * _cos(2 * math.pi * u2), _float32)


# Made at the runner's start, before any block is imported (so no block's patch reaches them); forked children share
# them.
UNIFORM, NORMAL = _pools()


def offset(seed, k):
    """Where the k-th large fill of a build (0, 1, ...) starts reading the pool: splitmix64 of the seed and k."""
    x = (seed * 0x9E3779B97F4A7C15 + (k + 1) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return (x ^ (x >> 31)) % POOL


def tiled(out, pool, start):
    """`out` (flat float32) filled with the pool's values read from `start`, wrapping round."""
    n, i = _numel(out), 0
    while i < n:
        k = min(POOL - start, n - i)
        _copy(_narrow(out, 0, i, k), _narrow(pool, 0, start, k))
        i, start = i + k, 0
    return out


class Fill:
    """Installs the fill on `torch.Tensor` for one build (`with Fill(seed):`), numbering its large fills from 0."""

    def __init__(self, seed):
        self.seed, self.calls, self.saved = int(seed), 0, None

    def takes(self, t, generator):
        """Whether the fill makes `t`'s values: the rest is torch's own draw."""
        return (generator is None and type(t) in (_Tensor, _Parameter) and _device_of(t).type == "cpu"
                and _dtype_of(t) in _FLOATS and _numel(t) >= FILL_MIN
                and not (_requires_grad_get(t) and _is_grad_enabled()))  # torch's own error for a leaf in grad mode

    def put(self, t, pool, scale, shift):
        start = offset(self.seed, self.calls)
        self.calls += 1
        with _no_grad():
            # In place where it can be (a contiguous float32 tensor, as nearly every weight is): a second buffer
            # the size of the weight costs as much again in page faults as the fill itself.
            direct = _dtype_of(t) == _float32 and _is_contiguous(t)
            values = tiled(_view(t, -1) if direct else _empty(_numel(t), dtype=_float32), pool, start)
            _add(_mul(values, scale), shift)
            if not direct:
                _copy(t, _view(values, _size(t)))
        return t

    def __enter__(self):
        fill = self

        def uniform_(t, *args, **kwargs):
            a, b, generator = _args(args, kwargs, ("from", "to"), (0.0, 1.0))
            if a is None or not fill.takes(t, generator):
                return _uniform(t, *args, **kwargs)
            return fill.put(t, UNIFORM, float(b) - float(a), float(a))

        def normal_(t, *args, **kwargs):
            mean, std, generator = _args(args, kwargs, ("mean", "std"), (0.0, 1.0))
            if mean is None or not fill.takes(t, generator):
                return _normal(t, *args, **kwargs)
            return fill.put(t, NORMAL, float(std), float(mean))

        self.saved = (_Tensor.__dict__.get("uniform_"), _Tensor.__dict__.get("normal_"))
        _Tensor.uniform_, _Tensor.normal_ = uniform_, normal_
        return self

    def __exit__(self, *exc):
        for name, was in zip(("uniform_", "normal_"), self.saved):
            if was is None:
                with contextlib.suppress(AttributeError):
                    delattr(_Tensor, name)
            else:
                setattr(_Tensor, name, was)
        return False


def _args(args, kwargs, names, defaults):
    """(first, second, generator) of a `uniform_(from, to)` / `normal_(mean, std)` call; (None, None, None) for a
    call the fill does not read (more arguments, other names, a value that is not a finite number): torch's own."""
    given = dict(zip(names, args))
    if len(args) > 2 or set(kwargs) - {*names, "generator"} or set(kwargs) & set(given):
        return None, None, None
    values = [given.get(n, kwargs.get(n, d)) for n, d in zip(names, defaults)]
    if not all(type(v) in (int, float) and math.isfinite(v) for v in values):
        return None, None, None
    return values[0], values[1], kwargs.get("generator")
