// The nnblocks action (action.yml) that a model repository calls (docs/ci.md, "In your own repository"): a composite
// action whose steps pass actionlint, whose actions are pinned, and whose inputs are all declared; the caller's
// workflow the docs show passes actionlint and gives the action only inputs it has; and its build step, run on a
// fixture git repository, writes the catalog and the step outputs.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionlint, actionlintPackageDir } from '../../.github/scripts/lint-workflows.ts';
import { gitRepo, py, tempDir } from '../helpers/tree.ts';

const root = join(import.meta.dirname, '..', '..');
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown; dump(v: unknown): string };
const actionText = readFileSync(join(root, 'action.yml'), 'utf8');

type Step = { name?: string; id?: string; uses?: string; run?: string; shell?: string; with?: Record<string, string> };
type Action = {
  name: string;
  description: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};
const action = yaml.load(actionText) as Action;

/** The caller's workflow: the YAML block of docs/ci.md's "In your own repository" section. */
function callerSnippet(): string {
  const doc = readFileSync(join(root, 'docs', 'ci.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## In your own repository'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/ci.md: no yaml block under "In your own repository"');
  return block[1];
}

/** The action's steps as a reusable workflow's job with the same inputs, so actionlint checks their expressions. */
function actionAsWorkflow(): string {
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([k, v]) => [
      k,
      {
        description: v.description,
        type: 'string',
        required: Boolean(v.required),
        ...(v.required ? {} : { default: v.default ?? '' }),
      },
    ]),
  );
  return yaml.dump({
    name: 'action',
    on: { workflow_call: { inputs } },
    jobs: { action: { 'runs-on': 'ubuntu-24.04', steps: action.runs.steps } },
  });
}

describe('the nnblocks action', () => {
  const installed = actionlintPackageDir() !== null;

  it('is a composite action: every run step names its shell, every action is pinned to a commit SHA', () => {
    expect(action.runs.using).toBe('composite');
    for (const s of action.runs.steps) {
      if (s.run) expect(s.shell, s.name).toBe('bash');
      if (s.uses) expect(s.uses).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    }
    const uses = [...actionText.matchAll(/^\s*(?:-\s+)?uses:\s*(.+)$/gm)].map((m) => m[1].trim());
    for (const u of uses) expect(u).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('uses only inputs it declares, and declares none it does not use', () => {
    const used = new Set([...actionText.matchAll(/inputs\.([\w-]+)/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort());
    for (const [name, input] of Object.entries(action.inputs)) expect(input.description, name).toBeTruthy();
  });

  it('runs scripts of its own tree that exist and are executable', () => {
    const scripts = [...actionText.matchAll(/\$GITHUB_ACTION_PATH\/([\w./-]+)/g)].map((m) => m[1]);
    expect(scripts).toEqual(['pipeline/setup.mjs', '.github/scripts/catalog-action.sh']);
    accessSync(join(root, '.github/scripts/catalog-action.sh'), constants.X_OK);
  });

  it.skipIf(!installed)('its steps pass actionlint', async () => {
    expect(await actionlint(actionAsWorkflow(), 'action.yml')).toEqual([]);
  });

  it.skipIf(!installed)('actionlint sees the steps: a planted undeclared input is reported', async () => {
    const planted = actionAsWorkflow().replace('inputs.device', 'inputs.devise');
    expect((await actionlint(planted, 'action.yml'))!.map((p) => p.message).join('\n')).toContain('"devise"');
  });

  it.skipIf(!installed)('the caller’s workflow in docs/ci.md passes actionlint', async () => {
    expect(await actionlint(callerSnippet(), 'nnblocks.yml')).toEqual([]);
  });

  it('the caller gives the action its required inputs and no other', () => {
    const wf = yaml.load(callerSnippet()) as { jobs: Record<string, { steps?: Step[] }> };
    const steps = Object.values(wf.jobs).flatMap((j) => j.steps ?? []);
    const call = steps.find((s) => /\/nnblocks@[0-9a-f]{40}$/.test(s.uses ?? ''));
    expect(call, 'a step uses OWNER/nnblocks@<commit>').toBeDefined();
    const given = Object.keys(call!.with ?? {});
    for (const k of given) expect(Object.keys(action.inputs), k).toContain(k);
    for (const [k, v] of Object.entries(action.inputs)) if (v.required) expect(given).toContain(k);
    // The site it uploads for Pages is the folder the action writes by default.
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-pages-artifact@'));
    expect(upload?.with?.path).toBe(action.inputs.site.default);
  });

  it('its build step catalogs a repository (no validation, no site) and sets the step outputs', () => {
    const { dir } = gitRepo({
      'nnblocks.json': JSON.stringify({ name: 'my-models', sources: [{ id: 'mymodels', kind: 'path', path: '.' }] }),
      'mymodels/__init__.py': '',
      'mymodels/gate.py': py`
        import torch.nn as nn
        class Gate(nn.Module):
            def __init__(self, dim=8):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
            def forward(self, x):
                return self.fc(x).sigmoid() * x
      `,
    });
    const outputs = join(tempDir(), 'github-output');
    writeFileSync(outputs, '');
    const res = spawnSync(join(root, '.github/scripts/catalog-action.sh'), [], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: {
        ...process.env,
        CI: '1',
        CONFIG: 'nnblocks.json',
        OUT: 'nnblocks-catalog',
        SITE: '',
        VALIDATE: 'false',
        DEVICE: 'auto',
        GITHUB_OUTPUT: outputs,
        GITHUB_REPOSITORY: 'me/my-models',
      },
    });
    expect(res.status, res.stderr).toBe(0);
    expect(readFileSync(outputs, 'utf8')).toBe(`catalog=${join(dir, 'nnblocks-catalog')}\nsite=\n`);
    const stats = JSON.parse(readFileSync(join(dir, 'nnblocks-catalog', 'sources.json'), 'utf8')) as unknown;
    expect(JSON.stringify(stats)).toContain('mymodels');
  });
});
