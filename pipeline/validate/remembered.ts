// The first worker's hello, remembered between runs. Records are cached under keys that hold what the worker says
// of itself (torch version, resolved device, native libraries), so without a remembered hello a warm run starts a
// sandbox and imports torch (seconds) only to learn that every record is cached. Remembered under everything that
// decides it: a run whose interpreter, environment, runner, device, GPU, sandbox or native libraries differ asks a
// worker again. A run that starts a worker anyway remembers what that worker said.
import { createHash } from 'node:crypto';
import { sandboxHostUid } from '../sandbox/bwrap.ts';
import type { Device, ValidateCache } from './types.ts';
import { readHello, type WorkerHello } from './worker.ts';

export interface HelloInputs {
  runner: string;
  python: string;
  sites: string[];
  runtimeRoots: string[];
  environment: string | undefined;
  /** The device asked for: what the worker resolves it to is what is remembered. */
  device: Device;
  gpu: boolean;
  sandbox: boolean;
  nativeLibraries: string[];
}

/** The cache key of the hello a worker started with `inputs` gives (the sandbox's host uid included). */
export function helloKey(inputs: HelloInputs): string {
  const text = JSON.stringify({ ...inputs, hostUid: inputs.sandbox ? sandboxHostUid() : process.getuid?.() });
  return `hello:${createHash('sha256').update(text).digest('hex')}`;
}

/** The remembered hello, type-checked like a live one; null when none, or one a worker could not run blocks with. */
export function recall(cache: ValidateCache | undefined, key: string): WorkerHello | null {
  const text = cache?.get(key);
  if (text === undefined) return null;
  try {
    const hello = readHello(JSON.parse(text) as Record<string, unknown>);
    return hello && !hello.error ? hello : null;
  } catch {
    return null;
  }
}

export function remember(cache: ValidateCache | undefined, key: string, hello: WorkerHello): void {
  if (!hello.error) cache?.put(key, JSON.stringify(hello));
}
