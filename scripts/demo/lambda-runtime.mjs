// A local stand-in for the Lambda runtime of ONE function, in its own plain `node` process (no
// tsx loader: the bundle is imported as Lambda's Node runtime imports it). Init: import the
// bundle (timed) and report { type: 'ready', initMs }. Then each IPC message
// { type: 'invoke', id, event, context, timeoutMs } calls `handler(event, context)` with a context
// object that has Lambda's fields and methods, and answers { id, ok, result | error, durationMs }.
//
// Usage (from scripts/demo/lambda.ts): fork(this file, [bundle path], { execArgv: [], env })
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
if (!file || !process.send) {
  process.stderr.write('usage: fork(lambda-runtime.mjs, [bundle]) with an IPC channel\n');
  process.exit(2);
}

const started = performance.now();
const mod = await import(pathToFileURL(file).href);
const initMs = performance.now() - started;
if (typeof mod.handler !== 'function') {
  process.stderr.write(`${file} exports no handler\n`);
  process.exit(2);
}
process.send({ type: 'ready', initMs });

process.on('message', async (message) => {
  if (message?.type !== 'invoke') return;
  const deadline = Date.now() + message.timeoutMs;
  const context = {
    ...message.context,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  const t = performance.now();
  try {
    const result = await mod.handler(message.event, context);
    process.send({ id: message.id, ok: true, result: result ?? null, durationMs: performance.now() - t });
  } catch (error) {
    process.send({
      id: message.id,
      ok: false,
      error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) },
      durationMs: performance.now() - t,
    });
  }
});
