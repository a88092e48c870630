# Time shares of a block's budget (docs/validate.md, "Time shares"): how much of the block's time each phase of the
# recipe search, the canonical counts and fidelity may use, and `budgeted`, the alarm that holds one attempt to its
# share. The block's budget itself is enforced by the worker (supervise.py), outside the block's process: a share
# decides which candidate gets the time and that the record is still written when it runs out, never how long a
# block may run. The clock and the alarm are taken when the runner starts, before any block is imported: a block
# that replaces `time.monotonic` or `signal.setitimer` can't stretch its shares or its stage times.
import signal, time

monotonic, perf_counter = time.monotonic, time.perf_counter
_signal, _setitimer, _ITIMER_REAL, _SIGALRM = signal.signal, signal.setitimer, signal.ITIMER_REAL, signal.SIGALRM

GUIDED_SHARE = 0.45  # of the block's time, for builder and usage candidates together (first round)
GUIDED_ATTEMPT_S = 15.0  # at most, per build, forward or backward of a builder or usage candidate
FIRST_ROUND_S = 5.0  # the same, in the first round (see search.search)
# Of the block's time, at most, per build of an inferred candidate (9 s of the default 60): a guessed count that a
# constructor turns into work (16 recursion levels of DLA's tree, 16 spherical harmonics that DimeNet derives with
# sympy) would otherwise build until the block's deadline. The passing inferred builds of the paper corpus take under
# 5 s, all attempts together.
INFERENCE_BUILD_SHARE = 0.15
SECOND_ROUND_SHARE = 0.75  # of the block's time, up to which the second round may run (the rest: fidelity, records)
# Part candidates come after everything else of the first round and may run up to this share of the block's time
# (a detector's parts wait for its backbone); sizing their models first takes at most PART_SIZING_SHARE.
PART_SHARE = 0.6
PART_SIZING_SHARE = 0.1
CANONICAL_SHARE = 0.2  # of the block's time, for counting builder configurations (canonical.py)
CANONICAL_BUILD_S = 5.0  # at most, per builder configuration counted
# At most, per builder configuration, for its counted forward (shapes and MACs, flops.counted): a counted meta-device
# forward takes 1.5 to 3 times a plain one, 0.03 s (resnet18) to 0.7 s (efficientnet_b7) for torchvision's
# classifiers on a quiet core. A model slower than this gets no MACs, and its shapes from a plain forward.
CANONICAL_MACS_S = 1.0
# Fidelity runs in what is left of the block's time, less this much for the record itself (a share of the budget,
# at most RECORD_S): a fidelity that runs over ends as `n/a` and the block keeps the record it earned, where the
# worker's deadline would have killed the child and left a bare `timeout`.
RECORD_SHARE, RECORD_S = 0.05, 2.0


class OverBudget(BaseException):
    """An attempt ran past its time share. A BaseException, so upstream `except Exception` can't eat it."""


def budgeted(seconds, fn):
    """`fn()`, interrupted by OverBudget after `seconds` (None: no share, the block's own deadline applies).
    Python runs the handler between bytecodes: a long C++ op finishes first, then the attempt stops."""
    if seconds is None:
        return fn()
    if seconds <= 0:
        raise OverBudget("no time left in its share")

    def ring(signum, frame):
        raise OverBudget(f"over its {seconds:.1f} s share of the block's time")

    old = _signal(_SIGALRM, ring)
    _setitimer(_ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        _setitimer(_ITIMER_REAL, 0)
        _signal(_SIGALRM, old)


def fidelity_seconds(started, timeout_s):
    """Seconds fidelity may take: what is left of the block's time, less what the record needs."""
    return started + timeout_s - min(RECORD_S, RECORD_SHARE * timeout_s) - monotonic()
