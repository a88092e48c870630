// Worker-thread entry for parallel parsing: loads the TypeScript parser through tsx (workers don't inherit the
// parent's loader, neither under the CLI nor under vitest), then answers { id, bytes } with { id, json } (the facts
// as JSON text: cheaper to send between threads than an object graph, and stored as-is).
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { parseModule } = await import('../parse/parse-module.ts');

parentPort.on('message', (msg) => {
  const results = [];
  for (const job of msg.jobs) {
    try {
      results.push({
        id: job.id,
        json: JSON.stringify(parseModule(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength))),
      });
    } catch (err) {
      results.push({ id: job.id, error: String(err && err.stack ? err.stack : err) });
    }
  }
  parentPort.postMessage({ batch: msg.batch, results });
});
parentPort.postMessage({ ready: true });
