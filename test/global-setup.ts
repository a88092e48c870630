// Vitest global setup: one id per test run, handed to every test file, so that a fixture too costly to build per
// file (the site tests' built site, test/site/helpers/site-fixture.ts) is built once per run and shared; and one
// temp folder per run that every fixture tree goes under (test/helpers/tree.ts), removed when the run ends, so that
// a run leaves no fixtures behind in the system's temp folder (the suite writes some 2,000 of them).
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): () => void {
  project.provide('runId', randomUUID());
  const root = mkdtempSync(join(tmpdir(), 'nnb-test-run-'));
  // World-readable like the fixtures under it: the validate sandbox runs as another uid (see tempDir).
  chmodSync(root, 0o755);
  project.provide('tempRoot', root);
  return () => rmSync(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Differs between runs, equal across the files of one run. */
    runId: string;
    /** The folder this run's fixture trees go under; removed at the end of the run. */
    tempRoot: string;
  }
}
