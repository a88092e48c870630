// Vitest global setup: one id per test run, handed to every test file, so that a fixture too costly to build per
// file (the site tests' built site, test/site/helpers/site-fixture.ts) is built once per run and shared.
import { randomUUID } from 'node:crypto';
import type { TestProject } from 'vitest/node';

export default function setup(project: TestProject): void {
  project.provide('runId', randomUUID());
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Differs between runs, equal across the files of one run. */
    runId: string;
  }
}
