/**
 * report — direct invoke only (`serverless invoke -f report -d '{"cluster":"prod","region":"eu-west-1"}'`,
 * `aws lambda invoke`): `{cluster?, region?, source?: "fresh"|"stored", format?: "markdown"|"html"}` →
 * the report as JSON with its Markdown rendering inside, and with `format: "html"` also `html`, the
 * self-contained page of `report --format html`. Read-only.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { buildReport, type Report } from '../shared/app/commands/report-command.ts';
import { parseReportRequest } from './lib/handler-inputs.ts';
import { outcomeLog } from './lib/outcome-log.ts';
import { coldStartConfig, logger, once } from './lib/runtime.ts';
import { tryAccountOfFunctionArn } from './wiring/env.ts';
import { createReportWiring } from './wiring/report.ts';

const deps = once(() => createReportWiring(coldStartConfig(), process.env));

export async function report(event: unknown, context: Context): Promise<Report> {
  const request = parseReportRequest(event);
  if (request.cluster !== undefined)
    logger.appendKeys({ cluster: `${request.region ?? '*'}/${request.cluster}` });
  const config = coldStartConfig();
  const account = tryAccountOfFunctionArn(context.invokedFunctionArn);
  return buildReport(
    deps(),
    request,
    {
      ...(account === undefined ? {} : { accountId: account }),
      regions: config.regions,
      monitorPrincipalArn: config.monitorPrincipalArn,
      concurrency: config.captureConcurrency,
    },
    new Date(),
  );
}

export const handler = middy(report)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(
    outcomeLog<unknown, Report>({
      done: 'report built',
      failed: 'report failed',
      fields: (result) => ({
        clusters: result.clusters.map((c) => ({
          cluster: `${c.region}/${c.cluster}`,
          findings: c.findings.length,
          whatIf: c.whatIf.length,
          error: c.error,
        })),
        regionErrors: result.errors,
        markdownChars: result.markdown.length,
        ...(result.html === undefined ? {} : { htmlChars: result.html.length }),
      }),
    }),
  );
