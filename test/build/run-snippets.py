# Runs a block page's snippets in one Python process, one after another, for test/build/default-snippets.test.ts:
# the replay script (it checks its own outputs against the record and says so) and the "Use it" lines (the import
# and construction from the installed upstream package), fed and measured here by the runner's own replay protocol
# and measure functions. Jobs: a JSON file named on the command line; results: one JSON line per job on stdout,
# flushed, so a crash still reports every job before it.
import contextlib, io, json, math, os, signal, sys, time, traceback

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pipeline", "validate", "python"))
from nnblocks_runner.fill import Fill
from nnblocks_runner.measure import output_record
from nnblocks_runner.part import Part
from nnblocks_runner.replay import forward

MATCHED = "replayed: outputs match the recorded checksums"


class JobTimeout(BaseException):
    """Raised by the alarm in the job that ran over; a BaseException, so the job's own `except Exception` can't eat it."""


def on_alarm(signum, frame):
    raise JobTimeout()


def near(a, b, tol):
    return a == b or (math.isnan(a) and math.isnan(b)) or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= tol)


def same_outputs(got, recorded, tol):
    """What is wrong between measured outputs and the catalog's record, or None: the replay script's rules (shape,
    dtype, Σ|x| within 1e-3 relative or 1e-5 absolute, the projection within `tol` of the output's L2 norm)."""
    if len(got) != len(recorded):
        return f"{len(got)} outputs, {len(recorded)} recorded"
    for i, ((t, rec), want) in enumerate(zip(got, recorded)):
        if rec["shape"] != want["shape"] or rec["dtype"] != want["dtype"]:
            return f"output {i}: {rec['shape']} {rec['dtype']}, recorded {want['shape']} {want['dtype']}"
        s, want_s = float(rec["checksum"]), float(want["checksum"])
        if not near(s, want_s, max(1e-3 * max(abs(s), abs(want_s)), 1e-5)):
            return f"output {i}: sum of |x| {s}, recorded {want_s}"
        if "projection" in want:
            p, want_p = float(rec["projection"]), float(want["projection"])
            norm = t.double().norm().item() if t.numel() else 0.0
            if not near(p, want_p, tol * norm):
                return f"output {i}: projection {p}, recorded {want_p} (norm {norm})"
    return None


def run_replay(job, g, spec):
    exec(compile(job["code"], f"<replay {job['id']}>", "exec"), g)  # noqa: S102 -- running the snippet is the test
    printed = g["__out__"].getvalue()
    if job["outputs"] and MATCHED not in printed:
        return "the script did not say its outputs matched"
    return None


def run_use(job, g, spec):
    """The "Use it" lines after the recipe's seed, under the fill validation built with (docs/validate.md, "Replay
    protocol"; without it a block with a large tensor gets other initial values, so other outputs); then the block
    (a part: through the model the lines built, as validation fed it) on the recipe's inputs, measured as validation
    measures."""
    parents = []
    get_submodule = torch.nn.Module.get_submodule

    def spy(self, target):
        parents.append(self)
        return get_submodule(self, target)

    torch.manual_seed(job["seed"])
    torch.nn.Module.get_submodule = spy
    try:
        with Fill(job["seed"]):
            exec(compile(job["code"], f"<use {job['id']}>", "exec"), g)  # noqa: S102 -- running the snippet is the test
    finally:
        torch.nn.Module.get_submodule = get_submodule
    block = g.get("block")
    if block is None:
        return None  # an import line only: it ran
    m = Part(parents[-1], job["path"], block) if job.get("path") else block
    outs = forward(m.to("cpu").eval(), job["inputs"], job["seed"], "cpu")
    return same_outputs([(t, output_record(t)) for t in outs], job["outputs"], spec["projectionTolerance"])


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    # Two of these run side by side on the test machine's cores: one thread each, so neither waits on the other.
    torch.set_num_threads(1)
    signal.signal(signal.SIGALRM, on_alarm)
    path, cwd = list(sys.path), os.getcwd()
    for job in spec["jobs"]:
        out = io.StringIO()
        g = {"__name__": "__snippet__", "__out__": out}
        t0 = time.monotonic()
        error = None
        loaded = {m for m in spec.get("isolatedFrom", []) if m in sys.modules}
        signal.setitimer(signal.ITIMER_REAL, spec["timeoutS"])
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                error = (run_replay if job["kind"] == "replay" else run_use)(job, g, spec)
        except BaseException as exc:  # every failure is the job's result
            tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
            error = "".join(tb[-3:]).strip()[-1500:] if not isinstance(exc, JobTimeout) else f"over {spec['timeoutS']} s"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            # A replay runs on what `nnblocks extract` wrote, never on the upstream package.
            upstream = sorted(m for m in spec.get("isolatedFrom", []) if m in sys.modules and m not in loaded)
            if upstream and error is None:
                error = f"imported {', '.join(upstream)}: the replay ran on the upstream package, not the extracted module"
            sys.path[:] = path
            os.chdir(cwd)
            torch.set_grad_enabled(True)
        line = {"id": job["id"], "kind": job["kind"], "error": error, "s": round(time.monotonic() - t0, 3)}
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
