// What a failed block's page says happened, in words a reader understands, by failure class (docs/validate.md,
// "Failure classes"): "could not be built automatically: needs a `backbone`", "built, but no probe input ran
// forward: ...". Never a bare "failed". The words come from the class; the names and messages in them come from a
// sandboxed run (validation.reason, failureDetail) and are returned as parts the component renders as text.
import type { BlockSpec } from '../../pipeline/contract/block.ts';
import type { ParamSpec } from '../../pipeline/contract/common.ts';
import { capText, isTypeName } from '../../pipeline/contract/rules.ts';
import { KNOWN_PARAM_ROLES, RUN_LIMITS } from '../../pipeline/contract/vocabulary.ts';

/** A piece of the sentence: plain words, or a name or message shown as code. Rendered as text, never HTML. */
export interface Part {
  text: string;
  code?: boolean;
  /** The run's error (`errorText`): the page then need not show it again. */
  error?: boolean;
}

type Validation = NonNullable<BlockSpec['validation']>;

const words = (text: string): Part => ({ text });
const code = (text: string): Part => ({ text, code: true });

/** `a`, `a and b`, `a, b and c`, each a code part. */
function names(list: string[]): Part[] {
  return list.flatMap((n, i) => [...(i === 0 ? [] : [words(i === list.length - 1 ? ' and ' : ', ')]), code(n)]);
}

/** `TypeError: message`, `AssertionError` or the message alone, capped; null when the run recorded neither. */
export function errorText(v: Validation): string | null {
  const r = v.reason;
  const type = r && isTypeName(r.exceptionType) ? r.exceptionType : null;
  const message = r ? capText(String(r.message ?? ''), RUN_LIMITS.detailChars) : '';
  if (type && message) return `${type}: ${message}`;
  if (type || message) return type ?? message;
  return v.failureDetail ? capText(String(v.failureDetail), RUN_LIMITS.detailChars) : null;
}

const IDENTIFIER = /^[\p{XID_Start}_][\p{XID_Continue}]*$/u;
/**
 * Roles the runner's inference fills by name (channels → 3, heads → 2, norm-layer → BatchNorm2d...): every role of
 * the role vocabulary (KNOWN_PARAM_ROLES, assigned by pipeline/catalog/param-roles.ts) is one it fills.
 */
const INFERRED_ROLES: ReadonlySet<string> = new Set(KNOWN_PARAM_ROLES);
/** Annotations the inference fills with a number, a flag or a short list (`int`, `Tuple[int, int]`, `List[int]`). */
const SCALAR_ANNOTATION =
  /^(Optional\[)?(int|float|bool|(List|Sequence|Tuple)\[(int|float)(, ?(int|float|\.\.\.))*\])\]?$/;

/** Names the inference fills whatever their role (`FIXED` in nnblocks_runner/infer.py): class counts, sizes, ratios. */
const INFERRED_NAMES =
  /^(num_classes|n_classes|nclass|num_class|classes|vocab_size|num_embeddings|n_tokens|num_tokens|n_vocab|vocab|num_anchors|max_len|seq_len|max_length|max_seq_len|num_positions|n_positions|block_size|img_size|image_size|input_size|grid_size|reduction|ratio|reduction_ratio|squeeze_ratio|expand_ratio|mlp_ratio|patch_size|window_size|shift_size|partition_size|head_dim|output_size|sampling_ratio|spatial_scale)$/;

const required = (p: ParamSpec) =>
  p.default === undefined && (p.kind === 'positional' || p.kind === 'positional-only' || p.kind === 'keyword-only');
const inferable = (name: string, p: ParamSpec | undefined) =>
  INFERRED_NAMES.test(name) ||
  (p !== undefined &&
    ((p.role !== undefined && INFERRED_ROLES.has(p.role)) || SCALAR_ANNOTATION.test(p.annotation ?? '')));

/**
 * The constructor parameters a `needs-arguments` block likely lacks: those Python named as missing (`__init__()
 * missing 1 required positional argument: 'backbone'`), else the required ones without a default; of these, the
 * ones inference has no value for (no role, not a number, not a name it knows) when any, else all of them.
 */
export function missingArguments(spec: BlockSpec): string[] {
  // The runner's own list (the parameters inference had no value for) when it recorded one: exact, not a guess.
  const recorded = spec.validation?.reason?.missing?.filter((n) => IDENTIFIER.test(n) && n.length <= 100);
  if (recorded?.length) return recorded.slice(0, 8);
  const params = spec.interface.constructorParams;
  const message = spec.validation?.reason?.message ?? '';
  const said = /missing \d+ required (?:positional|keyword-only) arguments?: (.*)$/.exec(message)?.[1];
  const named = said ? [...said.matchAll(/'([^']+)'/g)].map((m) => m[1]) : params.filter(required).map((p) => p.name);
  const valid = [...new Set(named)].filter((n) => IDENTIFIER.test(n) && n.length <= 100).slice(0, 8);
  const culprits = valid.filter(
    (n) =>
      !inferable(
        n,
        params.find((p) => p.name === n),
      ),
  );
  return culprits.length > 0 ? culprits : valid;
}

/** "needs a `backbone`", "needs an `inverted_residual_setting`", "needs `model` and `return_layers`". */
const article = (list: string[]): string => (list.length > 1 ? '' : /^[aeiou]/i.test(list[0]) ? 'an ' : 'a ');

/** A dotted module or identifier from a class's detail (`fixture_lab._C`, `MissingActivation`), else null. */
const detailName = (v: Validation): string | null =>
  v.failureDetail && isTypeName(v.failureDetail) ? v.failureDetail : null;

const during = (v: Validation): string =>
  v.reason?.stage && /^[a-z-]{1,32}$/.test(v.reason.stage) ? ` during ${v.reason.stage}` : '';

/**
 * The sentence a failed block's page leads with. Blocked blocks have their own ("blocked: needs opencv-python",
 * ValidationCard) and passed ones none.
 */
export function failureSummary(spec: BlockSpec): Part[] {
  const v = spec.validation;
  if (!v || v.status === 'passed') return [];
  const error = errorText(v);
  const withError = (lead: string): Part[] => [
    words(error ? `${lead}: ` : lead),
    ...(error ? [{ ...code(error), error: true }] : []),
  ];
  const withName = (lead: string, fallback: string): Part[] => {
    const name = detailName(v);
    return name ? [words(`${lead}: `), code(name)] : withError(fallback);
  };
  switch (v.failureClass) {
    case 'needs-arguments': {
      const missing = missingArguments(spec);
      return missing.length === 0
        ? withError('could not be built automatically: no constructor arguments that build it were found')
        : [words(`could not be built automatically: needs ${article(missing)}`), ...names(missing)];
    }
    case 'forward-error':
      return withError('built, but no probe input ran forward');
    case 'backward-error':
      return withError('ran forward, but backward failed');
    case 'missing-dependency': {
      const needs = (v.blockedBy ?? [])
        .map((b) => b.distribution)
        .filter((d) => IDENTIFIER.test(d.replace(/[.-]/g, '_')));
      return needs.length
        ? [words('blocked: needs '), ...names(needs)]
        : withError('blocked: needs a distribution that is not installed');
    }
    case 'native-extension':
      return detailName(v)
        ? [words('needs compiled extensions ('), code(detailName(v)!), words(')')]
        : withError('needs compiled extensions');
    case 'unresolved-name':
      return withName('a name could not be resolved', 'a name could not be resolved');
    case 'missing-module':
      return withName('a module it imports is not in the assembled file', 'a module it imports is missing');
    case 'syntax':
      return withError('the assembled file does not parse');
    case 'compile':
      return withError('the module does not compile, or raises when imported');
    case 'timeout':
      return [words(`stopped at the time limit${during(v)}: it ran too long to validate`)];
    case 'memory':
      return [words(`stopped${during(v)}: it needed more memory than validation allows`)];
    case 'crashed':
      return withError(`the process died without a result${during(v)}`);
    case 'sandbox-violation': {
      // The violation (`network: connect ...`) says more than the exception the refusal raised.
      const what = v.failureDetail ? capText(String(v.failureDetail), RUN_LIMITS.detailChars) : error;
      return [
        words(`refused by the sandbox: it tried to reach outside it${what ? ': ' : ''}`),
        ...(what ? [code(what)] : []),
      ];
    }
    case 'protocol-error':
      return withError("its result could not be read: the run's record broke the protocol");
    case 'environment':
      return withError('not the block: the validation environment failed it (a problem of the machine it ran on)');
    default:
      return withError(v.failureClass ? `failed (${capText(v.failureClass, 64)})` : 'failed, cause not recorded');
  }
}
