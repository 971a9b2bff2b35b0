/**
 * report — direct invoke only (`serverless invoke -f report -d '{"cluster":"prod","region":"eu-west-1"}'`,
 * `aws lambda invoke`): `{cluster?, region?, source?: "fresh"|"stored"}` → the report as JSON with
 * its Markdown rendering inside. Read-only.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { buildReport, type ReportRequest, ReportRequestError } from '../shared/app/build-report.ts';
import { createSnapshotStore } from '../shared/app/wiring.ts';
import { createCaptureWiring } from '../shared/app/wiring-capture.ts';
import { tryAccountOfFunctionArn } from '../shared/app/wiring-env.ts';
import { isRegionCode } from '../shared/core/model.ts';
import { coldStartConfig, errorFields, logger, once } from './lib/runtime.ts';

const deps = once(() => ({
  capture: createCaptureWiring(),
  snapshots: createSnapshotStore(coldStartConfig(), process.env),
}));

export function parseReportRequest(event: unknown): ReportRequest {
  const input = event === null || event === undefined || event === '' ? {} : event;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ReportRequestError(
      'expected {"cluster"?: string, "region"?: string, "source"?: "fresh" | "stored"}',
    );
  }
  const { cluster, region, source, ...rest } = input as Record<string, unknown>;
  const problems: string[] = [];
  if (Object.keys(rest).length > 0) problems.push(`unknown field(s) ${Object.keys(rest).join(', ')}`);
  if (cluster !== undefined && (typeof cluster !== 'string' || cluster === ''))
    problems.push('cluster must be a name');
  if (region !== undefined && (typeof region !== 'string' || !isRegionCode(region))) {
    problems.push('region must be a Region');
  }
  if (source !== undefined && source !== 'fresh' && source !== 'stored')
    problems.push('source must be fresh or stored');
  if (problems.length > 0) throw new ReportRequestError(`invalid report request: ${problems.join('; ')}`);
  return {
    ...(typeof cluster === 'string' ? { cluster } : {}),
    ...(typeof region === 'string' ? { region } : {}),
    ...(source === 'fresh' || source === 'stored' ? { source } : {}),
  };
}

export async function report(event: unknown, context: Context) {
  const started = Date.now();
  try {
    const request = parseReportRequest(event);
    if (request.cluster !== undefined)
      logger.appendKeys({ cluster: `${request.region ?? '*'}/${request.cluster}` });
    const config = coldStartConfig();
    const account = tryAccountOfFunctionArn(context.invokedFunctionArn);
    const result = await buildReport(
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
    logger.info('report built', {
      clusters: result.clusters.map((c) => ({
        cluster: `${c.region}/${c.cluster}`,
        findings: c.findings.length,
        whatIf: c.whatIf.length,
        error: c.error,
      })),
      regionErrors: result.errors,
      markdownChars: result.markdown.length,
      durationMs: Date.now() - started,
    });
    return result;
  } catch (error) {
    logger.error('report failed', { ...errorFields(error), durationMs: Date.now() - started });
    throw error;
  }
}

export const handler = middy(report).use(injectLambdaContext(logger, { resetKeys: true }));
