# The recipe search: build candidates x input candidates, in the documented order (docs/validate.md, "Recipes"),
# until one builds, runs forward *and* back-propagates; that candidate is the recipe, so every published recipe
# replays whole. Candidates the corpus suggests (its builders, its construction sites) may be big: in a first round
# each of their attempts runs under a short time share and a slow one is set aside, so the smaller configurations
# inference guesses get their turn; a second round comes back to the set-aside ones only when nothing passed.
# A block only a bigger model builds comes last: as the part of a model another builder of its source makes
# (part.py). The time shares are shares.py's; the figures of builder configurations canonical.py's.
import copy, math
from typing import NamedTuple, Optional

import torch

from . import flops, infer, inputs, part, repair
from .canonical import without_init
from .classify import classify, is_memory
from .containment import VIOLATIONS, Violation
from .measure import count
from .replay import backward, build, forward
from .shares import (FIRST_ROUND_S, GUIDED_ATTEMPT_S, GUIDED_SHARE, INFERENCE_BUILD_SHARE, PART_SHARE, PART_SIZING_SHARE,
                     SECOND_ROUND_SHARE, OverBudget, budgeted, monotonic, perf_counter)
from .twins import fresh_copies, meta_twin, plain_state, refusal, restore_plain

# Forward attempts per candidate origin (overrides and inference keep the historical budget of 40); parts: up to
# part.MAX_PARTS models, each with its probes and larger inputs (GROWN).
ATTEMPTS = {"override": 40, "builder": 12, "usage": 12, "inference": 40, "instance": 24, "part": 24}
# Repaired inputs (repair.py) one candidate runs, at most.
MAX_REPAIRED_RUNS = 12
# Seconds of inference forwards that raised, after which inference stops guessing: a forward that fails deep inside
# (RAFT's UpdateBlock runs its motion encoder before its parts disagree) would otherwise spend its 40 attempts at
# a fifth of a second each. Forwards that fail at their first layer take milliseconds and never add up to this.
INFERENCE_FAILING_S = 2.0
# Input candidates tried per suggested candidate: its configuration is the point, not the probing.
SPECS_PER_SUGGESTION = 4
# Parameters above which a construction site's configuration waits for the second round (builders don't: their
# configuration is the point, and the forward-time rule above catches the slow ones).
USAGE_PARAMS_FIRST_ROUND = 10_000_000
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
    inference: builders no probe fed, at larger inputs (GROWN), then the part candidates, smallest model first, then
    the instance candidates (the block built with other blocks of its source as its modules)."""
    seed, device = job["seed"], job["device"]
    shared_tier = bool(job.get("memoryShared"))
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
        t0 = perf_counter()
        try:
            return True, budgeted(share() if share else None, fn)
        except BaseException as exc:
            failed_with[0] = exc
            over = over or isinstance(exc, OverBudget)
            if first[name] is None or (isinstance(first[name], OverBudget) and not isinstance(exc, OverBudget)):
                first[name] = exc  # a real error says more than a share that ran out
            if isinstance(exc, Violation) or (share is None and classify(exc, name, VIOLATIONS)[0] == "memory"):
                fatal = (name, exc)
            elif shared_tier and is_memory(exc):
                fatal = (name, exc)  # the block runs again alone, under the full limit: nothing more to learn here
            return False, None
        finally:
            spent[name] += (perf_counter() - t0) * 1000

    def try_candidate(cand, first_round, grow=None):
        """Found when the candidate passes; None otherwise (`over` tells whether it ran past its share, or, in the
        first round, looks set to). `grow`: after its probes ("after"), or instead of them ("only"), the inputs of
        GROWN that the candidate on the meta device takes."""
        nonlocal built_any, ran, over
        origin = cand["origin"]
        guided = origin in GUIDED
        cap = FIRST_ROUND_S if first_round else GUIDED_ATTEMPT_S
        share = (lambda: min(cap, (part_until if first_round and origin == "part" else guided_until) - monotonic())) if guided else None
        # An inferred candidate's build is held to INFERENCE_BUILD_SHARE while a smaller guess is left to take the
        # time (`smaller`); its forward and backward are not (the failing forwards of inference have their own limit,
        # INFERENCE_FAILING_S). The last guess builds under the block's own deadline: a constructor that never returns
        # is a timeout, one that hoards memory meets the memory limit, as without the share.
        build_share = share if guided else (lambda: INFERENCE_BUILD_SHARE * timeout_s) if id(cand) in smaller else None
        if st.tried is None:  # the first candidate is the likeliest: published with a failure as the recipe tried
            st.tried = recipe_of(cand, seed, [])
        whole = cand if origin == "part" else None
        make = fresh_copies(lambda: build(cls, cand["kwargs"], seed, device, cand["refs"], cand.get("builder"), cand.get("calls") or (), whole))
        ok, m = attempt("build", make, build_share)
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
        probe = None  # the candidate on the meta device, once a forward of it failed (see refusal)
        if grow == "only":
            probe = meta_twin(copy.deepcopy(m))
        if grow == "only" and probe is None:
            return None
        grown = inputs.grown(specs_list[0]) if grow and specs_list else []
        plain = [] if grow == "only" else specs_list
        # (specs, whether a larger input of GROWN, repairs behind it): a repaired input goes last (repair.py).
        queue = [(x, False, 0) for x in plain] + [(x, True, 0) for x in grown]
        seen = [x for x, _, _ in queue]
        fed = False
        n = -1
        repaired_runs = 0
        while queue:
            specs, large, repairs = queue.pop(0)
            n += 1
            # A repaired input is the candidate's own error read back, not another guess: it spends the candidate's
            # MAX_REPAIRED_RUNS, never the origin's ATTEMPTS, which the next candidates of the origin need (timm's
            # Gemma4Attention passes at its second width, after its first's repaired inputs failed).
            if repairs:
                repaired_runs += 1
                if repaired_runs > MAX_REPAIRED_RUNS:
                    continue
            else:
                tries[origin] += 1
            if fatal or over or tries[origin] > ATTEMPTS[origin]:
                break
            if probe is not None:
                refused = refusal(probe, specs, seed)
                if refused is not None or (large and too_costly(probe, specs)):
                    then_try(queue, seen, specs, large, repairs, refused)
                    continue
            if n > 0:  # fresh module: a failed forward or backward may have changed it (lazy layers, caches)
                ok, m = attempt("build", make, build_share)
                if not ok:
                    break
            if origin == "inference" and failing[0] >= INFERENCE_FAILING_S:
                break
            t0 = monotonic()
            before = plain_state(m) if probe is None else None
            ok, out = attempt("forward", lambda: forward(m, specs, seed, device), share)
            if not ok:
                failing[0] += monotonic() - t0 if origin == "inference" else 0
                then_try(queue, seen, specs, large, repairs, failed_with[0])
                if probe is None:
                    restore_plain(before)
                    probe = meta_twin(m)
                continue
            fed = True
            ran = ran or Found(m, cand, specs, out, None)
            if first_round and guided and monotonic() - t0 >= cap / 2:
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
    too_big = [math.inf]  # the size (int_mass) of the smallest inferred candidate whose build ran over its share

    def first_round(cand, grow=None):
        nonlocal over
        origin = cand["origin"]
        guided = origin in GUIDED
        if guided and set_aside and set_aside[-1][0]["origin"] == origin and not grow:
            set_aside.append((cand, grow))  # bigger than the one that ran over
            return None
        if origin == "inference" and mass[id(cand)] >= too_big[0]:
            return None  # no smaller than a guess whose build ran over: it would too
        until = part_until if origin == "part" else guided_until
        if (guided and monotonic() >= until) or tries[origin] >= ATTEMPTS[origin]:
            return None
        over = False
        found = try_candidate(cand, True, grow)
        if found is None and over and guided:
            set_aside.append((cand, grow))
        elif found is None and over and origin == "inference":
            too_big[0] = min(too_big[0], mass[id(cand)])
        return found

    candidates = infer.build_candidates(cls, overrides, job.get("usage") or [], job.get("moduleSlots") or ())
    guesses = [c for c in candidates if c["origin"] == "inference"]
    mass = {id(c): int_mass(c["kwargs"]) for c in guesses}
    # The inferred candidates after which a smaller guess is still to come: the ones a share holds.
    smaller = {id(c) for i, c in enumerate(guesses) if any(mass[id(d)] < mass[id(c)] for d in guesses[i + 1:])}
    parts = [c for c in candidates if c["origin"] == "part"]
    instances = [c for c in candidates if c["origin"] == "instance"]
    for cand in [c for c in candidates if c["origin"] not in ("part", "instance")]:
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
    # Other blocks of its source as the modules it takes (a `backbone`, a registered `neck`): after the models that
    # hold it, which build it as the corpus does.
    for cand in instances:
        found = None if fatal else first_round(cand)
        if found is not None:
            return passed(st, spent, found)
    # Everything else was tried: the set-aside candidates may use the block's time up to SECOND_ROUND_SHARE.
    guided_until = started + SECOND_ROUND_SHARE * timeout_s
    for cand, grow in set_aside:
        if fatal or monotonic() >= guided_until:
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


def then_try(queue, seen, specs, large, repairs, exc):
    """Puts `specs` repaired as `exc` says (repair.repaired) at the end of `queue`, unless it was tried or queued
    already, or `specs` is the last of MAX_REPAIRS in a row. At the end, not next: an input the candidate's own list
    feeds keeps its turn, so a block that input fed before keeps its recipe (a repaired input may be one a native op
    crashes on: PyG's GraphUNet's node features widened to [2, 3, 32, 3] beside edges between 32 nodes). A repair of
    a repaired input goes first: its chain got one step further (a list of one, then of as many levels as the block
    asserts), and the candidate's MAX_REPAIRED_RUNS would not reach it behind the first repairs of every probe."""
    fixed = repair.repaired(specs, exc) if exc is not None and repairs < repair.MAX_REPAIRS else None
    if fixed is not None and fixed not in seen:
        seen.append(fixed)
        if repairs:
            queue.insert(0, (fixed, large, repairs + 1))
        else:
            queue.append((fixed, large, repairs + 1))


def int_mass(kwargs):
    """The sum of a candidate's integer arguments, in lists too: inference's guesses grow with it (the width ladder)."""
    ints = lambda v: v if type(v) is int else sum(ints(x) for x in v) if isinstance(v, (list, tuple)) else 0
    return sum(ints(v) for v in kwargs.values())


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
