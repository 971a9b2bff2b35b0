// Invokes a Lambda handler module the way the runtime does — `handler(event, context)` — with
// the remaining time counted from the invocation (not from the import). Run under tsx to invoke
// the TypeScript source. Usage: node --import tsx invoke-handler.mjs <module> <event.json> <result.json> <remaining ms>
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [module, eventFile, resultFile, remaining] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const mod = await import(pathToFileURL(module).href);
const started = Date.now();
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'onEksEvent',
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:${process.env.TEST_ACCOUNT_ID}:function:onEksEvent`,
  memoryLimitInMB: '1024',
  awsRequestId: `test-${started}`,
  logGroupName: '/aws/lambda/onEksEvent',
  logStreamName: 'test',
  getRemainingTimeInMillis: () => Number(remaining) - (Date.now() - started),
};
process.stdout.write('INVOKED\n');
try {
  const result = await mod.handler(event, context);
  writeFileSync(resultFile, JSON.stringify({ ok: true, result: result ?? null }));
} catch (error) {
  writeFileSync(
    resultFile,
    JSON.stringify({ ok: false, error: { name: error?.name, message: error?.message } }),
  );
}
process.exit(0);
