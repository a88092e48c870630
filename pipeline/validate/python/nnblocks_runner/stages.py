# One block's stages inside the forked child: parse, compile, import, build, forward, backward, then fidelity.
# A stage's failure is a value (`Failure`) that the caller returns, never an exception thrown out of the stage
# bookkeeping, so the order of events reads top to bottom in `run_block`.
import ast, importlib, importlib.machinery, importlib.util, os, resource, sys
from typing import NamedTuple, Optional

import torch

from . import infer, scope, sources
from .canonical import canonical
from .classify import MEMORY_MET, NO_CORPUS, Corpus, classify, is_memory, native_statement, with_absent_imports
from .containment import VIOLATIONS, Blocker
from .measure import count, is_floating, module_tree, output_record, same_values, state_shapes
from .part import block_of
from .protocol import error_text, trim
from .replay import build, forward, sensitivity
from .search import recipe_of, search
from .shares import CANONICAL_SHARE, OverBudget, budgeted, fidelity_seconds, monotonic, perf_counter

# Peak memory is a measurement too: taken before any block is imported (see measure.py).
_getrusage, _max_memory_allocated = resource.getrusage, torch.cuda.max_memory_allocated


DETAIL_MAX = 1000  # characters of a failure detail (a module name, an unresolved name, a violation)
SENSITIVITY_S = 10.0  # at most, for the sensitivity of a block whose outputs are all zeros (replay.sensitivity)


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
        t0 = perf_counter()
        try:
            value = fn()
        except BaseException as exc:
            return None, self.failed(name, (perf_counter() - t0) * 1000, exc)
        self.passed(name, (perf_counter() - t0) * 1000)
        return value, None

    def _record(self, rec):
        self.items.append(rec)
        self.send({"t": "stage", **rec})


def fidelity(orig, found, seed, device, seconds):
    """Replays the same recipe on the original class and compares counts, state-dict keys/shapes and outputs, within
    `seconds` (what is left of the block's time): one that runs over is `n/a`, and the block keeps its record."""
    try:
        return budgeted(seconds, lambda: compare(orig, found, seed, device))
    except OverBudget:
        return {"status": "n/a", "reason": "no time left in the block's budget to replay the original"}


def compare(orig, found, seed, device):
    """fidelity's replay and comparisons; the share running out (OverBudget) goes through to `fidelity`."""
    try:
        if orig.get("importRoot"):
            sys.path.insert(0, orig["importRoot"])
        ocls = getattr(importlib.import_module(orig["module"]), orig["className"])
        registry = sys.modules.get("mmengine.registry")  # where an original's DefaultScope lives
        scope.enter([vars(sys.modules[ocls.__module__])] + ([vars(registry)] if registry else []),
                    orig["module"].split(".")[0])
    except OverBudget:
        raise
    except BaseException as exc:
        is_memory(exc)
        return {"status": "n/a", "reason": "original does not import: " + error_text(exc)}
    try:
        c = found.candidate
        # A part: the same builder of the original package (its `builderModule`) and the same path in its model; a
        # builder of a sibling module: the original package's (`segment_anything.build_sam`), not the block module's.
        whole = c if c["origin"] == "part" else None
        kwargs = c["kwargs"]
        if c.get("homes"):  # an instance's class in another module: the original package's (and registered)
            for home in sorted(set(c["homes"].values())):
                importlib.import_module(home)
            kwargs = infer.rehomed(kwargs, c["homes"])
        om = build(ocls, kwargs, seed, device, c["refs"], c.get("builder"), c.get("calls") or (), whole,
                   c.get("builderModule"))
        oout = forward(om, found.specs, seed, device)
    except OverBudget:
        raise
    except BaseException as exc:
        is_memory(exc)
        return {"status": "differs", "reason": "original fails on the recipe: " + error_text(exc)}
    m, out, om = block_of(found.module), found.outputs, block_of(om)
    reasons = []
    if count(om, "_parameters") != count(m, "_parameters"):
        reasons.append("parameter count")
    if state_shapes(om) != state_shapes(m):  # the modules' own tables, not a state_dict() the block may override
        reasons.append("state-dict keys or shapes")
    if not (len(oout) == len(out) and all(same_values(a, b) for a, b in zip(out, oout))):
        reasons.append("outputs (allclose, atol 1e-6)")
    return {"status": "differs", "reason": ", ".join(reasons)} if reasons else {"status": "identical"}


def zero_outputs_sensitivity(cls, found, rec, seed, device, seconds):
    """replay.sensitivity of a block whose outputs are all zeros, one of them floating and not empty (ViT's logits
    from its zero-initialised head), within `seconds`; None for any other block, a part (its capture would have to
    be replayed as well), or when it fails or runs over."""
    c = found.candidate
    if c["origin"] == "part" or any(o["checksum"] != 0 for o in rec["outputs"]):
        return None
    if not any(0 not in o["shape"] and is_floating(t) for t, o in zip(found.outputs, rec["outputs"])):
        return None  # nothing but empty outputs (a detector that found no box): nothing to project
    make = lambda: build(cls, c["kwargs"], seed, device, c["refs"], c.get("builder"), c.get("calls") or ())
    try:
        return budgeted(min(SENSITIVITY_S, seconds), lambda: sensitivity(make, found.specs, seed, device))
    except BaseException:
        return None


def package_of(job):
    """The top-level package of the block's upstream module: `mmocr` for `mmocr:mmocr.models.textrecog.SATRN`."""
    return job["id"].split(":", 1)[-1].split(".")[0]


def module_file(job):
    rel = job["module"].replace(".", "/")
    cands = (os.path.join(job["importRoot"], rel + ".py"), os.path.join(job["importRoot"], rel, "__init__.py"))
    return next((p for p in cands if os.path.isfile(p)), None)


class _Compiled(importlib.machinery.SourceFileLoader):
    """The block module's loader: the code object the compile stage made of the same file, not a second compile of
    it (an assembled module is up to a few hundred kilobytes: compiling it again was 4% of a block's time)."""

    def __init__(self, name, path, code):
        super().__init__(name, path)
        self.code = code

    def get_code(self, fullname):
        return self.code if fullname == self.name else super().get_code(fullname)


def import_block(name, path, code):
    """The block's module, imported as `import name` would from its import root (the same file), executing `code`.
    A dotted name or a package's `__init__.py` goes through the ordinary import (its parents must import first)."""
    if "." in name or os.path.basename(path) == "__init__.py":
        return importlib.import_module(name)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path, loader=_Compiled(name, path, code))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def stages(job, st, rec):
    """Runs the stages in order, filling `rec`; returns the Failure that stopped them, or None when all passed."""
    device, seed = job["device"], job["seed"]
    started = monotonic()
    path = module_file(job)
    if path is None:
        missing = ModuleNotFoundError(f"no file for module {job['module']} under {job['importRoot']}", name=job["module"])
        return st.failed("parse", 0, missing)
    with open(path, "rb") as f:
        source = f.read()
    tree, failed = st.run("parse", lambda: ast.parse(source, path))
    if failed:
        return failed
    code, failed = st.run("compile", lambda: compile(tree, path, "exec"))
    if failed:
        return failed
    st.source = (tree, path)
    sources.remember(path, source, tree)
    blocker = Blocker(job.get("blocked") or [])
    blocker.install()
    sys.path.insert(0, job["importRoot"])
    cls, failed = st.run("import", lambda: getattr(import_block(job["module"], path, code), job["className"]))
    if failed and failed.cls == "missing-dependency":  # name every absent distribution, not only the first
        return Failure(failed.cls, with_absent_imports(failed.detail, tree, st.corpus))
    if failed:
        return failed
    scope.enter([vars(sys.modules[cls.__module__])], package_of(job))
    # Builder configurations first: their counts are published, and they order the builder recipes smallest
    # first (a detector's 320-pixel variant before its 800-pixel one), within a share of the block's time.
    builders = [infer.candidate(c.get("kwargs") or {}, c.get("refs") or (), "builder", c["builder"])
                for c in job.get("usage") or [] if c["origin"] == "builder"]
    # Then configurations read from config files (`dict(type='ResNet', depth=50)`), labelled with the file's name.
    builders += [{"kwargs": c.get("kwargs") or {}, "builder": c["builder"], "config": c["config"]}
                 for c in job.get("usage") or [] if c["origin"] == "config"]
    counts = canonical(cls, builders, seed, started + CANONICAL_SHARE * job["timeoutMs"] / 1000, job.get("usageInputs") or [])
    if counts:
        rec["canonical"] = counts
    size = {c["builder"]: c["params"] for c in counts}
    job["usage"] = sorted([c for c in job.get("usage") or [] if c["origin"] != "config"], key=lambda c: (c["origin"] != "builder", size.get(c.get("builder"), float("inf"))))
    found, failed = search(cls, job, st, started)
    if found is None:
        rec["attempt"] = st.tried
        if failed.cls == "needs-arguments":
            rec["uninferred"] = infer.uninferred(cls, job.get("moduleSlots") or ())[:16]
        return failed
    m = block_of(found.module)  # a part's own module, not the model it was found in
    rec["recipe"] = recipe_of(found.candidate, seed, found.specs)
    rec["outputs"] = [output_record(t) for t in found.outputs]
    rec["params"] = count(m, "_parameters")
    rec["buffers"] = count(m, "_buffers")
    rec["moduleTree"] = module_tree(m, [2000])
    rec["gradients"] = found.gradients
    if failed:  # it ran forward, but no candidate back-propagated
        return failed
    sens = zero_outputs_sensitivity(cls, found, rec, seed, device, fidelity_seconds(started, job["timeoutMs"] / 1000))
    if sens is not None:
        rec["sensitivity"] = sens
    if job.get("original"):
        blocker.remove()  # the original runs with its own package importable
        rec["fidelity"] = fidelity(job["original"], found, seed, device, fidelity_seconds(started, job["timeoutMs"] / 1000))
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
    if job.get("memoryShared") and MEMORY_MET and (failure is None or failure.cls not in ("memory", "sandbox-violation")):
        # Under the shared tier a memory error anywhere (a swallowed one too) means the record could differ from
        # the one the full limit gives: the block runs again alone (pool.ts), and this record is dropped.
        failure = Failure("memory", f"{MEMORY_MET[0]} under the shared memory tier; runs again alone")
    if VIOLATIONS and (failure is None or failure.cls != "sandbox-violation"):
        # an escape attempt fails the block even if it went on to pass
        kind, detail = VIOLATIONS[0]
        failure = Failure("sandbox-violation", f"{kind}: {detail}")
    if job["device"] == "cuda":
        rec["peakMemoryBytes"] = _max_memory_allocated()
    else:  # ru_maxrss includes the torch pages inherited from the worker; report what the block added
        rec["peakMemoryBytes"] = max(0, _getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - base_rss)
    status, cls, detail = ("passed", None, None) if failure is None else ("failed", failure.cls, failure.detail)
    detail = None if detail is None else trim(detail, DETAIL_MAX)
    send({"t": "final", "status": status, "failureClass": cls, "failureDetail": detail, "stages": st.items, **rec})
