// Public surface of the validate stage: what the orchestrator (pipeline/run/) calls. Tests and benchmarks reach
// the stage's own files directly.
export { validateRun } from './validate.ts';
export { summarize } from './summary.ts';
export { bwrapAvailable } from '../sandbox/bwrap.ts';
export * from './types.ts';
