/**
 * Issue 8 case 5, at real size: 6,000 malformed entries in an 888 KB mapRoles. The alert state
 * was over DynamoDB's item limit, the save failed after the notices went out, and every run
 * sent 6,000 SNS and 6,000 Slack notices again without storing the snapshot. Now one digest per
 * rule stands for them (shared/core/alerts/lifecycle.ts, GROUP_ABOVE), and the state is saved (dynalite)
 * before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDynamoDbAlertStore,
  createDynamoDbClient,
} from '../../shared/adapters/dynamodb-alert-store.ts';
import { deliverAlerts } from '../../shared/app/deliver-alerts.ts';
import { runSnapshot } from '../../shared/app/run-snapshot.ts';
import { GROUP_LISTS } from '../../shared/core/alerts/lifecycle.ts';
import { createHarness, KEY, MONITOR } from '../support/app-harness.ts';
import { createStateTable, startDynalite, TEST_CREDENTIALS } from '../support/dynamodb-helpers.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

const TABLE = 'sentinel-state-storm';
const ENTRIES = 6_000;
let db: Awaited<ReturnType<typeof startDynalite>>;

beforeAll(async () => {
  db = await startDynalite();
  await createStateTable(db.dynamodb, TABLE);
});
afterAll(async () => db?.close());

/** Deterministic hex, as varied as real role names (gzip cannot fold the records into one). */
function hex(i: number, length: number): string {
  let x = (i + 1) * 2654435761;
  let out = '';
  while (out.length < length) {
    x = (x ^ (x >>> 13)) * 1274126177;
    x = (x ^ (x >>> 16)) >>> 0;
    out += x.toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

/** One aws-auth entry whose groups merged into one string (a YAML slip), ~148 bytes. */
function malformedEntry(i: number): string {
  return [
    `- rolearn: arn:aws:iam::111122223333:role/svc-${hex(i, 18)}`,
    `  username: svc-${hex(i + 7_000, 12)}`,
    '  groups:',
    `    - deployers - team-${hex(i + 14_000, 20)}`,
  ].join('\n');
}

describe('an alert storm of 6,000 malformed aws-auth entries (issue 8 case 5)', () => {
  it('sends one digest per channel on the first run, nothing on the next, and stores the snapshot', async () => {
    const h = createHarness(loadScenario('a-karpenter-shares-last-nodegroup-role'));
    const awsAuth = h.cluster.state.awsAuth;
    if (awsAuth.status !== 'ok') throw new Error('aws-auth not ok');
    const slip = Array.from({ length: ENTRIES }, (_, i) => malformedEntry(i)).join('\n');
    awsAuth.data.data.mapRoles = `${awsAuth.data.data.mapRoles ?? ''}\n${slip}`;
    expect(Buffer.byteLength(awsAuth.data.data.mapRoles)).toBeGreaterThan(880_000);

    // Items near DynamoDB's size limit take dynalite a while on a loaded machine: a generous budget.
    const dynamodb = createDynamoDbClient('eu-west-1', {
      endpoint: db.endpoint,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
      callBudgetMs: 60_000,
    });
    const alerts = createDynamoDbAlertStore({ dynamodb, tableName: TABLE });
    const channels = { sns: { minSeverity: 'low' as const }, slack: { minSeverity: 'high' as const } };
    const deps = {
      capture: h.cluster.deps,
      snapshots: h.snapshots,
      deliver: (
        key: typeof KEY,
        findings: Parameters<typeof deliverAlerts>[2],
        scope: Parameters<typeof deliverAlerts>[3],
      ) =>
        deliverAlerts(
          { alerts, senders: [h.sns, h.slack], clock: h.cluster.clock },
          key,
          findings,
          scope,
          channels,
        ),
      queue: h.queue,
      clock: h.cluster.clock,
      monitorPrincipalArn: MONITOR,
      followUp: { delaySeconds: 60, maxAttempts: 3 },
      idempotency: h.idempotency,
      idempotencyTtlSeconds: 86_400,
    };
    const run = () => {
      h.cluster.clock.advance(300_000);
      return runSnapshot(deps, { ...KEY, reason: 'schedule' });
    };
    const malformed = (notices: typeof h.sns.delivered) =>
      notices.filter((n) => n.finding.ruleId === 'aws-auth/group-looks-malformed');

    const first = await run();
    expect(first.outcome).toBe('evaluated');
    expect(first.findings).toBeGreaterThan(ENTRIES);
    const sns1 = malformed(h.sns.delivered);
    const slack1 = malformed(h.slack.delivered);
    expect(sns1).toHaveLength(1);
    expect(slack1).toHaveLength(1);
    expect(sns1[0]?.finding.evidence).toMatchObject({ grouped: ENTRIES });
    expect(sns1[0]?.finding.evidence.subjects).toHaveLength(GROUP_LISTS);
    expect(h.snapshots.items.size).toBe(1);

    const before = { sns: h.sns.delivered.length, slack: h.slack.delivered.length };
    const second = await run();
    expect(second.previous).toBe('found');
    expect(second.delivery.sent).toBe(0);
    expect(h.sns.delivered.length).toBe(before.sns);
    expect(h.slack.delivered.length).toBe(before.slack);
    expect((await alerts.load(KEY)).records.length).toBeLessThan(100);
  }, 120_000);
});
