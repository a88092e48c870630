// Worker-thread entry for parallel fingerprinting: loads the TypeScript through tsx (workers don't inherit the
// parent's loader, neither under the CLI nor under vitest), then answers { batch, codes } with fingerprints.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { fingerprint, fingerprintContext } = await import('./fingerprint.ts');
const ctx = fingerprintContext(workerData.params);

parentPort.on('message', (msg) => {
  try {
    const fingerprints = msg.codes.map((code) => fingerprint(code, ctx));
    // Typed arrays move to the parent instead of being copied.
    const transfer = fingerprints.flatMap((f) => [
      f.shingles.buffer,
      f.shingleSig.buffer,
      f.bag.buffer,
      f.bagSig.buffer,
    ]);
    parentPort.postMessage({ batch: msg.batch, fingerprints }, transfer);
  } catch (err) {
    parentPort.postMessage({ batch: msg.batch, error: String(err && err.stack ? err.stack : err) });
  }
});
parentPort.postMessage({ ready: true });
