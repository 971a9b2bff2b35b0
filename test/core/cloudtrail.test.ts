import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HANDLED_EKS_EVENTS, parseEksEvent, toIsoTimestamp } from '../../shared/core/events/cloudtrail.ts';
import type { Change } from '../../shared/core/predict/change.ts';

const dir = new URL('../fixtures/cloudtrail/', import.meta.url);
const fixtureNames = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.replace(/\.json$/, ''))
  .sort();
const fixtures = new Map(
  fixtureNames.map((name) => [name, JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8'))]),
);

/** A deep clone of a fixture, loosely typed so tests can change it. */
// biome-ignore lint/suspicious/noExplicitAny: tests write arbitrary record shapes on purpose
function fixture(name: string): any {
  const value = fixtures.get(name);
  if (value === undefined) throw new Error(`no fixture ${name}`);
  return structuredClone(value);
}

const ROLE = (name: string) => `arn:aws:iam::111122223333:role/${name}`;
const NODE_ROLE = ROLE('prod-node-role');
const ADMIN_ACTOR = 'arn:aws:sts::111122223333:assumed-role/platform-admin/jane.doe@example.com';
const TERRAFORM_ACTOR = 'arn:aws:sts::111122223333:assumed-role/ci-deployer/terraform-run-8812';
const POLICY = (name: string) => `arn:aws:eks::aws:cluster-access-policy/${name}`;

const expectedChanges: Record<string, { change: Change; actor: string }> = {
  'delete-nodegroup': {
    change: { kind: 'delete-nodegroup', nodegroupName: 'general', nodeRole: NODE_ROLE },
    actor: ADMIN_ACTOR,
  },
  'delete-nodegroup-legacy-cluster-name': {
    change: { kind: 'delete-nodegroup', nodegroupName: 'spare', nodeRole: NODE_ROLE },
    actor: TERRAFORM_ACTOR,
  },
  'create-nodegroup': {
    change: {
      kind: 'create-nodegroup',
      nodegroupName: 'batch',
      nodeRole: NODE_ROLE,
      amiType: 'AL2023_x86_64_STANDARD',
    },
    actor: TERRAFORM_ACTOR,
  },
  'create-fargate-profile': {
    change: {
      kind: 'create-fargate-profile',
      fargateProfileName: 'fp-default',
      podExecutionRoleArn: ROLE('prod-fargate-pod-execution'),
    },
    actor: TERRAFORM_ACTOR,
  },
  'delete-fargate-profile': {
    change: {
      kind: 'delete-fargate-profile',
      fargateProfileName: 'fp-default',
      podExecutionRoleArn: ROLE('prod-fargate-pod-execution'),
    },
    actor: ADMIN_ACTOR,
  },
  'create-access-entry': {
    change: {
      kind: 'create-access-entry',
      entry: {
        principalArn: ROLE('developers'),
        type: 'STANDARD',
        username: 'arn:aws:sts::111122223333:assumed-role/developers/{{SessionName}}',
        kubernetesGroups: ['dev-team'],
        createdAt: '2026-11-20T10:10:41.412Z',
        modifiedAt: '2026-11-20T10:10:41.412Z',
        accessPolicies: [],
      },
    },
    actor: TERRAFORM_ACTOR,
  },
  'create-access-entry-ec2-linux': {
    change: {
      kind: 'create-access-entry',
      entry: {
        principalArn: NODE_ROLE,
        type: 'EC2_LINUX',
        username: 'system:node:{{EC2PrivateDNSName}}',
        kubernetesGroups: ['system:nodes'],
        createdAt: '2026-11-20T10:12:09.412Z',
        modifiedAt: '2026-11-20T10:12:09.412Z',
        accessPolicies: [],
      },
    },
    actor: ADMIN_ACTOR,
  },
  'delete-access-entry': {
    change: { kind: 'delete-access-entry', principalArn: NODE_ROLE },
    actor: ADMIN_ACTOR,
  },
  'update-access-entry': {
    change: {
      kind: 'update-access-entry',
      principalArn: ROLE('developers'),
      username: 'arn:aws:sts::111122223333:assumed-role/developers/{{SessionName}}',
      kubernetesGroups: ['dev-team', 'viewers'],
    },
    actor: TERRAFORM_ACTOR,
  },
  'associate-access-policy': {
    change: {
      kind: 'associate-access-policy',
      principalArn: ROLE('developers'),
      policy: {
        policyArn: POLICY('AmazonEKSEditPolicy'),
        accessScope: { type: 'namespace', namespaces: ['apps', 'jobs'] },
        associatedAt: '2026-11-20T10:17:45.412Z',
      },
    },
    actor: TERRAFORM_ACTOR,
  },
  'associate-access-policy-cluster-admin': {
    change: {
      kind: 'associate-access-policy',
      principalArn: ROLE('developers'),
      policy: {
        policyArn: POLICY('AmazonEKSClusterAdminPolicy'),
        accessScope: { type: 'cluster' },
        associatedAt: '2026-11-20T10:19:30.412Z',
      },
    },
    actor: ADMIN_ACTOR,
  },
  'disassociate-access-policy': {
    change: {
      kind: 'disassociate-access-policy',
      principalArn: ROLE('platform-admin'),
      policyArn: POLICY('AmazonEKSClusterAdminPolicy'),
    },
    actor: ADMIN_ACTOR,
  },
  'update-cluster-config-auth-mode': {
    change: { kind: 'set-auth-mode', mode: 'API' },
    actor: ADMIN_ACTOR,
  },
  'create-pod-identity-association': {
    change: {
      kind: 'create-pod-identity-association',
      association: {
        associationId: 'a-abcdefghijklmnop1',
        associationArn: 'arn:aws:eks:eu-west-1:111122223333:podidentityassociation/prod/a-abcdefghijklmnop1',
        namespace: 'payments',
        serviceAccount: 'api',
        roleArn: ROLE('payments-api'),
        disableSessionTags: false,
        createdAt: '2025-11-20T10:14:27.123Z',
        modifiedAt: '2025-11-20T10:14:27.123Z',
      },
    },
    actor: ADMIN_ACTOR,
  },
  'update-pod-identity-association': {
    change: {
      kind: 'update-pod-identity-association',
      associationId: 'a-abcdefghijklmnop1',
      roleArn: ROLE('payments-api-v2'),
    },
    actor: ADMIN_ACTOR,
  },
  'delete-pod-identity-association': {
    change: {
      kind: 'delete-pod-identity-association',
      associationId: 'a-abcdefghijklmnop1',
      association: {
        associationId: 'a-abcdefghijklmnop1',
        namespace: 'payments',
        serviceAccount: 'api',
        roleArn: ROLE('payments-api'),
        disableSessionTags: false,
      },
    },
    actor: ADMIN_ACTOR,
  },
  'delete-addon-pod-identity-agent': {
    change: { kind: 'delete-addon', addonName: 'eks-pod-identity-agent' },
    actor: ADMIN_ACTOR,
  },
  'update-cluster-config-auto-mode-with-auth-mode': {
    change: { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' },
    actor: ADMIN_ACTOR,
  },
  'create-certificate-authority': {
    change: { kind: 'create-certificate-authority', certificateAuthorityId: 'ca-9f8e7d6c5b4a' },
    actor: ADMIN_ACTOR,
  },
  'activate-certificate-authority': {
    change: { kind: 'activate-certificate-authority', certificateAuthorityId: 'ca-9f8e7d6c5b4a' },
    actor: ADMIN_ACTOR,
  },
  'update-addon-pod-identity-agent': {
    change: { kind: 'update-addon', addonName: 'eks-pod-identity-agent', addonVersion: 'v1.3.5-eksbuild.1' },
    actor: ADMIN_ACTOR,
  },
};

const notChanges: Record<string, string> = {
  'delete-nodegroup-failed-resource-in-use': 'ignored',
  'update-cluster-config-logging': 'ignored',
  'update-cluster-config-deletion-protection': 'ignored',
  'delete-addon-vpc-cni': 'ignored',
  'truncated-delete-nodegroup': 'invalid',
};

function changeOf(input: unknown) {
  const result = parseEksEvent(input);
  if (result.kind !== 'change')
    throw new Error(`expected a change, got ${result.kind}: ${'reason' in result ? result.reason : ''}`);
  return result;
}

function reasonOf(input: unknown, kind: 'ignored' | 'invalid') {
  const result = parseEksEvent(input);
  if (result.kind !== kind) throw new Error(`expected ${kind}, got ${JSON.stringify(result)}`);
  return result.reason;
}

describe('parseEksEvent fixtures', () => {
  it('has an expected outcome for every fixture and a fixture for every handled event', () => {
    expect([...Object.keys(expectedChanges), ...Object.keys(notChanges)].sort()).toEqual(fixtureNames);
    const names = new Set([...fixtures.values()].map((f) => f.detail.eventName));
    for (const event of HANDLED_EKS_EVENTS) expect(names.has(event), event).toBe(true);
  });

  it.each(Object.entries(expectedChanges))('%s parses to the expected change', (name, expected) => {
    const event = fixture(name);
    const result = changeOf(event);
    expect(result).toEqual({
      kind: 'change',
      change: expected.change,
      eventId: event.detail.eventID,
      eventName: event.detail.eventName,
      eventTime: event.detail.eventTime,
      clusterName: 'prod',
      region: 'eu-west-1',
      accountId: '111122223333',
      actor: expected.actor,
      by: expect.objectContaining({ source: 'cloudtrail', arn: expected.actor }),
    });
  });

  it.each(Object.keys(expectedChanges))('%s gives the same change as a bare CloudTrail record', (name) => {
    const event = fixture(name);
    expect(changeOf(event.detail)).toEqual(changeOf(event));
  });

  it('all fixtures are EventBridge-delivered CloudTrail records of account 111122223333 in eu-west-1', () => {
    for (const event of fixtures.values()) {
      expect(event).toMatchObject({
        version: '0',
        'detail-type': 'AWS API Call via CloudTrail',
        source: 'aws.eks',
        account: '111122223333',
        region: 'eu-west-1',
        resources: [],
        detail: { eventSource: 'eks.amazonaws.com', awsRegion: 'eu-west-1' },
      });
    }
  });
});

describe('parseEksEvent', () => {
  it('ignores a failed call and says which error it was', () => {
    const event = fixture('delete-nodegroup-failed-resource-in-use');
    expect(parseEksEvent(event)).toEqual({
      kind: 'ignored',
      reason: 'the call failed: ResourceInUseException',
      eventId: event.detail.eventID,
      eventName: 'DeleteNodegroup',
    });
  });

  it('ignores a failed call even when its request is incomplete', () => {
    const event = fixture('delete-access-entry');
    event.detail.errorCode = 'AccessDenied';
    delete event.detail.requestParameters;
    expect(reasonOf(event, 'ignored')).toBe('the call failed: AccessDenied');
  });

  it('refuses a record whose errorCode is not a string, without stringifying it', () => {
    // fast-check counterexample: String({ toString: false }) throws "Cannot convert object to primitive value"
    for (const [errorCode, what] of [
      [{ toString: false }, 'an object'],
      [Object.create(null), 'an object'],
      [['AccessDenied'], 'an array'],
      [42, '42'],
    ] as const) {
      const event = fixture('delete-nodegroup');
      event.detail.errorCode = errorCode;
      expect(reasonOf(event, 'invalid')).toMatch(
        new RegExp(`^\\$\\.detail\\.errorCode: expected the error code of a failed call, got ${what} \\(`),
      );
    }
  });

  it('names a hostile non-string eventSource or detail-type by its kind', () => {
    const event = fixture('delete-nodegroup');
    event.detail.eventSource = { toString: false };
    expect(reasonOf(event, 'ignored')).toBe('not an EKS or IAM call (eventSource an object)');
    const envelope = fixture('delete-nodegroup');
    envelope['detail-type'] = { valueOf: 1, toString: 'x' };
    expect(reasonOf(envelope, 'ignored')).toBe('not a CloudTrail API call (detail-type an object)');
  });

  it('decodes a URL-encoded principalArn (DeleteAccessEntry, AssociateAccessPolicy)', () => {
    expect(fixture('delete-access-entry').detail.requestParameters.principalArn).toContain('%3A');
    expect(fixture('associate-access-policy').detail.requestParameters.principalArn).toContain('%2F');
    expect(changeOf(fixture('delete-access-entry')).change).toEqual({
      kind: 'delete-access-entry',
      principalArn: NODE_ROLE,
    });
    expect(changeOf(fixture('associate-access-policy')).change).toMatchObject({
      principalArn: ROLE('developers'),
    });
  });

  it('decodes a URL-encoded policyArn (DisassociateAccessPolicy)', () => {
    expect(fixture('disassociate-access-policy').detail.requestParameters.policyArn).toContain('%2F');
    expect(changeOf(fixture('disassociate-access-policy')).change).toMatchObject({
      policyArn: POLICY('AmazonEKSClusterAdminPolicy'),
    });
  });

  it('decodes a double-encoded principalArn and leaves a plain one alone', () => {
    const event = fixture('delete-access-entry');
    event.detail.requestParameters.principalArn = encodeURIComponent(encodeURIComponent(NODE_ROLE));
    expect(changeOf(event).change).toEqual({ kind: 'delete-access-entry', principalArn: NODE_ROLE });
    event.detail.requestParameters.principalArn = ROLE('team+ops=1,a.b@c-d_e');
    expect(changeOf(event).change).toEqual({
      kind: 'delete-access-entry',
      principalArn: ROLE('team+ops=1,a.b@c-d_e'),
    });
  });

  it('rejects a malformed URL encoding with its path instead of throwing', () => {
    const event = fixture('delete-access-entry');
    event.detail.requestParameters.principalArn =
      'arn%3Aaws%3Aiam%3A%3A111122223333%3Arole%2Fprod-node-role%E0%A4%A';
    expect(reasonOf(event, 'invalid')).toMatch(
      /^DeleteAccessEntry record: \$\.detail\.requestParameters\.principalArn: ".*" is not valid URL encoding$/,
    );
  });

  it('rejects a principal that is not an IAM ARN once decoded', () => {
    const event = fixture('delete-access-entry');
    event.detail.requestParameters.principalArn = 'prod-node-role';
    expect(reasonOf(event, 'invalid')).toBe(
      'DeleteAccessEntry record: $.detail.requestParameters.principalArn: expected an IAM principal ARN, got "prod-node-role"',
    );
  });

  it('reads the cluster name from name, from clusterName, or from the response', () => {
    const modern = fixture('delete-nodegroup');
    expect(modern.detail.requestParameters).toHaveProperty('name', 'prod');
    expect(changeOf(modern).clusterName).toBe('prod');

    const legacy = fixture('delete-nodegroup-legacy-cluster-name');
    expect(legacy.detail.requestParameters).not.toHaveProperty('name');
    expect(changeOf(legacy).clusterName).toBe('prod');

    const responseOnly = fixture('delete-nodegroup');
    delete responseOnly.detail.requestParameters.name;
    responseOnly.detail.responseElements.nodegroup.clusterName = 'staging';
    expect(changeOf(responseOnly).clusterName).toBe('staging');

    const associate = fixture('associate-access-policy');
    delete associate.detail.requestParameters.name;
    expect(changeOf(associate).clusterName).toBe('prod');
  });

  it('prefers requestParameters.name over clusterName', () => {
    const event = fixture('delete-nodegroup');
    event.detail.requestParameters.clusterName = 'other';
    expect(changeOf(event).clusterName).toBe('prod');
  });

  it('rejects a record with no cluster name anywhere, naming where it looked', () => {
    const event = fixture('delete-access-entry');
    delete event.detail.requestParameters.name;
    expect(reasonOf(event, 'invalid')).toBe(
      'DeleteAccessEntry record: $.detail.requestParameters.name: no cluster name (looked at requestParameters.name, requestParameters.clusterName, responseElements.*.clusterName)',
    );
  });

  it('rejects a truncated record, naming what is missing and where', () => {
    expect(reasonOf(fixture('truncated-delete-nodegroup'), 'invalid')).toBe(
      'DeleteNodegroup record: $.detail.eventID: required string is missing; $.detail.requestParameters: required object is missing',
    );
  });

  it('rejects a record without eventName', () => {
    const event = fixture('delete-nodegroup');
    delete event.detail.eventName;
    expect(parseEksEvent(event)).toEqual({
      kind: 'invalid',
      reason: '$.detail.eventName: required string is missing',
    });
    expect(parseEksEvent(event.detail)).toEqual({
      kind: 'invalid',
      reason: '$.eventName: required string is missing',
    });
  });

  it('rejects an envelope without its CloudTrail record', () => {
    const event = fixture('delete-nodegroup');
    delete event.detail;
    expect(parseEksEvent(event)).toEqual({ kind: 'invalid', reason: '$.detail: required object is missing' });
  });

  it('rejects an eventTime that is not ISO 8601', () => {
    const event = fixture('create-nodegroup');
    event.detail.eventTime = 'Nov 20, 2026, 10:06:30 AM';
    expect(reasonOf(event, 'invalid')).toMatch(/^CreateNodegroup record: \$\.detail\.eventTime: /);
  });

  it('rejects a CreateNodegroup that names no node role', () => {
    const event = fixture('create-nodegroup');
    delete event.detail.requestParameters.nodeRole;
    delete event.detail.responseElements.nodegroup.nodeRole;
    expect(reasonOf(event, 'invalid')).toBe(
      'CreateNodegroup record: $.detail.requestParameters.nodeRole: required string is missing',
    );
  });

  it('takes DeleteNodegroup without a response as a deletion of unknown role', () => {
    const event = fixture('delete-nodegroup');
    event.detail.responseElements = null;
    expect(changeOf(event).change).toEqual({ kind: 'delete-nodegroup', nodegroupName: 'general' });
  });

  it('takes the pod execution role of CreateFargateProfile from the response when the request lacks it', () => {
    const event = fixture('create-fargate-profile');
    delete event.detail.requestParameters.podExecutionRoleArn;
    expect(changeOf(event).change).toMatchObject({ podExecutionRoleArn: ROLE('prod-fargate-pod-execution') });
  });

  it('builds a CreateAccessEntry entry from the request alone with EKS defaults', () => {
    const event = fixture('create-access-entry');
    event.detail.requestParameters = { name: 'prod', principalArn: ROLE('auditor') };
    event.detail.responseElements = null;
    expect(changeOf(event).change).toEqual({
      kind: 'create-access-entry',
      entry: { principalArn: ROLE('auditor'), type: 'STANDARD', kubernetesGroups: [], accessPolicies: [] },
    });
  });

  it('normalises the access entry type case and rejects an unknown type', () => {
    const event = fixture('create-access-entry-ec2-linux');
    event.detail.requestParameters.type = 'EC2_Linux';
    event.detail.responseElements = null;
    expect(changeOf(event).change).toMatchObject({ entry: { type: 'EC2_LINUX' } });
    event.detail.requestParameters.type = 'GPU_LINUX';
    expect(reasonOf(event, 'invalid')).toMatch(
      /^CreateAccessEntry record: \$\.detail\.requestParameters\.type: unknown access entry type "GPU_LINUX"/,
    );
  });

  it('keeps timestamps it can read and drops the ones it cannot', () => {
    const event = fixture('create-access-entry');
    event.detail.responseElements.accessEntry.createdAt = '2026-11-20T11:10:41.412000+01:00';
    event.detail.responseElements.accessEntry.modifiedAt = 'Nov 20, 2026, 10:10:41 AM';
    const { change } = changeOf(event);
    if (change.kind !== 'create-access-entry') throw new Error('wrong change');
    expect(change.entry.createdAt).toBe('2026-11-20T10:10:41.412Z');
    expect(change.entry).not.toHaveProperty('modifiedAt');
  });

  it('ignores UpdateClusterConfig calls that do not change the authentication mode', () => {
    expect(reasonOf(fixture('update-cluster-config-logging'), 'ignored')).toBe(
      'UpdateClusterConfig LoggingUpdate (logging): not an authentication change',
    );
  });

  it('rejects an unknown authentication mode', () => {
    const event = fixture('update-cluster-config-auth-mode');
    event.detail.requestParameters.accessConfig.authenticationMode = 'IAM';
    expect(reasonOf(event, 'invalid')).toMatch(
      /^UpdateClusterConfig record: \$\.detail\.requestParameters\.accessConfig\.authenticationMode: unknown authentication mode "IAM"/,
    );
  });

  it('ignores read-only and unhandled calls', () => {
    const describe = fixture('delete-nodegroup');
    describe.detail.eventName = 'DescribeCluster';
    describe.detail.readOnly = true;
    expect(reasonOf(describe, 'ignored')).toBe('DescribeCluster is a read-only call');
    const tag = fixture('delete-nodegroup');
    tag.detail.eventName = 'TagResource';
    expect(parseEksEvent(tag)).toMatchObject({
      kind: 'ignored',
      reason: 'TagResource is not an EKS call the monitor handles',
      eventName: 'TagResource',
      eventId: tag.detail.eventID,
    });
  });

  it('ignores events that are not EKS CloudTrail API calls', () => {
    const ec2 = fixture('delete-nodegroup');
    ec2.source = 'aws.ec2';
    expect(reasonOf(ec2, 'ignored')).toBe('not an EKS or IAM event (source "aws.ec2")');
    const state = fixture('delete-nodegroup');
    state['detail-type'] = 'EKS Nodegroup State Change';
    expect(reasonOf(state, 'ignored')).toBe(
      'not a CloudTrail API call (detail-type "EKS Nodegroup State Change")',
    );
    const bare = fixture('delete-nodegroup').detail;
    bare.eventSource = 'ec2.amazonaws.com';
    expect(reasonOf(bare, 'ignored')).toBe('not an EKS or IAM call (eventSource "ec2.amazonaws.com")');
  });

  it('falls back to the envelope for region and account, and omits the actor when there is none', () => {
    const event = fixture('delete-fargate-profile');
    delete event.detail.awsRegion;
    delete event.detail.recipientAccountId;
    event.detail.userIdentity = { type: 'AWSService', invokedBy: 'eks.amazonaws.com' };
    const result = changeOf(event);
    expect([result.region, result.accountId]).toEqual(['eu-west-1', '111122223333']);
    expect(result).not.toHaveProperty('actor');
    expect(reasonOf(event.detail, 'invalid')).toBe(
      'DeleteFargateProfile record: $.awsRegion: required string is missing',
    );
  });

  it('rejects a value that is not an object', () => {
    for (const value of [null, 'DeleteNodegroup', 42, []]) {
      expect(parseEksEvent(value)).toEqual({
        kind: 'invalid',
        reason: '$: expected an object (EventBridge event or CloudTrail record)',
      });
    }
  });

  it('never throws, whatever it is given, and keeps every reason on one line', () => {
    const names = [...fixtures.keys()];
    const mutated = fc
      .tuple(
        fc.constantFrom(...names),
        fc.constantFrom(
          'requestParameters',
          'responseElements',
          'eventTime',
          'eventID',
          'userIdentity',
          'errorCode',
        ),
        fc.anything(),
      )
      .map(([name, key, value]) => {
        const event = fixture(name);
        event.detail[key] = value;
        return event;
      });
    const mutatedRequest = fc
      .tuple(fc.constantFrom(...Object.keys(expectedChanges)), fc.string(), fc.anything())
      .map(([name, key, value]) => {
        const event = fixture(name);
        const request = event.detail.requestParameters;
        const keys = Object.keys(request);
        request[keys[key.length % keys.length] ?? key] = value;
        return event;
      });
    fc.assert(
      fc.property(fc.oneof(fc.anything(), mutated, mutatedRequest), (input) => {
        const result = parseEksEvent(input);
        return result.kind === 'change' || result.kind === 'account-change' || !result.reason.includes('\n');
      }),
      { numRuns: 1000 },
    );
  });
});

describe('toIsoTimestamp', () => {
  it('reads CloudTrail epoch seconds, epoch milliseconds and ISO strings', () => {
    expect(toIsoTimestamp(1614040665.386)).toBe('2021-02-23T00:37:45.386Z');
    expect(toIsoTimestamp(1614040665386)).toBe('2021-02-23T00:37:45.386Z');
    expect(toIsoTimestamp('2025-04-14T22:45:48.097000-05:00')).toBe('2025-04-15T03:45:48.097Z');
  });

  it('gives undefined for what it cannot read', () => {
    for (const value of ['Apr 14, 2025', '', -1, Number.NaN, null, {}])
      expect(toIsoTimestamp(value)).toBeUndefined();
  });
});
