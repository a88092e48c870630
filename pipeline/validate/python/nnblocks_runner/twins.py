# A search attempt's modules (search.py): a fresh module for each input candidate, copied from a pristine build
# rather than rebuilt, and, once a forward failed, the same module moved to torch's meta device, where the next input
# candidates are checked in milliseconds before any of them runs for real.
import copy

import torch

from .containment import Violation
from .measure import no_grad
from .replay import _DTYPES, arranged, make_inputs

# Taken before any block is imported (see measure.py): each copy must meet the RNG state a fresh build would.
_get_rng, _set_rng, _deepcopy, _empty = torch.get_rng_state, torch.set_rng_state, copy.deepcopy, torch.empty


def fresh_copies(make):
    """A function giving a fresh module each call. Most candidates need one module (the first input fits, or the
    candidate is set aside): that is a plain build. The second call builds again and keeps a pristine deep copy of
    that build, with the global RNG state the build left behind; later calls deep-copy it and restore that state,
    so each copy meets dropout exactly as a fresh build would (a production-size model initialises in about a
    second and copies in a tenth of that). A module deepcopy refuses (locks, generators) is rebuilt each time."""
    calls, pristine = [0], []

    def rng_state():
        return _get_rng(), (torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None)

    def restore(state):
        _set_rng(state[0])
        if state[1] is not None:
            torch.cuda.set_rng_state_all(state[1])

    def get():
        calls[0] += 1
        if calls[0] == 1:
            return make()
        if pristine:
            m, state = pristine[0]
            if m is None:
                return make()
            restore(state)
            return _deepcopy(m)
        m = make()
        state = rng_state()
        try:
            pristine.append((_deepcopy(m), state))
        except Exception:
            pristine.append((None, None))
        restore(state)
        return m

    return get


_PLAIN = (int, float, bool, str, tuple, type(None))
_Lazy = torch.nn.modules.lazy.LazyModuleMixin


def plain_state(m):
    """The plain attributes (numbers, strings, tuples, None) of every submodule of `m`, taken before a forward: a
    forward, real or on the meta device, may reset some on its way, failing or not. Hugging Face's `SwinLayer`
    shrinks its `window_size` to an input smaller than the window: checked at 32 pixels, its meta twin then refused
    the 224 pixels the model is built for, which a fresh module passes. None when the modules can't be walked."""
    try:
        subs = list(m.modules())
        # A lazy module's forward materialises its parameters and sets what they imply (`num_features`), and may
        # change its class: put back, the numbers would contradict the parameters. Such a module is left as it is.
        if any(isinstance(sub, _Lazy) for sub in subs):
            return None
        return [(sub, {k: v for k, v in vars(sub).items() if isinstance(v, _PLAIN)}) for sub in subs]
    except Exception:
        return None


def restore_plain(state):
    """Puts back what plain_state took, where a forward changed it, before the module becomes a meta twin."""
    for sub, attrs in state or ():
        now = vars(sub)
        for k, v in attrs.items():
            if now.get(k, v) is not v or k not in now:
                try:
                    object.__setattr__(sub, k, v)
                except Exception:
                    pass


def meta_twin(m):
    """`m` moved to torch's meta device, or None when it won't move. Only for a module whose forward failed: it is
    dropped anyway (the next input gets a fresh module), so it becomes the probe the next inputs are checked on."""
    try:
        return m.to("meta")
    except Exception:
        return None


def refusal(probe, specs, seed):
    """The error with which the meta-device `probe` rejects input `specs` for a reason of the block's own (a shape or
    type error), or None. Shapes propagate on the meta device without arithmetic, so the check takes milliseconds
    where a real forward of a production-size model takes seconds, and the rebuild before it more (MViT's builders
    at eight video shapes). An error that only says the meta device can't tell (no meta kernel, `.item()` of a meta
    tensor) is no refusal: the real forward runs. A refused escape is left to the real forward, which treats it as
    fatal. The probe's plain attributes are put back after each check (plain_state): a check it refused may have
    reset them, as a real forward may."""
    before = plain_state(probe)
    try:
        with no_grad():
            probe(*meta_inputs(specs, seed))
    except Violation:
        return None
    except NotImplementedError:
        return None
    except Exception as exc:
        return None if "meta" in str(exc).lower() else exc
    finally:
        restore_plain(before)
    return None


def meta_inputs(specs, seed):
    """The arguments make_inputs gives for `specs`, on the meta device and without drawing them: a probe reads only
    shapes and dtypes, and drawing a large input on the CPU to move it to meta and drop its values was 6% of the
    children's time in a paper-corpus sample. A literal or a boxes spec is made as make_inputs makes it."""
    out = []
    for s in specs:
        if "value" in s or "boxes" in s:
            out += make_inputs([s], seed, "meta")
            continue
        dtype = _DTYPES.get(s["dtype"]) or getattr(torch, s["dtype"])
        out.append(arranged(s, lambda shape: _empty(shape, dtype=dtype, device="meta")))
    return out
