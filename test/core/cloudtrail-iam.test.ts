import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HANDLED_IAM_EVENTS, parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import type { Change } from '../../shared/core/predict/change.ts';

const dir = new URL('../fixtures/cloudtrail/iam/', import.meta.url);
const fixtureNames = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.replace(/\.json$/, ''))
  .sort();

// biome-ignore lint/suspicious/noExplicitAny: tests write arbitrary record shapes on purpose
function fixture(name: string): any {
  return JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'));
}

const ACCOUNT = '111122223333';
const ADMIN_ACTOR = 'arn:aws:sts::111122223333:assumed-role/platform-admin/jane.doe@example.com';
const TRUST =
  '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}';

const expected: Record<string, Change> = {
  'delete-role': { kind: 'delete-role', role: { accountId: ACCOUNT, roleName: 'payments-api' } },
  'update-assume-role-policy': {
    kind: 'update-role-trust',
    role: { accountId: ACCOUNT, roleName: 'payments-api' },
    trustPolicy: TRUST,
  },
  'detach-role-policy': {
    kind: 'detach-role-policy',
    role: { accountId: ACCOUNT, roleName: 'prod-node-role' },
    policyArn: 'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
  },
  'delete-role-policy': {
    kind: 'delete-role-policy',
    role: { accountId: ACCOUNT, roleName: 'prod-node-role' },
    policyName: 'pod-identity',
  },
  'delete-open-id-connect-provider': {
    kind: 'delete-oidc-provider',
    providerArn:
      'arn:aws:iam::111122223333:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/5C2F8E1A9B3D4C6E7F0A1B2C3D4E5F60',
  },
};

describe('parseEksEvent on IAM records', () => {
  it('has a fixture for every handled IAM event, each delivered by EventBridge in us-east-1', () => {
    expect(Object.keys(expected).sort()).toEqual(fixtureNames);
    const names = new Set(fixtureNames.map((n) => fixture(n).detail.eventName));
    for (const event of HANDLED_IAM_EVENTS) expect(names.has(event), event).toBe(true);
    for (const name of fixtureNames) {
      expect(fixture(name)).toMatchObject({
        source: 'aws.iam',
        region: 'us-east-1',
        detail: { eventSource: 'iam.amazonaws.com', awsRegion: 'us-east-1' },
      });
    }
  });

  it.each(Object.entries(expected))(
    '%s parses to an account-wide change of the record account',
    (name, change) => {
      const event = fixture(name);
      expect(parseEksEvent(event)).toEqual({
        kind: 'account-change',
        change,
        eventId: event.detail.eventID,
        eventName: event.detail.eventName,
        eventTime: event.detail.eventTime,
        region: 'us-east-1',
        accountId: ACCOUNT,
        actor: ADMIN_ACTOR,
        by: expect.objectContaining({ source: 'cloudtrail', arn: ADMIN_ACTOR }),
      });
      expect(parseEksEvent(event.detail)).toEqual(parseEksEvent(event));
    },
  );

  it('URL-decodes a form-encoded trust policy document', () => {
    const event = fixture('update-assume-role-policy');
    event.detail.requestParameters.policyDocument = encodeURIComponent(TRUST);
    const parsed = parseEksEvent(event);
    expect(parsed.kind === 'account-change' && parsed.change).toMatchObject({ trustPolicy: TRUST });
  });

  it('rejects a role name that is no IAM role name, naming where', () => {
    const event = fixture('delete-role');
    event.detail.requestParameters.roleName = 'payments api; rm -rf /';
    const parsed = parseEksEvent(event);
    expect(parsed).toMatchObject({ kind: 'invalid' });
    expect(parsed.kind === 'invalid' && parsed.reason).toContain('$.detail.requestParameters.roleName');
  });

  it('ignores an EKS event name arriving from IAM and an IAM one from EKS', () => {
    const iamRecord = fixture('delete-role');
    iamRecord.detail.eventName = 'DeleteAccessEntry';
    expect(parseEksEvent(iamRecord)).toMatchObject({
      kind: 'ignored',
      reason: expect.stringContaining('IAM call'),
    });
    iamRecord.detail.eventName = 'CreateRole';
    expect(parseEksEvent(iamRecord)).toMatchObject({ kind: 'ignored' });
    const eksRecord = fixture('delete-role');
    eksRecord.source = 'aws.eks';
    eksRecord.detail.eventSource = 'eks.amazonaws.com';
    expect(parseEksEvent(eksRecord)).toMatchObject({
      kind: 'ignored',
      reason: expect.stringContaining('EKS call'),
    });
  });

  it('ignores a failed IAM call', () => {
    const event = fixture('delete-role');
    event.detail.errorCode = 'DeleteConflictException';
    expect(parseEksEvent(event)).toMatchObject({
      kind: 'ignored',
      reason: 'the call failed: DeleteConflictException',
    });
  });
});
