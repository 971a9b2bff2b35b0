// Invokes a Lambda bundle the way the Lambda runtime does: import the ESM file, call
// `handler(event, context)`. Runs on the Node given by the caller (the smoke test: a real Node 22).
// Usage: node invoke-bundle.mjs <bundle index.mjs> <event.json> <result.json> <function name>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventFile, resultFile, functionName] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const region = process.env.AWS_REGION;
const account = process.env.SMOKE_ACCOUNT_ID;
const started = Date.now();
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:${region}:${account}:function:${functionName}`,
  memoryLimitInMB: '1024',
  awsRequestId: `smoke-${started}`,
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'smoke',
  getRemainingTimeInMillis: () => 30_000 - (Date.now() - started),
  done() {},
  fail() {},
  succeed() {},
};
const mod = await import(pathToFileURL(bundle).href);
try {
  const result = await mod.handler(event, context);
  writeFileSync(resultFile, JSON.stringify({ ok: true, result: result ?? null, node: process.version }));
} catch (error) {
  writeFileSync(
    resultFile,
    JSON.stringify({
      ok: false,
      error: { name: error?.name, constructorName: error?.constructor?.name, message: error?.message },
      node: process.version,
    }),
  );
}
process.exit(0);
