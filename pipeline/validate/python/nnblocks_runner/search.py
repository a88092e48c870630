# The recipe search: build candidates x input candidates, in the documented order (docs/validate.md, "Recipes"),
# until one builds, runs forward *and* back-propagates; that candidate is the recipe, so every published recipe
# replays whole. Candidates the corpus suggests (its builders, its construction sites) may be big: in a first round
# each of their attempts runs under a short time share and a slow one is set aside, so the smaller configurations
# inference guesses get their turn; a second round comes back to the set-aside ones only when nothing passed.
# A block only a bigger model builds comes last: as the part of a model another builder of its source makes
# (part.py). Also: the parameter counts, output shapes and MACs of builder configurations.
import contextlib, copy, gc, math, signal, time
from typing import NamedTuple, Optional

import torch

from . import flops, infer, inputs, part
from .classify import classify
from .containment import VIOLATIONS, Violation
from .measure import count, tensors
from .replay import backward, build, forward
from .twins import fresh_copies, meta_twin, refuses

# Forward attempts per candidate origin (overrides and inference keep the historical budget of 40); parts: up to
# part.MAX_PARTS models, each with its probes and larger inputs (GROWN).
ATTEMPTS = {"override": 40, "builder": 12, "usage": 12, "inference": 40, "part": 24}
# Seconds of inference forwards that raised, after which inference stops guessing: a forward that fails deep inside
# (RAFT's UpdateBlock runs its motion encoder before its parts disagree) would otherwise spend its 40 attempts at
# a fifth of a second each. Forwards that fail at their first layer take milliseconds and never add up to this.
INFERENCE_FAILING_S = 2.0
# Input candidates tried per suggested candidate: its configuration is the point, not the probing.
SPECS_PER_SUGGESTION = 4
GUIDED_SHARE = 0.45  # of the block's time, for builder and usage candidates together
GUIDED_ATTEMPT_S = 15.0  # at most, per build, forward or backward of a builder or usage candidate
FIRST_ROUND_S = 5.0  # the same, in the first round (see `search`)
# Parameters above which a construction site's configuration waits for the second round (builders don't: their
# configuration is the point, and the forward-time rule above catches the slow ones).
USAGE_PARAMS_FIRST_ROUND = 10_000_000
SECOND_ROUND_SHARE = 0.75  # of the block's time, up to which the second round may run (the rest: fidelity, records)
# Part candidates come after everything else of the first round and may run up to this share of the block's time
# (a detector's parts wait for its backbone); sizing their models first takes at most PART_SIZING_SHARE.
PART_SHARE = 0.6
PART_SIZING_SHARE = 0.1
# Builder candidates whose forward failed at every probe are tried again, after inference, at the larger inputs of
# GROWN (inputs.grown); at most this many.
MAX_REGROWN = 2
# MACs of a builder's model at a larger input beyond which that input is not run (counted on its meta-device twin,
# torch >= 2.1): a forward and a backward of more could not fit a share (MViT at 16 x 224 x 224: 64 G, where S3D's
# 11 G passes in about 7 s on this machine kind).
GROWN_MACS_MAX = 20_000_000_000
# Without a counter (torch < 2.1), elements of a larger input beyond which it is not run: 16 x 112 x 112 frames are
# 0.6 M, 224 x 224 images 0.15 M; MViT's and S3D's 16 x 224 x 224 (2.4 M) never fit a share on torch 1.13's CPU.
GROWN_ELEMENTS_UNCOUNTED = 1_000_000
GUIDED = ("builder", "usage", "part")  # origins whose candidates the corpus suggests: time-shared, set aside when slow
CANONICAL_SHARE = 0.2  # of the block's time, for counting builder configurations
CANONICAL_BUILD_S = 5.0  # at most, per builder configuration counted
MAX_CANONICAL = 8
# At most, per builder configuration, for its MACs (flops.py): a counted meta-device forward takes 1.5 to 3 times a
# plain one, 0.03 s (resnet18) to 0.7 s (efficientnet_b7) for torchvision's classifiers on a quiet core. A model
# slower than this gets no figure.
CANONICAL_MACS_S = 1.0


class OverBudget(BaseException):
    """A suggested candidate ran past its time share. A BaseException, so upstream `except Exception` can't eat it."""


def budgeted(seconds, fn):
    """`fn()`, interrupted by OverBudget after `seconds` (None: no share, the block's own deadline applies).
    Python runs the handler between bytecodes: a long C++ op finishes first, then the attempt stops."""
    if seconds is None:
        return fn()
    if seconds <= 0:
        raise OverBudget("no time left in its share")

    def ring(signum, frame):
        raise OverBudget(f"over its {seconds:.1f} s share of the block's time")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class Found(NamedTuple):
    module: torch.nn.Module
    candidate: dict  # infer.candidate: kwargs, refs, origin, builder
    specs: list
    outputs: list
    gradients: Optional[dict]  # None: forward ran, no backward did


def recipe_of(cand, seed, specs):
    """The recipe record of a candidate and its input specs (the replay protocol's fields). A part's inputs are its
    parent's; `path` is where the part sits in the model `builder` (of `builderModule`) makes."""
    return {"seed": seed, "kwargs": cand["kwargs"], **({"refs": cand["refs"]} if cand["refs"] else {}),
            **({"calls": cand["calls"]} if cand.get("calls") else {}),
            **({"builder": cand["builder"]} if cand.get("builder") else {}),
            **({"builderModule": cand["builderModule"], "path": cand["path"]} if cand.get("path") else {}),
            "origin": cand["origin"], "inputs": specs}


# Random fills a count never reads: skipped while builder configurations are counted (vgg16's 138 M parameters take
# a second to initialise and nothing to allocate). Only the count comes out of these builds.
INIT_TENSOR_METHODS = ("normal_", "uniform_", "random_", "exponential_", "geometric_", "log_normal_", "cauchy_",
                       "bernoulli_", "erfinv_")


@contextlib.contextmanager
def without_init():
    """Makes torch.nn.init's fills and the Tensor random fills no-ops for the duration; restores them after."""
    init_names = [n for n in dir(torch.nn.init) if n.endswith("_") and not n.startswith("_")]
    saved = [(torch.nn.init, n, getattr(torch.nn.init, n)) for n in init_names]
    saved += [(torch.Tensor, n, getattr(torch.Tensor, n)) for n in INIT_TENSOR_METHODS if hasattr(torch.Tensor, n)]

    def keep(t, *args, **kwargs):
        return t

    try:
        for owner, name, _ in saved:
            setattr(owner, name, keep)
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def canonical(cls, builders, seed, deadline, usage_inputs=()):
    """Parameter counts of the block at its source's builder configurations (`resnet50`: 25,557,032), each built
    fresh within a short share, without random initialisation, and dropped; with the output shapes at a default
    input where one runs (default_output). A builder that fails, runs long or builds another class is left out:
    these are figures about this block, labelled with the builder's name.

    Then, while the share lasts, the MACs of each configuration that has shapes, at the same input (canonical_macs),
    on the meta-device module kept for it (no storage: moving to meta freed its parameters). A second pass, so that
    counting costs no configuration its count or shapes on a slow machine: they are exactly what they were without."""
    out, kept = [], []
    for c in builders[:MAX_CANONICAL]:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            with without_init():
                m = budgeted(min(CANONICAL_BUILD_S, left), lambda: build(cls, c["kwargs"], seed, "cpu", c["refs"], c["builder"]))
            fig = {"builder": c["builder"], "params": count(m, "_parameters")}
            m, shapes = budgeted(min(CANONICAL_BUILD_S, max(deadline - time.monotonic(), 0.5)), lambda: default_output(m, usage_inputs))
            if shapes:
                fig.update(shapes)
                kept.append((fig, m))
            out.append(fig)
        except BaseException:
            pass
        m = None
        gc.collect()
    for fig, m in kept:
        n = canonical_macs(m, fig["input"], deadline)
        if n is not None:
            fig["macs"] = n
    return out


def canonical_macs(m, shape, deadline):
    """MACs of meta-device `m` at the input its output shapes were taken at (flops.macs), or None: no counter (torch
    < 2.1), no time left in the canonical share, slower than CANONICAL_MACS_S, or any error."""
    seconds = min(CANONICAL_MACS_S, deadline - time.monotonic())
    if not flops.AVAILABLE or seconds <= 0:
        return None
    try:
        return budgeted(seconds, lambda: flops.macs(m, shape))
    except BaseException:
        return None


# Inputs a builder's model is first tried at for its output shapes: an image classifier's 224 pixels, Inception's 299,
# a video model's 16 frames of 112 pixels. The corpus's own literal inputs (`model(torch.randn(1, 3, 640, 640))`)
# come first.
DEFAULT_INPUTS = ([1, 3, 224, 224], [1, 3, 299, 299], [1, 3, 16, 112, 112])
MAX_OUTPUTS = 8


def default_output(m, usage_inputs):
    """(`m` on the meta device, {"input", "outputs"} or None): the output shapes of `m` at the first default input it
    takes. Computed on torch's meta device, which propagates shapes without arithmetic (a ResNet-50 at 224 pixels in
    milliseconds, where this CPU would take seconds); a model whose forward needs real values (a detector's NMS) gets
    none. The moved module comes back for the MACs at the same input."""
    m = m.to("meta").eval()
    tried = [u[0]["shape"] for u in usage_inputs if len(u) == 1 and set(u[0]) == {"shape", "dtype"}]
    for shape in [*tried, *DEFAULT_INPUTS]:
        try:
            with torch.no_grad():
                outs = tensors(m(torch.empty(shape, device="meta")))
        except Exception:
            continue
        if outs:
            return m, {"input": list(shape), "outputs": [[int(n) for n in t.shape] for t in outs[:MAX_OUTPUTS]]}
    return m, None


def search(cls, job, st, started):
    """The first candidate and input that pass build, forward and backward (`Found` with gradients); else the
    `Failure` of the furthest stage reached, with the first forward that ran (`Found` without gradients) when one
    did. Times are summed over attempts; the first error of each stage is kept (the first candidate is the likeliest).
    A refused escape stops the search; so does memory exhaustion while inferring (more guesses would repeat it).

    Two rounds: in the first, a suggested candidate's build, forward or backward gets at most FIRST_ROUND_S; one that
    runs over, or whose forward alone took half of that, is set aside (with the suggested candidates of its origin
    after it: they are bigger), and the rest of the order gets its turn. Only when nothing passed does the second
    round try the set-aside ones, under the full share. A production-size model then costs seconds only when it is
    the one way the block builds (VGG's `features`, a detector's `backbone`). At the end of the first round, after
    inference: builders no probe fed, at larger inputs (GROWN), then the part candidates, smallest model first."""
    seed, device = job["seed"], job["device"]
    overrides, usage_inputs = job.get("overrides") or {}, job.get("usageInputs") or []
    timeout_s = job["timeoutMs"] / 1000
    guided_until = started + GUIDED_SHARE * timeout_s
    part_until = started + PART_SHARE * timeout_s
    spent = {"build": 0.0, "forward": 0.0, "backward": 0.0}
    first = {"build": None, "forward": None, "backward": None}
    fatal, tries, built_any, ran, over = None, {k: 0 for k in ATTEMPTS}, False, None, False
    failing = [0.0]  # seconds of inference forwards that raised
    unfed = []  # builder candidates that built but whose every probe failed (see MAX_REGROWN)
    failed_with = [None]  # the exception of the last attempt that failed
    part_backward = set()  # the backward errors of parts that ran forward, as text

    def attempt(name, fn, share):
        nonlocal fatal, over
        st.begin(name)
        t0 = time.perf_counter()
        try:
            return True, budgeted(share() if share else None, fn)
        except BaseException as exc:
            failed_with[0] = exc
            over = over or isinstance(exc, OverBudget)
            if first[name] is None or (isinstance(first[name], OverBudget) and not isinstance(exc, OverBudget)):
                first[name] = exc  # a real error says more than a share that ran out
            if isinstance(exc, Violation) or (share is None and classify(exc, name, VIOLATIONS)[0] == "memory"):
                fatal = (name, exc)
            return False, None
        finally:
            spent[name] += (time.perf_counter() - t0) * 1000

    def try_candidate(cand, first_round, grow=None):
        """Found when the candidate passes; None otherwise (`over` tells whether it ran past its share, or, in the
        first round, looks set to). `grow`: after its probes ("after"), or instead of them ("only"), the inputs of
        GROWN that the candidate on the meta device takes."""
        nonlocal built_any, ran, over
        origin = cand["origin"]
        guided = origin in GUIDED
        cap = FIRST_ROUND_S if first_round else GUIDED_ATTEMPT_S
        share = (lambda: min(cap, (part_until if first_round and origin == "part" else guided_until) - time.monotonic())) if guided else None
        if st.tried is None:  # the first candidate is the likeliest: published with a failure as the recipe tried
            st.tried = recipe_of(cand, seed, [])
        whole = cand if origin == "part" else None
        make = fresh_copies(lambda: build(cls, cand["kwargs"], seed, device, cand["refs"], cand.get("builder"), cand.get("calls") or (), whole))
        ok, m = attempt("build", make, share)
        if not ok:
            return None
        built_any = True
        if whole is not None:
            cand["path"] = m.path  # the first part of the block's class: every later build takes the same one
        if first_round and origin == "usage" and count(m, "_parameters") > USAGE_PARAMS_FIRST_ROUND:
            over = True  # a production-width site (`FastRCNNConvFCHead((256, 7, 7), [256] * 4, [1024])`): later
            return None
        fed_by = usage_inputs if whole is None else ()  # a part's parent has its own inputs
        ok, specs_list = attempt("forward", lambda: inputs.input_candidates(part.feeder(m), overrides, cand["kwargs"], fed_by), share)
        specs_list = [part.one_image(x) if whole else x for x in specs_list or []][: SPECS_PER_SUGGESTION if guided else None]
        if not (st.tried and st.tried["inputs"]) and specs_list:
            st.tried = recipe_of(cand, seed, specs_list[0])
        probe = None  # the candidate on the meta device, once a forward of it failed (see refuses)
        if grow == "only":
            probe = meta_twin(copy.deepcopy(m))
        if grow == "only" and probe is None:
            return None
        grown = inputs.grown(specs_list[0]) if grow and specs_list else []
        plain = [] if grow == "only" else specs_list
        fed = False
        for n, specs in enumerate(plain + grown):
            tries[origin] += 1
            if fatal or over or tries[origin] > ATTEMPTS[origin]:
                break
            if probe is not None and (refuses(probe, specs, seed) or (n >= len(plain) and too_costly(probe, specs))):
                continue
            if n > 0:  # fresh module: a failed forward or backward may have changed it (lazy layers, caches)
                ok, m = attempt("build", make, share)
                if not ok:
                    break
            if origin == "inference" and failing[0] >= INFERENCE_FAILING_S:
                break
            t0 = time.monotonic()
            ok, out = attempt("forward", lambda: forward(m, specs, seed, device), share)
            if not ok:
                failing[0] += time.monotonic() - t0 if origin == "inference" else 0
                if probe is None:
                    probe = meta_twin(m)
                continue
            fed = True
            ran = ran or Found(m, cand, specs, out, None)
            if first_round and guided and time.monotonic() - t0 >= cap / 2:
                over = True  # a backward takes about twice the forward: it would run over, so set it aside now
                break
            ok, grads = attempt("backward", lambda: backward(m, specs, seed, device), share)
            if ok:
                return Found(m, cand, specs, out, grads)
            if whole is not None and not over:
                # The part ran forward and its own backward failed twice the same way, in both modes (a
                # RegionProposalNetwork in training wants targets): another input or model feeding it won't change
                # that. Once is not enough: RAFT's UpdateBlock gets non-finite gradients at 64 pixels, not at 224.
                why = f"{type(failed_with[0]).__name__}: {failed_with[0]}"[:200]
                if why in part_backward:
                    parts.clear()
                    break
                part_backward.add(why)
        if origin == "builder" and not grow and not fed and not over and probe is not None:
            unfed.append(cand)
        return None

    set_aside = []  # (candidate, grow) pairs for the second round

    def first_round(cand, grow=None):
        nonlocal over
        origin = cand["origin"]
        guided = origin in GUIDED
        if guided and set_aside and set_aside[-1][0]["origin"] == origin and not grow:
            set_aside.append((cand, grow))  # bigger than the one that ran over
            return None
        until = part_until if origin == "part" else guided_until
        if (guided and time.monotonic() >= until) or tries[origin] >= ATTEMPTS[origin]:
            return None
        over = False
        found = try_candidate(cand, True, grow)
        if found is None and over and guided:
            set_aside.append((cand, grow))
        return found

    candidates = infer.build_candidates(cls, overrides, job.get("usage") or [])
    parts = [c for c in candidates if c["origin"] == "part"]
    for cand in [c for c in candidates if c["origin"] != "part"]:
        found = None if fatal else first_round(cand)
        if found is not None:
            return passed(st, spent, found)
    # Builders no probe fed, once more at larger inputs (S3D's final 7 x 7 pooling wants 224 pixels, 16 frames).
    tries["builder"] = 0
    for cand in unfed[:MAX_REGROWN]:
        found = None if fatal else first_round(cand, grow="only")
        if found is not None:
            return passed(st, spent, found)
    if parts and not fatal:
        size = lambda c: build(cls, c["kwargs"], seed, "cpu", (), c["builder"], (), c)
        parts[:] = part.smallest_first(cls, parts, size, without_init, budgeted, PART_SIZING_SHARE * timeout_s)
    for cand in list(parts):
        if not parts:  # a part's own backward failed (try_candidate): the rest would fail the same way
            break
        found = None if fatal else first_round(cand, grow="after")
        if found is not None:
            return passed(st, spent, found)
    # Everything else was tried: the set-aside candidates may use the block's time up to SECOND_ROUND_SHARE.
    guided_until = started + SECOND_ROUND_SHARE * timeout_s
    for cand, grow in set_aside:
        if fatal or time.monotonic() >= guided_until:
            break
        over = False
        tries[cand["origin"]] = 0
        found = try_candidate(cand, False, grow)
        if found is not None:
            return passed(st, spent, found)
    if ran is not None:  # something ran forward; nothing back-propagated
        st.passed("build", spent["build"])
        st.passed("forward", spent["forward"])
        why = fatal[1] if fatal and fatal[0] == "backward" else first["backward"]
        return ran, st.failed("backward", spent["backward"], why or RuntimeError("no backward was tried"))
    if (fatal and fatal[0] == "build") or not built_any:
        why = fatal[1] if fatal else first["build"] or TypeError("no constructor arguments could be inferred")
        return None, st.failed("build", spent["build"], why)
    st.passed("build", spent["build"])
    why = fatal[1] if fatal else first["forward"] or RuntimeError("no input candidate was tried")
    return None, st.failed("forward", spent["forward"], why)


def too_costly(probe, specs):
    """Whether one plain input `specs` would cost the meta-device model `probe` more than GROWN_MACS_MAX. Where it
    can't be counted (torch < 2.1), whether it is larger than GROWN_ELEMENTS_UNCOUNTED; no for a part, several
    inputs, an error."""
    if isinstance(probe, part.Part) or len(specs) != 1 or set(specs[0]) != {"shape", "dtype"}:
        return False
    if not flops.AVAILABLE:
        return math.prod(specs[0]["shape"]) > GROWN_ELEMENTS_UNCOUNTED
    try:
        n = flops.macs(probe, specs[0]["shape"])
    except Exception:
        return False
    return n is not None and n > GROWN_MACS_MAX


def passed(st, spent, found):
    st.passed("build", spent["build"])
    st.passed("forward", spent["forward"])
    st.passed("backward", spent["backward"])
    return found, None
