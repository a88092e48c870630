# One block's stages inside the forked child: parse, compile, import, build, forward, backward, then fidelity.
# A stage's failure is a value (`Failure`) that the caller returns, never an exception thrown out of the stage
# bookkeeping, so the order of events reads top to bottom in `run_block`.
import ast, gc, importlib, os, resource, sys, time
from typing import NamedTuple, Optional

import torch

from . import infer
from .classify import NO_CORPUS, Corpus, classify, native_statement, with_absent_imports
from .containment import VIOLATIONS, Blocker, Violation
from .measure import count, module_tree, output_record
from .protocol import error_text, trim
from .replay import backward, build, forward


class Failure(NamedTuple):
    cls: str
    detail: Optional[str]


class Stages:
    """Stage records, each sent as it begins and ends, so a child that dies mid-way still leaves a trail."""

    def __init__(self, send, corpus=NO_CORPUS):
        self.tried = None  # the first build candidate (and its first inputs): the recipe tried, for a failure
        self.send, self.items, self.corpus = send, [], corpus
        self.source = None  # (tree, path) of the block's file once parsed: which import statement failed

    def begin(self, name):
        self.send({"t": "begin", "stage": name})

    def passed(self, name, ms):
        self._record({"stage": name, "status": "passed", "ms": round(ms, 3)})

    def failed(self, name, ms, exc):
        """Records the stage as failed with the exception's text and returns its failure class."""
        self._record({"stage": name, "status": "failed", "ms": round(ms, 3), "error": error_text(exc)})
        if self.source is not None:
            exc = native_statement(exc, *self.source, self.corpus)
        return Failure(*classify(exc, name, VIOLATIONS, self.corpus))

    def run(self, name, fn):
        """(value, None) when `fn` returns, (None, Failure) when it raises anything, SystemExit included."""
        self.begin(name)
        t0 = time.perf_counter()
        try:
            value = fn()
        except BaseException as exc:
            return None, self.failed(name, (time.perf_counter() - t0) * 1000, exc)
        self.passed(name, (time.perf_counter() - t0) * 1000)
        return value, None

    def _record(self, rec):
        self.items.append(rec)
        self.send({"t": "stage", **rec})


def recipe_of(cand, seed, specs):
    """The recipe record of a candidate and its input specs (the replay protocol's fields)."""
    return {"seed": seed, "kwargs": cand["kwargs"], **({"refs": cand["refs"]} if cand["refs"] else {}),
            **({"builder": cand["builder"]} if cand.get("builder") else {}), "origin": cand["origin"], "inputs": specs}


def built_any_inputs(st):
    return st.tried is not None and bool(st.tried["inputs"])


class Found(NamedTuple):
    module: torch.nn.Module
    candidate: dict  # infer.candidate: kwargs, refs, origin, builder
    specs: list
    outputs: list


MAX_ATTEMPTS = 40
DETAIL_MAX = 1000  # characters of a failure detail (a module name, an unresolved name, a violation)  # forward attempts per block, over all build candidates


def search(cls, overrides, usage, seed, device, st):
    """Build candidates x input candidates in order; the first pair whose forward runs is the recipe (`Found`),
    else the `Failure` of the stage that never passed.

    Every attempt is a fresh build followed by one forward, exactly the replay protocol, so the successful attempt
    *is* the recorded run. Times are summed over attempts; the first error of each stage is kept (the first
    candidate is the likeliest one). Memory exhaustion or a refused escape stops the search: more candidates would
    only repeat it."""
    spent, first = {"build": 0.0, "forward": 0.0}, {"build": None, "forward": None}
    fatal = None  # (stage, exception)
    attempts, built_any = 0, False

    def attempt(name, fn):
        nonlocal fatal
        st.begin(name)
        t0 = time.perf_counter()
        try:
            return True, fn()
        except BaseException as exc:
            first[name] = first[name] or exc
            if isinstance(exc, Violation) or classify(exc, name, VIOLATIONS)[0] == "memory":
                fatal = (name, exc)
            return False, None
        finally:
            spent[name] += (time.perf_counter() - t0) * 1000

    for cand in infer.build_candidates(cls, overrides, usage):
        if fatal or attempts > MAX_ATTEMPTS:  # bounded: a block that fails every probe must not eat its timeout
            break
        if st.tried is None:  # the first candidate is the likeliest: published with a failure as the recipe tried
            st.tried = recipe_of(cand, seed, [])
        make = lambda: build(cls, cand["kwargs"], seed, device, cand["refs"], cand.get("builder"))
        ok, m = attempt("build", make)
        if not ok:
            continue
        built_any = True
        ok, cands = attempt("forward", lambda: infer.input_candidates(m, overrides, cand["kwargs"]))
        if not built_any_inputs(st) and cands:
            st.tried = recipe_of(cand, seed, cands[0])
        for n, specs in enumerate(cands or []):
            attempts += 1
            if fatal or attempts > MAX_ATTEMPTS:
                break
            if n > 0:  # fresh module: a failed forward may have changed it (lazy layers, caches)
                ok, m = attempt("build", make)
                if not ok:
                    break
            ok, out = attempt("forward", lambda: forward(m, specs, seed, device))
            if ok:
                st.passed("build", spent["build"])
                st.passed("forward", spent["forward"])
                return Found(m, cand, specs, out)
    if (fatal and fatal[0] == "build") or not built_any:
        why = fatal[1] if fatal else first["build"] or TypeError("no constructor arguments could be inferred")
        return st.failed("build", spent["build"], why)
    st.passed("build", spent["build"])
    why = fatal[1] if fatal else first["forward"] or RuntimeError("no input candidate was tried")
    return st.failed("forward", spent["forward"], why)


def fidelity(orig, found, seed, device):
    """Replays the same recipe on the original class and compares counts, state-dict keys/shapes and outputs."""
    try:
        if orig.get("importRoot"):
            sys.path.insert(0, orig["importRoot"])
        ocls = getattr(importlib.import_module(orig["module"]), orig["className"])
    except BaseException as exc:
        return {"status": "n/a", "reason": "original does not import: " + error_text(exc)}
    try:
        c = found.candidate
        om = build(ocls, c["kwargs"], seed, device, c["refs"], c.get("builder"))
        oout = forward(om, found.specs, seed, device)
    except BaseException as exc:
        return {"status": "differs", "reason": "original fails on the recipe: " + error_text(exc)}
    m, out = found.module, found.outputs
    reasons, shapes = [], lambda mod: {k: list(v.shape) for k, v in mod.state_dict().items()}
    if count(om, "_parameters") != count(m, "_parameters"):
        reasons.append("parameter count")
    if shapes(om) != shapes(m):
        reasons.append("state-dict keys or shapes")
    same = len(oout) == len(out) and all(
        a.shape == b.shape and a.dtype == b.dtype and (torch.allclose(a, b, atol=1e-6, equal_nan=True) if a.is_floating_point() else torch.equal(a, b))
        for a, b in zip(out, oout))
    if not same:
        reasons.append("outputs (allclose, atol 1e-6)")
    return {"status": "differs", "reason": ", ".join(reasons)} if reasons else {"status": "identical"}


MAX_CANONICAL = 8  # builder configurations counted per block


def canonical(cls, names, deadline):
    """Parameter counts of the block at the configurations its source's zero-argument builders make (`resnet50`:
    25,557,032), each built fresh and dropped, until the time share for them runs out. A builder that fails or
    builds another class is left out: these are figures about this block, labelled with the builder's name."""
    out = []
    for name in names[:MAX_CANONICAL]:
        if time.monotonic() > deadline:
            break
        try:
            torch.manual_seed(0)
            m = getattr(sys.modules[cls.__module__], name)()
            if type(m) is cls:
                out.append({"builder": name, "params": count(m, "_parameters")})
        except BaseException:
            pass
        m = None
        gc.collect()
    return out


def module_file(job):
    rel = job["module"].replace(".", "/")
    cands = (os.path.join(job["importRoot"], rel + ".py"), os.path.join(job["importRoot"], rel, "__init__.py"))
    return next((p for p in cands if os.path.isfile(p)), None)


def stages(job, st, rec):
    """Runs the stages in order, filling `rec`; returns the Failure that stopped them, or None when all passed."""
    device, seed, overrides = job["device"], job["seed"], job.get("overrides") or {}
    started = time.monotonic()
    path = module_file(job)
    if path is None:
        missing = ModuleNotFoundError(f"no file for module {job['module']} under {job['importRoot']}", name=job["module"])
        return st.failed("parse", 0, missing)
    source = open(path, "rb").read()
    tree, failed = st.run("parse", lambda: ast.parse(source, path))
    if failed:
        return failed
    _, failed = st.run("compile", lambda: compile(tree, path, "exec"))
    if failed:
        return failed
    st.source = (tree, path)
    blocker = Blocker(job.get("blocked") or [])
    blocker.install()
    sys.path.insert(0, job["importRoot"])
    cls, failed = st.run("import", lambda: getattr(importlib.import_module(job["module"]), job["className"]))
    if failed and failed.cls == "missing-dependency":  # name every absent distribution, not only the first
        return Failure(failed.cls, with_absent_imports(failed.detail, tree, st.corpus))
    if failed:
        return failed
    # Builder configurations first: their counts are published, and they order the builder recipes smallest
    # first (a detector's 320-pixel variant before its 800-pixel one), within a third of the block's time.
    counts = canonical(cls, job.get("canonical") or [], started + job["timeoutMs"] / 3000)
    if counts:
        rec["canonical"] = counts
    size = {c["builder"]: c["params"] for c in counts}
    usage = sorted(job.get("usage") or [], key=lambda c: (c.get("builder") is None, size.get(c.get("builder"), float("inf"))))
    found = search(cls, overrides, usage, seed, device, st)
    if isinstance(found, Failure):
        rec["attempt"] = st.tried
        if found.cls == "needs-arguments":
            rec["uninferred"] = infer.uninferred(cls)[:16]
        return found
    m = found.module
    rec["recipe"] = recipe_of(found.candidate, seed, found.specs)
    rec["outputs"] = [output_record(t) for t in found.outputs]
    rec["params"] = count(m, "_parameters")
    rec["buffers"] = count(m, "_buffers")
    rec["moduleTree"] = module_tree(m, [2000])
    rec["gradients"], failed = st.run("backward", lambda: backward(m, found.specs, seed, device))
    if failed:
        return failed
    if job.get("original"):
        blocker.remove()  # the original runs with its own package importable
        rec["fidelity"] = fidelity(job["original"], found, seed, device)
    else:
        rec["fidelity"] = {"status": "n/a", "reason": "no importable original given"}
    return None


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def run_block(job, send):
    """Runs one block's stages and sends the `final` message with its record."""
    st = Stages(send, Corpus.of(job))
    rec = {"recipe": None, "outputs": [], "params": None, "buffers": None, "gradients": None, "moduleTree": None,
           "fidelity": {"status": "n/a", "reason": "block did not pass"}}
    base_rss = rss_bytes()
    failure = stages(job, st, rec)
    if VIOLATIONS and (failure is None or failure.cls != "sandbox-violation"):
        # an escape attempt fails the block even if it went on to pass
        failure = Failure("sandbox-violation", "%s: %s" % VIOLATIONS[0])
    if job["device"] == "cuda":
        rec["peakMemoryBytes"] = torch.cuda.max_memory_allocated()
    else:  # ru_maxrss includes the torch pages inherited from the worker; report what the block added
        rec["peakMemoryBytes"] = max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base_rss)
    status, cls, detail = ("passed", None, None) if failure is None else ("failed", failure.cls, failure.detail)
    detail = None if detail is None else trim(detail, DETAIL_MAX)
    send({"t": "final", "status": status, "failureClass": cls, "failureDetail": detail, "stages": st.items, **rec})
