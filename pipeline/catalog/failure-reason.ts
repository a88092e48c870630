// A failed or blocked block's neutral reason (`validation.reason`): the runner's stage error, `Type: message` as
// Python's `traceback.format_exception_only` writes it, split into the exception's type and a one-line message
// without traceback lines, source lines or paths of the machine that ran it; the stage; the recipe tried.
// The text comes from a process that ran upstream code: hostile, so it is cut, cleaned and capped here, and the
// schema holds the type to a dotted name and the message to RUN_LIMITS.detailChars.
import type { ValidationRecipe } from '../contract/recipe.ts';
import { capText, isTypeName } from '../contract/rules.ts';
import type { FailureReason, ValidationRecord } from '../contract/validation.ts';
import { RUN_LIMITS } from '../contract/vocabulary.ts';

/** A stage record as the runner writes it: `error` is the first candidate's `Type: message`, or how the run ended. */
interface StageError {
  stage: string;
  status: string;
  error?: string;
}

/**
 * Folders whose files are named relative to a module root, so the path reads like the import it is:
 * `/nnb/block/7/mod.py` → `mod.py`, `/usr/lib/python3/dist-packages/torch/nn/functional.py` → `torch/nn/functional.py`.
 * Order matters: an installed distribution's folder lives under the standard library's.
 */
const MODULE_ROOTS: RegExp[] = [
  /^\/nnb\/block\/[^/]+(?:\/|$)/, // the sandbox's inbox: /nnb/block/<seq>/<module path> (docs/validate.md, "Sandbox")
  /^.*\/(?:site|dist)-packages(?:\/|$)/,
  /^.*\/\.nnblocks\/extracted\/blocks(?:\/|$)/, // extracted blocks in the default cache folder (`--no-sandbox`)
  /^\/usr(?:\/local)?\/lib(?:64)?\/python3(?:\.\d+)?(?:\/|$)/,
];
/** Private scratch folders: the sandbox's /tmp (its work folder /tmp/nnblocks-work), /var/tmp, /dev/shm. */
const TEMP = /^\/(?:tmp|var\/tmp|dev\/shm)\//;
/** The sandbox's own folders besides the inbox (/nnb/runner). */
const SANDBOX = /^\/nnb\//;
/** Paths that name no machine: what a block tried to read or run is worth saying (`open: /etc/passwd`). */
const SYSTEM = /^\/(?:etc|proc|sys|dev|bin|sbin|usr\/bin|usr\/sbin|usr\/share|usr\/include)\//;

/**
 * An absolute path of two or more segments, not part of a URL or a relative path (`https://x/y`, `a/b`): it ends
 * at whitespace, quotes, brackets, commas, colons (`m.py:12`) and semicolons.
 */
const PATH = /(?<![\p{L}\p{N}_.:/~$-])\/[^\s'"`,;:()<>[\]{}|]+(?:\/[^\s'"`,;:()<>[\]{}|]*)+/gu;

const basename = (p: string) => p.split('/').filter(Boolean).pop() ?? '';

/** One absolute path in neutral form. `moduleRoots` are this build's import roots (cut like the inbox). */
export function neutralPath(path: string, moduleRoots: readonly string[] = []): string {
  const trailing = /[.]+$/.exec(path)?.[0] ?? ''; // the full stop of a sentence is not part of the path
  const p = path.slice(0, path.length - trailing.length);
  const root = [...moduleRoots]
    .sort((a, b) => b.length - a.length)
    .find((r) => r.length > 1 && (p === r || p.startsWith(`${r.replace(/\/+$/, '')}/`)));
  const cut = root !== undefined ? p.slice(root.replace(/\/+$/, '').length + 1) : undefined;
  const rel =
    cut ?? MODULE_ROOTS.map((re) => (re.test(p) ? p.replace(re, '') : undefined)).find((x) => x !== undefined);
  if (rel !== undefined) return (rel === '' ? '<sandbox>' : rel) + trailing;
  if (TEMP.test(p)) return `<tmp>/${basename(p)}${trailing}`;
  if (SANDBOX.test(p)) return `<sandbox>/${basename(p)}${trailing}`;
  if (SYSTEM.test(p)) return path;
  return `<host>/${basename(p)}${trailing}`;
}

/** A traceback's frame line: `  File "/nnb/block/3/m.py", line 12, in forward` (or a SyntaxError's location). */
const FRAME = /^\s*File "[^"\n]*", line \d+/;
const TRACEBACK_HEAD = /^\s*Traceback \(most recent call last\):\s*$/;
/** Caret and tilde markers under a source line (Python 3.11+): `    ^^^^^`, `    ~~~^~~~`. */
const MARKERS = /^\s*[~^]+\s*$/;
/** C0/C1 controls and the bidi controls that could reorder what a reader sees. */
const CONTROLS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Upstream text in neutral form, one line, not capped: traceback headers, frame lines and the source line indented
 * under each frame are dropped (never a traceback's code line), paths of this machine replaced (`neutralPath`),
 * control characters and runs of whitespace made single spaces.
 */
export function neutralText(text: string, moduleRoots: readonly string[] = []): string {
  const kept: string[] = [];
  let inFrame = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (TRACEBACK_HEAD.test(line)) continue;
    if (FRAME.test(line)) {
      inFrame = true;
      continue;
    }
    // Under a frame, indented lines are the source line and its markers; the first unindented line ends the frame.
    if (inFrame && /^\s/.test(line)) continue;
    inFrame = false;
    if (MARKERS.test(line)) continue;
    kept.push(line);
  }
  return kept
    .join('\n')
    .replace(PATH, (p) => neutralPath(p, moduleRoots))
    .replace(CONTROLS, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `Type: message` (or a bare `Type` when the message is empty): the exception header format_exception_only writes. */
const HEADER =
  /^([\p{XID_Start}_][\p{XID_Continue}]*(?:\.(?:[\p{XID_Start}_][\p{XID_Continue}]*|<locals>))*)(?::(?: (.*))?)?$/su;
/** A bare name is an exception's only when it is named like one (`AssertionError`, `StopIteration`, `KeyboardInterrupt`). */
const EXCEPTION_NAME = /(?:Error|Exception|Warning|Exit|Interrupt|Iteration)$/;

/**
 * The runner's error text split into the exception's type and the neutral message; `exceptionType` is null when the
 * text is not an exception header (`killed at the deadline during forward without reporting a result`).
 */
export function splitError(
  error: string,
  moduleRoots: readonly string[] = [],
): { exceptionType: string | null; message: string } {
  const text = neutralText(error, moduleRoots);
  const m = HEADER.exec(text);
  const type = m?.[1];
  const typed =
    type !== undefined && isTypeName(type) && (m![2] !== undefined || /:$/.test(text) || EXCEPTION_NAME.test(type));
  return typed
    ? { exceptionType: type, message: capText(m![2] ?? '', RUN_LIMITS.detailChars) }
    : { exceptionType: null, message: capText(text, RUN_LIMITS.detailChars) };
}

/**
 * The reason of a failed or blocked run: the stage that failed and its error split (`splitError`); when no stage
 * reported an error (the process died, a violation after every stage passed, a record that broke the protocol), the
 * class's detail as the message, without a type.
 */
export function failureReason(
  run: { stages: readonly StageError[]; failureDetail: string | null },
  recipeTried: ValidationRecipe | null,
  moduleRoots: readonly string[] = [],
): FailureReason {
  const failed = run.stages.find((s) => s.status === 'failed');
  const split = failed?.error
    ? splitError(failed.error, moduleRoots)
    : {
        exceptionType: null,
        message: capText(neutralText(run.failureDetail ?? '', moduleRoots), RUN_LIMITS.detailChars),
      };
  return { stage: failed?.stage ?? null, ...split, recipeTried };
}

/** A block that did not pass, as `build` and `validate` list it for people: its class and its reason in one line. */
export interface BlockFailure {
  id: string;
  status: 'failed' | 'not-run' | 'blocked';
  failureClass: string | null;
  /** `stage: Type: message` from the neutral reason, else the class's detail; upstream text, print it escaped. */
  reason: string;
}

/**
 * The blocks that did not pass among `records` (id → catalog validation), sorted: failed, then not run
 * automatically, then blocked; then by class, then id.
 */
export function blockFailures(records: Iterable<[string, ValidationRecord]>): BlockFailure[] {
  const out: BlockFailure[] = [];
  for (const [id, v] of records) {
    if (v.status === 'passed') continue;
    const r = v.reason;
    const line = r ? [r.stage, r.exceptionType, r.message].filter(Boolean).join(': ') : '';
    out.push({ id, status: v.status, failureClass: v.failureClass ?? null, reason: line || v.failureDetail || '' });
  }
  const order = { failed: 0, 'not-run': 1, blocked: 2 };
  const key = (f: BlockFailure) => `${order[f.status]}\0${f.failureClass ?? ''}\0${f.id}`;
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
