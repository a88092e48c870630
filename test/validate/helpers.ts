// Shared fixture plumbing for the validate tests: inline Python modules written to a temp folder, as ValidateItems.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { testPython, testRuntimeRoots } from '../helpers/python.ts';
import { writeTree } from '../helpers/tree.ts';
import type { ValidateItem, ValidateOptions, ValidationRecord } from '../../pipeline/validate/types.ts';

/** Writes one module per fixture (`<name>.py`, class `Block` unless given) and returns items keyed by name. */
export function fixtureItems(
  fixtures: Record<
    string,
    | string
    | {
        code: string;
        className?: string;
        blocked?: string[];
        overrides?: ValidateItem['overrides'];
        original?: ValidateItem['original'];
        usage?: ValidateItem['usage'];
      }
  >,
  root?: string,
): { root: string; items: ValidateItem[] } {
  const tree: Record<string, string> = {};
  for (const [name, f] of Object.entries(fixtures)) tree[`${name}.py`] = typeof f === 'string' ? f : f.code;
  const dir = writeTree(tree, root);
  const items = Object.entries(fixtures).map(([name, f]): ValidateItem => {
    const spec = typeof f === 'string' ? { code: f } : f;
    return {
      id: `fixture:${name}`,
      importRoot: dir,
      module: name,
      className: spec.className ?? 'Block',
      blockedPackages: spec.blocked ?? ['upstream_pkg'],
      moduleHash: createHash('sha256').update(spec.code).digest('hex'),
      ...(spec.overrides ? { overrides: spec.overrides } : {}),
      ...(spec.original ? { original: spec.original } : {}),
      ...(spec.usage ? { usage: spec.usage } : {}),
    };
  });
  return { root: dir, items };
}

export function baseOptions(extra: Partial<ValidateOptions> = {}): ValidateOptions {
  return {
    python: testPython(),
    runtimeRoots: testRuntimeRoots(),
    device: 'cpu',
    sandbox: true,
    timeoutMs: 20_000,
    workers: 2,
    ...extra,
  };
}

export function byName(records: ValidationRecord[]): Record<string, ValidationRecord> {
  return Object.fromEntries(records.map((r) => [r.id.replace(/^fixture:/, ''), r]));
}

/**
 * This test process's id at a fixed width (Linux pids have at most 7 digits): put in the names and arguments of the
 * processes a test looks for afterwards, it matches only them, and one run's id is never part of another's.
 */
export const RUN_ID = String(process.pid).padStart(7, '0');

/** A process name (PR_SET_NAME) unique to this run: the kernel keeps 15 bytes of a name, so the prefix gets 8. */
export function runProcessName(prefix: string): string {
  if (prefix.length > 8) throw new Error(`runProcessName("${prefix}"): at most 8 characters before the run id`);
  return `${prefix}${RUN_ID}`;
}

/**
 * Host processes whose command line or name contains `needle` (ps, so no mocks of what is running). The whole
 * machine is searched because an escapee is one that left the run's process group and session, so `needle` must be
 * this run's own — RUN_ID in it, or a folder the run made — never what another run, another user or an unrelated
 * program may show (`sleep 300`, a fixed name).
 */
export function processesMatching(needle: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,comm,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(needle) && !l.includes('ps -eo'));
}

/** A block whose constructor runs `body` (Python, unindented) after `prelude`; its forward returns its input. */
export function hostileBlock(prelude: string, body: string): string {
  const indented = body
    .trim()
    .split('\n')
    .map((l) => `        ${l}`)
    .join('\n');
  return (
    prelude +
    `class Block(nn.Module):\n    def __init__(self):\n        super().__init__()\n${indented}\n` +
    `    def forward(self, x):\n        return x\n`
  );
}

/**
 * A block module (class `Block`) whose one output is `FOUND`, a number its module sets at import from `prelude`
 * (Python, run first): what the block's child found (modules, probes, the time it started). It builds, runs forward
 * and back-propagates as it is; `dtype` float64 keeps a large number such as a time exact in the checksum.
 */
export function reportingBlock(prelude: string, dtype: 'float32' | 'float64' = 'float32'): string {
  return `${prelude.trim()}
import torch

class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(1, dtype=torch.${dtype}))

    def forward(self, x):
        return self.scale * 0 * x.sum() + FOUND
`;
}

const RUNNER = join(import.meta.dirname, '..', '..', 'pipeline', 'validate', 'python');

/** What `code` prints, in the test interpreter (isolated, torch._dynamo's compiler off). */
export const inPython = (code: string): string =>
  execFileSync(testPython(), ['-I', '-c', code], { encoding: 'utf8', env: { TORCHDYNAMO_DISABLE: '1' } }).trim();

/** What `lines` print as JSON, run with the runner's package importable and torch imported. */
export const inRunner = <T>(lines: string[]): T =>
  JSON.parse(
    inPython(
      ['import json, sys', `sys.path.insert(0, ${JSON.stringify(RUNNER)})`, 'import torch', ...lines].join('\n'),
    ),
  ) as T;

/** Whether the test interpreter's torch is 2.x or later. */
export const torch2 = (): boolean =>
  inPython('import torch; print(int(torch.__version__.split(".")[0]) >= 2)') === 'True';
