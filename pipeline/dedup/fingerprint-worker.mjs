// Worker-thread entry for dedup's per-code work: loads the TypeScript through tsx (workers don't inherit the
// parent's loader, neither under the CLI nor under vitest), then answers { task, start, codes } with the
// fingerprints, the own-code spans, or both from one parse ('own-code', and 'own-code-kept' as the caches keep
// them) of the codes. With `workerData.control` (two shared ints, prefetch.ts): a batch met once the first is set is
// answered `skipped`, and each batch done adds one to the second, which the parent reads while its own thread is busy
// and can't take replies.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// `workerData.nice` (prefetch.ts): this thread alone runs at that priority, so that it takes only the CPU that the
// rest of the build leaves idle. Linux keeps a nice value per thread, and setpriority(2) takes a thread's id.
if (workerData.nice !== undefined) {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), workerData.nice);
  } catch {
    // no /proc/thread-self (not Linux): the thread runs at the process's priority, only the timing differs
  }
}

register();
const { fingerprint, fingerprintContext } = await import('./fingerprint.ts');
const { ownCodeAndFingerprint, ownCodeSpans } = await import('./own-code.ts');
const { releaseTrees } = await import('../util/tree-sitter.ts');
const { keptOwnCode } = await import('./cache.ts');
const ctx = fingerprintContext(workerData.params);
const control = workerData.control ? new Int32Array(workerData.control) : null;

parentPort.on('message', async (msg) => {
  let reply;
  let transfer = [];
  try {
    if (control && Atomics.load(control, 0) !== 0) {
      reply = { start: msg.start, skipped: true };
    } else if (msg.task === 'own-code-kept') {
      // As the caches keep them, keys and all: the parent then holds no module's text while the batch runs.
      const results = msg.codes.map((code) => keptOwnCode(code, ownCodeAndFingerprint(code, ctx), workerData.params));
      reply = { start: msg.start, results };
    } else if (msg.task === 'own-spans') {
      reply = { start: msg.start, results: msg.codes.map((code) => ownCodeSpans(code)) };
    } else if (msg.task === 'own-code') {
      const results = msg.codes.map((code) => ownCodeAndFingerprint(code, ctx));
      transfer = results.flatMap(({ fingerprint: f }) => [
        f.shingles.buffer,
        f.shingleSig.buffer,
        f.bag.buffer,
        f.bagSig.buffer,
      ]);
      reply = { start: msg.start, results };
    } else {
      const fingerprints = msg.codes.map((code) => fingerprint(code, ctx));
      // Typed arrays move to the parent instead of being copied.
      transfer = fingerprints.flatMap((f) => [f.shingles.buffer, f.shingleSig.buffer, f.bag.buffer, f.bagSig.buffer]);
      reply = { start: msg.start, results: fingerprints };
    }
  } catch (err) {
    reply = { start: msg.start, error: String(err && err.stack ? err.stack : err) };
  }
  // The batch's parse trees are freed before the reply: the parent answers with the next batch at once, and a
  // worker that always has a message waiting never reaches the turn of its event loop where the trees are freed.
  await releaseTrees();
  if (control) Atomics.add(control, 1, 1);
  parentPort.postMessage(reply, transfer);
});
parentPort.postMessage({ ready: true });
