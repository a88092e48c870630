// `build-info.json` (schemas/catalog/build-info.schema.json): how the catalog was built — the one record that may
// carry a timestamp — with the sandbox upstream code ran in and the environment blocks were validated with.
import { common } from './common.ts';
import { DEVICE_PATTERN } from './rules.ts';
import { Enum, OrNull, refs, schemaFile, Type, type Static } from './schema.ts';

const definitions = {
  /** A requirement as pip normalizes it: lowercase, `-` only. */
  distribution: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,98}[a-z0-9])?$' }),
  askers: Type.Array(Type.String({ pattern: '^(config|[a-z0-9][a-z0-9_-]{0,63})$' }), {
    description: 'Who asked for a requirement: `config`, or source ids.',
    maxItems: 100,
  }),
};
const local = refs('#/definitions/', definitions);

/**
 * How upstream code ran: measured inside the sandbox by the runner (uid, capabilities, no_new_privs, seccomp from
 * /proc/self/status), not assumed from the command line. See docs/validate.md ("Sandbox").
 */
const sandbox = Type.Object(
  {
    /** false only with --no-sandbox: upstream code ran unconfined, as the user running nnblocks. */
    enabled: Type.Boolean(),
    /** uid and gid upstream code ran as, as it saw them (65534 inside the sandbox). */
    uid: Type.Integer({ minimum: 0 }),
    gid: Type.Integer({ minimum: 0 }),
    /** Host uid of the sandbox's processes: 65534 when nnblocks runs as root, the user's own uid otherwise. */
    hostUid: Type.Integer({ minimum: 0 }),
    /** Effective capabilities upstream code had, as the CapEff hex mask; `0000000000000000` when all were dropped. */
    capEff: Type.String({ pattern: '^[0-9a-f]{16}$' }),
    noNewPrivs: Type.Boolean(),
    /** Whether the syscall filter (ptrace, pidfd_getfd, process_vm_*, mount, keyctl, bpf, userfaultfd...) was on. */
    seccomp: Type.Boolean(),
    /** Device blocks ran on (cpu or cuda). */
    device: Type.String({ pattern: DEVICE_PATTERN }),
    /** Size cap of each block's private /tmp, in bytes; null without a sandbox. */
    tmpBytes: OrNull(Type.Integer({ minimum: 0 })),
    /** Compiled op libraries of installed distributions loaded before blocks ran (`torchvision/_C...so`). */
    nativeLibraries: Type.Optional(
      Type.Array(
        Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,99}/(_C|_ext)(_stable)?(\\.[A-Za-z0-9_-]{1,64}){0,8}\\.so$' }),
        {
          description:
            'Compiled op libraries of installed distributions loaded before blocks ran, as <package>/<file>.',
          maxItems: 64,
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      'How upstream code ran during validation, measured inside the sandbox (SandboxReport in contract/build-info.ts); absent when nothing was validated.',
  },
);

/**
 * The validation environment (build-info.json `environment`, the stats page): the interpreter, torch and CUDA, the
 * installed set as a count and a digest (the validation cache keys on it), the requirements installed for the
 * corpus and those that could not be. No path of the machine. See docs/config.md ("environment").
 */
const environment = Type.Object(
  {
    /**
     * `managed`: an environment nnblocks made (torch from pip); `named`: the interpreter the config or $NNBLOCKS_PYTHON
     * named.
     */
    kind: Enum(['managed', 'named']),
    /** Python version, `3.11.2`. */
    python: Type.String({ pattern: '^[0-9]+(\\.[0-9]+){1,2}[a-z0-9+.]{0,16}$' }),
    /** torch.__version__, `2.14.1+cu130`. */
    torch: Type.String({ pattern: '^[0-9A-Za-z.+_-]{1,64}$' }),
    torchvision: OrNull(Type.String({ pattern: '^[0-9A-Za-z.+_-]{1,64}$' })),
    /** The CUDA version torch was built for (torch.version.cuda); null for a CPU build. */
    cuda: OrNull(Type.String({ pattern: '^[0-9.]{1,16}$' })),
    /** Distributions installed, base and requirements together. */
    packages: Type.Integer({ minimum: 0 }),
    /** sha256 over their sorted `name==version` lines. */
    digest: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    /** Requirements installed for the corpus, with the version installed and who asked (`config`, source ids). */
    requirements: Type.Array(
      Type.Object(
        {
          name: local.distribution(),
          version: OrNull(Type.String({ pattern: '^[0-9A-Za-z.+!_-]{1,64}$' })),
          from: local.askers(),
        },
        { additionalProperties: false },
      ),
      { maxItems: 2000 },
    ),
    /** Requirements that could not be installed, with why. */
    missing: Type.Array(
      Type.Object(
        {
          name: local.distribution(),
          spec: Type.String({ maxLength: 300 }),
          from: local.askers(),
          reason: Type.String({ maxLength: 500 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 2000 },
    ),
  },
  {
    additionalProperties: false,
    description:
      "What the blocks were validated with (EnvironmentReport in contract/build-info.ts): interpreter, torch, CUDA, the installed set's size and digest, the corpus's requirements installed and missing. No machine paths.",
  },
);

const buildInfo = Type.Object(
  {
    formatVersion: common.ref.formatVersion(),
    /** ISO 8601 UTC; the only timestamp in the catalog. */
    builtAt: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z$' }),
    nnblocksVersion: common.ref.nonEmpty(),
    /**
     * Config file the build ran with, relative to its project root (`content/corpus.json`; `corpus.json` for a config
     * outside a `content/` folder), posix: the block page's extract command passes it back (`--config`). Never a path
     * of the machine that built.
     */
    config: Type.Optional(
      Type.String({
        description: 'The config file relative to the project root, posix; never absolute, never climbing out.',
        pattern: '^(?![/\\\\])(?![A-Za-z]:)(?!.*(^|/)\\.\\.(/|$))[^\\\\\\u0000-\\u001f]{1,400}$',
      }),
    ),
    /** The config's `name` ("shown on the site"): the site's home and stats pages say which corpus they show. */
    corpusName: Type.Optional(common.ref.nonEmpty()),
    /** Wall time of the whole build. */
    durationMs: Type.Optional(Type.Number({ minimum: 0 })),
    /** Stages that ran, in order. */
    stages: Type.Optional(
      Type.Array(
        Type.Object({ stage: Type.String(), ms: Type.Number({ minimum: 0 }) }, { additionalProperties: false }),
      ),
    ),
    /** e.g. `node v20.20.2`, `torch 2.6.0`. */
    tools: Type.Optional(
      Type.Array(Type.Object({ name: Type.String(), version: Type.String() }, { additionalProperties: false })),
    ),
    /** How upstream code ran during validation; absent when nothing was validated. */
    sandbox: Type.Optional(sandbox),
    /** What the blocks were validated with; absent when the build did not validate. */
    environment: Type.Optional(environment),
  },
  { additionalProperties: false },
);

/** schemas/catalog/build-info.schema.json. */
export const BUILD_INFO_SCHEMA = schemaFile(
  'catalog/build-info.schema.json',
  {
    title: 'nnblocks catalog: build-info.json',
    description: 'The one record that may carry a timestamp. See pipeline/contract/build-info.ts (BuildInfo).',
  },
  buildInfo,
  definitions,
);

export type BuildInfo = Static<typeof buildInfo>;
export type SandboxReport = Static<typeof sandbox>;
export type EnvironmentReport = Static<typeof environment>;
