// Which blocks that did not pass are the harness's doing rather than the code's: published as `not-run` ("not run
// automatically") apart from `failed`. One ordered table, first match wins, read from a record's failure class and
// neutral reason (contract/validation.ts) alone, so the catalog step, the CLI's summaries and the site agree and a
// published record can be checked against it. docs/validate.md ("Failure classes") prints it (harnessRulesMarkdown).
//   needs-arguments  FasterRCNN.__init__() missing 1 required positional argument: 'backbone'   -> not-run
//   forward-error    ValueError: not enough values to unpack (expected 3, got 2)   (a tensor where thw, a tuple)   -> not-run
//   forward-error    AttributeError: 'Foo' object has no attribute 'proj'   (the block's own bug)   -> failed

/** What a rule reads: a record's class and reason (the catalog's, or the runner's split the same way). */
export interface HarnessFacts {
  failureClass?: string | null;
  reason?: { stage: string | null; exceptionType: string | null; message: string } | null;
}

export interface HarnessRule {
  id: string;
  verdict: 'not-run' | 'failed';
  /** Failure classes it applies to; absent: any. */
  classes?: readonly string[];
  /** Stages the reason must name; absent: any (a null stage included). */
  stages?: readonly string[];
  /** The exception's type (the last dotted part is enough: `torch.OutOfMemoryError` matches `OutOfMemoryError$`). */
  type?: RegExp;
  /** The reason's message. */
  message?: RegExp;
  /** Why, for the docs table. */
  why: string;
  /** What the block page says after "not run automatically: ". */
  says: string;
}

const RUNNING = ['build', 'forward', 'backward'] as const;

export const HARNESS_RULES: readonly HarnessRule[] = [
  {
    id: 'api-missing',
    verdict: 'failed',
    classes: ['needs-arguments', 'forward-error', 'backward-error'],
    type: /^AttributeError$/,
    message: /^module '[\w.]+' has no attribute /,
    why: 'the code calls something the installed library lacks (`module torch.nn has no attribute ...`): broken on this runtime, whatever the arguments',
    says: 'it calls something the installed library lacks',
  },
  {
    id: 'needs-arguments',
    verdict: 'not-run',
    classes: ['needs-arguments'],
    why: 'no constructor arguments that build it were found: a reader supplies them (`validate.overrides` in the config)',
    says: 'no constructor arguments that build it were found',
  },
  {
    id: 'over-budget',
    verdict: 'not-run',
    type: /(^|\.)OverBudget$/,
    why: "a step of the recipe search ran out of its share of the block's time (`OverBudget`)",
    says: "a step ran out of its share of the block's time",
  },
  {
    id: 'time-limit',
    verdict: 'not-run',
    classes: ['timeout'],
    stages: RUNNING,
    why: "it ran past the block's time budget while building or running: a large model on the validation machine (a hang on import stays `failed`)",
    says: 'it ran past the time budget while building or running (a large model for the validation machine)',
  },
  {
    id: 'memory-limit',
    verdict: 'not-run',
    classes: ['memory'],
    stages: RUNNING,
    why: "it needed more memory than validation allows while building or running: the machine's limit, not the code",
    says: 'it needed more memory than validation allows',
  },
  {
    id: 'environment',
    verdict: 'not-run',
    classes: ['environment'],
    why: 'the validation environment failed it, not the block',
    says: 'the validation environment failed it',
  },
  {
    id: 'input-arity',
    verdict: 'not-run',
    classes: ['forward-error'],
    type: /^TypeError$/,
    message:
      /missing \d+ required (positional|keyword-only) arguments?|takes (from )?\d+ (to \d+ )?positional arguments? but \d+ (was|were) given|got an unexpected keyword argument|got multiple values for argument/,
    why: "the probe inputs did not match forward's parameters (too few, too many, a keyword it does not take)",
    says: "the probe inputs did not match forward's parameters",
  },
  {
    id: 'input-kind',
    verdict: 'not-run',
    classes: ['forward-error'],
    type: /^(TypeError|ValueError|AttributeError)$/,
    message:
      /values to unpack|cannot unpack non-iterable|^'(Tensor|int|float|tuple|list|dict|str|bool)' object (is not (iterable|subscriptable|callable)|has no attribute)|object of type '(Tensor|int|float)' has no len\(\)|iteration over a 0-d tensor/,
    why: 'forward wanted another kind of input than the one made (a tuple, a list, an `ImageList` where a tensor was passed): `not enough values to unpack`, `Tensor object has no attribute tensors`',
    says: 'forward wanted another kind of input than the harness could make',
  },
  {
    id: 'input-shape',
    verdict: 'not-run',
    classes: ['forward-error'],
    type: /^(RuntimeError|ValueError|IndexError)$/,
    message:
      /shapes cannot be multiplied|expected input\[[^\]]*\] to have \d+ channels|must match the size of tensor|is invalid for input of size|must have (the )?same number of dimensions|output size is too small|expected \S*\s*\d+d\b|-dimensional input|sizes of tensors must match|dimension out of range|not broadcastable|is out of bounds for dimension|kernel size can't be greater than actual input size|padding size should be less than/i,
    why: 'forward refused the shape of the probe input (channels, dimensions, sizes that must match): the harness could not make an input of the shape it needs',
    says: 'forward refused the shape of the probe input',
  },
  {
    id: 'input-assertion',
    verdict: 'not-run',
    classes: ['forward-error'],
    type: /^AssertionError$/,
    why: 'an assertion in forward refused the probe input (`assert L == H * W, "input feature has wrong size"`): an input check, not a fault',
    says: 'an assertion in forward refused the probe input',
  },
  {
    id: 'output-kind',
    verdict: 'not-run',
    classes: ['forward-error'],
    type: /^TypeError$/,
    message: /^forward returned no tensor/,
    why: 'forward ran, but returned nothing the harness can check (no tensor)',
    says: 'forward returned nothing the harness can check',
  },
];

/** The exception type's last part, so `torch.OutOfMemoryError` and `nnblocks_runner.search.OverBudget` read plainly. */
const typeName = (t: string | null | undefined) => (t ?? '').split('.').pop() ?? '';

function fires(rule: HarnessRule, facts: HarnessFacts): boolean {
  const r = facts.reason ?? null;
  if (rule.classes && !rule.classes.includes(facts.failureClass ?? '')) return false;
  if (rule.stages && !rule.stages.includes(r?.stage ?? '')) return false;
  if (rule.type && !(rule.type.test(typeName(r?.exceptionType)) || rule.type.test(r?.exceptionType ?? '')))
    return false;
  if (rule.message && !rule.message.test(r?.message ?? '')) return false;
  return true;
}

/** The first rule that fires on a block that did not pass, or null (then it is `failed`: the default). */
export function harnessRule(facts: HarnessFacts): HarnessRule | null {
  return HARNESS_RULES.find((rule) => fires(rule, facts)) ?? null;
}

/** Whether a block that did not pass (and is not blocked) is published as `not-run` rather than `failed`. */
export function isNotRun(facts: HarnessFacts): boolean {
  return harnessRule(facts)?.verdict === 'not-run';
}

/** The table docs/validate.md shows (a test keeps the two in sync). */
export function harnessRulesMarkdown(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const rows = HARNESS_RULES.map((r, i) =>
    [
      i + 1,
      `\`${r.id}\``,
      r.verdict === 'not-run' ? 'not run' : 'failed',
      r.classes ? r.classes.map((c) => `\`${c}\``).join(', ') : 'any',
      [
        r.stages ? `stage ${r.stages.join('/')}` : '',
        r.type ? `type \`${esc(r.type.source)}\`` : '',
        r.message ? `message \`${esc(r.message.source)}\`` : '',
      ]
        .filter(Boolean)
        .join('; ') || '–',
      esc(r.why),
    ].join(' | '),
  );
  return [
    '| # | rule | shown as | classes | when | why |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
}
