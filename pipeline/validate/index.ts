// Public surface of the validate stage.
export {
  validateBlocks,
  runnerVersion,
  DEFAULT_SEED,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_MEMORY_BYTES,
  RUNNER_PATH,
} from './validate.ts';
export { summarize } from './summary.ts';
export { wilsonInterval } from './wilson.ts';
export { cacheKey } from './cache-key.ts';
export { bwrapAvailable, NO_SANDBOX_DETAIL } from './sandbox.ts';
export * from './types.ts';
