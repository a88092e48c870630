// Blocks that did not pass, grouped as the NN-RAG paper (arXiv 2512.04329) groups its 348 failures of 1,289 —
// external C++/CUDA ops, complex/circular dependencies, dynamic metaprogramming, repository-specific
// utilities/configuration — plus the groups the paper has none for (not installed here, our harness could not run
// it, the sandbox, imported and then failed). One ordered table, first match wins, read from a published record's
// status, failure class, neutral reason and the block's own diagnostics, so stats.json, the stats page and the
// paper bench (which reads stats.json) group alike. docs/catalog.md ("Failure causes, as the paper groups them")
// prints it (causeRulesMarkdown); test/contract/cause-groups.test.ts checks each row on a real failure.
//   native-extension  ModuleNotFoundError: No module named 'mmcv._ext'                     -> native-ops
//   unresolved-name   NameError: name 'SEBlock' is not defined   + resolve: cannot resolve 'SEBlock': no binding  -> metaprogramming
//   needs-arguments   KeyError: 'ResNet is not in the mmdet::model registry'              -> repository-utilities
import type { HarnessFacts } from './harness.ts';

/** A group, in the order tables show them: the paper's four first, then ours. */
export interface CauseGroup {
  id: string;
  /** The heading a table shows: the paper's words for its four. */
  label: string;
  /** Whether the paper counts this group (its failure analysis); false: the paper has no group for it. */
  paper: boolean;
}

export const CAUSE_GROUPS = [
  { id: 'native-ops', label: 'External C++/CUDA ops', paper: true },
  { id: 'dependencies', label: 'Complex/circular dependencies', paper: true },
  { id: 'metaprogramming', label: 'Dynamic metaprogramming', paper: true },
  { id: 'repository-utilities', label: 'Repository-specific utilities/configuration', paper: true },
  { id: 'not-installed', label: 'A distribution not installed here (blocked)', paper: false },
  { id: 'harness', label: 'Our harness could not build or run it (not run automatically)', paper: false },
  { id: 'sandbox', label: 'Refused by the sandbox, or the process died', paper: false },
  { id: 'import-other', label: 'Did not import, for another reason', paper: false },
  { id: 'after-import', label: 'Imported, then failed building or running', paper: false },
] as const satisfies readonly CauseGroup[];

export type CauseGroupId = (typeof CAUSE_GROUPS)[number]['id'];
export const CAUSE_GROUP_IDS = CAUSE_GROUPS.map((g) => g.id) as unknown as readonly [CauseGroupId, ...CauseGroupId[]];

/** What a rule reads: the published record's status, class and reason, and the block's diagnostics. */
export interface CauseFacts extends HarnessFacts {
  status: 'failed' | 'not-run' | 'blocked';
  reason?: (NonNullable<HarnessFacts['reason']> & { missing?: readonly string[] }) | null;
  /** The block's diagnostics (resolve's `unresolved-name`, assemble's `import-time-cycle`...). */
  diagnostics?: readonly { code: string; message: string }[];
}

export interface CauseRule {
  id: string;
  group: CauseGroupId;
  /** When it fires, for the docs table. */
  when: string;
  /** Why this group, for the docs table. */
  why: string;
  test: (facts: CauseFacts) => boolean;
}

const message = (f: CauseFacts) => f.reason?.message ?? '';

/** Names a failure message quotes: `name 'SEBlock' is not defined` → SEBlock; dotted ones by each part as well. */
function quotedNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/'([A-Za-z_][\w.]*)'/g)) {
    out.add(m[1]);
    for (const part of m[1].split('.')) if (part) out.add(part);
  }
  return out;
}

/**
 * Names resolve reported it could not bind (`cannot resolve 'SEBlock': no binding of 'SEBlock' in models.common`),
 * with the reason; `cycle` picks those it gave up on as an import cycle.
 */
function unresolvedNames(f: CauseFacts, cycle: boolean): Set<string> {
  const out = new Set<string>();
  for (const d of f.diagnostics ?? []) {
    if (d.code !== 'unresolved-name') continue;
    const m = /^cannot resolve '([^']+)': (.*)$/.exec(d.message);
    if (!m || (m[2] === 'import cycle') !== cycle || /TYPE_CHECKING/.test(m[2])) continue;
    out.add(m[1]);
    out.add(m[1].split('.').pop()!);
  }
  return out;
}

/** Whether the failure names a name resolve reported unbound (as an import cycle when `cycle`). */
const namesUnresolved = (f: CauseFacts, cycle: boolean) => {
  const said = unresolvedNames(f, cycle);
  return [...quotedNames(message(f))].some((n) => said.has(n));
};

const IMPORT_STAGES = ['parse', 'compile', 'import'];
const importStage = (f: CauseFacts) => (f.reason?.stage ?? null) === null || IMPORT_STAGES.includes(f.reason!.stage!);

/** Configuration files a block reads at build time (`yolov5s.yaml`, `cfg.py`): the repository's own configuration. */
const CONFIG_FILE = /no such file or directory: '[^']*\.(ya?ml|json|cfg|ini|toml|py)'/i;

export const CAUSE_RULES: readonly CauseRule[] = [
  {
    id: 'blocked',
    group: 'not-installed',
    when: 'status `blocked`',
    why: 'it needs a distribution not installed here (`blockedBy`): not the code, and not a group of the paper',
    test: (f) => f.status === 'blocked',
  },
  {
    id: 'native-extension',
    group: 'native-ops',
    when: 'class `native-extension`',
    why: 'compiled C++/CUDA ops (`mmcv._ext`, `detectron2._C`, `torch.ops`): what the paper calls external ops',
    test: (f) => f.failureClass === 'native-extension',
  },
  {
    id: 'circular-import',
    group: 'dependencies',
    when: 'message `circular import` or `partially initialized module`',
    why: "Python's own word for an import cycle",
    test: (f) => /circular import|partially initiali[sz]ed module/i.test(message(f)),
  },
  {
    id: 'cycle-name',
    group: 'dependencies',
    when: 'the message quotes a name resolve gave up on as an import cycle (`unresolved-name`: `import cycle`)',
    why: 'the name is reached only through an import cycle',
    test: (f) => namesUnresolved(f, true),
  },
  {
    id: 'dynamic-name',
    group: 'metaprogramming',
    when: 'the message quotes a name resolve could not bind (`unresolved-name`; not an import cycle, not `TYPE_CHECKING`)',
    why: 'no statement binds it: it is made at run time (`getattr`, `globals()`, `exec`, a string registry), or never',
    test: (f) => namesUnresolved(f, false),
  },
  {
    id: 'module-namespace',
    group: 'metaprogramming',
    when: "message `'types.SimpleNamespace' object has no attribute`",
    why: 'a member of a module object read dynamically, missing from the namespace nnblocks assembles for it (the members read through attributes)',
    test: (f) => /'types\.SimpleNamespace' object has no attribute/.test(message(f)),
  },
  {
    id: 'metaclass',
    group: 'metaprogramming',
    when: 'message names `metaclass`, `__init_subclass__` or `__class_getitem__`',
    why: 'classes made or changed by metaclasses and class hooks',
    test: (f) => /metaclass|__init_subclass__|__class_getitem__/.test(message(f)),
  },
  {
    id: 'registry',
    group: 'repository-utilities',
    when: 'message names a registry, `register_module`, `build_from_cfg` or `ConfigDict`',
    why: "the repository's registries and config objects (`ResNet is not in the mmdet::model registry`)",
    test: (f) => /registr(y|ies)\b|register_module|build_from_cfg|ConfigDict/i.test(message(f)),
  },
  {
    id: 'config-file',
    group: 'repository-utilities',
    when: 'message `No such file or directory` naming a `.yaml`, `.yml`, `.json`, `.cfg`, `.ini`, `.toml` or `.py` file',
    why: "it reads the repository's configuration files (`yolov5s.yaml`), which are not part of the block",
    test: (f) => CONFIG_FILE.test(message(f)),
  },
  {
    id: 'config-argument',
    group: 'repository-utilities',
    when: 'class `needs-arguments`, a missing parameter named `*cfg*` or `*config*`',
    why: "it takes the repository's configuration object, which nothing but the repository makes",
    test: (f) => f.failureClass === 'needs-arguments' && (f.reason?.missing ?? []).some((p) => /cfg|config/i.test(p)),
  },
  {
    id: 'missing-module',
    group: 'dependencies',
    when: 'class `missing-module`',
    why: "an import of the corpus's own code (or a submodule an installed distribution lacks) that assembly did not carry",
    test: (f) => f.failureClass === 'missing-module',
  },
  {
    id: 'unresolved-name',
    group: 'dependencies',
    when: 'class `unresolved-name`',
    why: 'a name the assembled module lacks (`NameError`, `cannot import name`) that resolve did not flag: a dependency not carried',
    test: (f) => f.failureClass === 'unresolved-name',
  },
  {
    id: 'not-run',
    group: 'harness',
    when: 'status `not-run` (a harness rule said so, contract/harness.ts)',
    why: "our harness found no arguments or input, or ran out of the budget: the paper's criterion stops at import",
    test: (f) => f.status === 'not-run',
  },
  {
    id: 'sandbox',
    group: 'sandbox',
    when: 'class `sandbox-violation`, `crashed` or `protocol-error`',
    why: 'the sandbox refused what it did, or the process died without a result',
    test: (f) => ['sandbox-violation', 'crashed', 'protocol-error'].includes(f.failureClass ?? ''),
  },
  {
    id: 'import-other',
    group: 'import-other',
    when: 'stage parse, compile or import, or none',
    why: "it did not import (a syntax error, an exception in the module body, a hang): a failure by the paper's criterion, in none of its groups",
    test: importStage,
  },
  {
    id: 'after-import',
    group: 'after-import',
    when: 'anything else (stage build, forward or backward)',
    why: "its own code raised building or running it: the paper's import-only criterion does not run it",
    test: () => true,
  },
];

/** The first rule that fires on a block that did not pass (`after-import` fires on anything). */
export function causeRule(facts: CauseFacts): CauseRule {
  return CAUSE_RULES.find((r) => r.test(facts))!;
}

/** The table docs/catalog.md shows (a test keeps the two in sync). */
export function causeRulesMarkdown(): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const label = new Map<string, string>(CAUSE_GROUPS.map((g) => [g.id, g.paper ? g.label : `ours: ${g.label}`]));
  return [
    '| # | rule | group | when | why |',
    '| --- | --- | --- | --- | --- |',
    ...CAUSE_RULES.map(
      (r, i) => `| ${[i + 1, `\`${r.id}\``, label.get(r.group), esc(r.when), esc(r.why)].join(' | ')} |`,
    ),
  ].join('\n');
}
