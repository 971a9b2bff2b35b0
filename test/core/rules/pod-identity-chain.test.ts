/**
 * pod-identity/role-trust-missing judged by the request EKS Auth makes on each hop: the first hop
 * (pods.eks.amazonaws.com → the association's role) carries the cluster as source and the session
 * tags but no sts:ExternalId; the target hop (the association's role → targetRoleArn) carries the
 * association's externalId and the session tags again. A condition EKS Auth never meets is a
 * certain failure whose fix rewrites that condition, and the rewritten trust passes the same check.
 */
import { describe, expect, it } from 'vitest';
import type { Finding, PodIdentityAssociation } from '../../../shared/core/model.ts';
import { assessSnapshot } from '../../../shared/core/predict/engine.ts';
import { simulateChange } from '../../../shared/core/predict/simulate.ts';
import { evaluateTrustPolicy } from '../../../shared/core/workload-identity/iam-policy/evaluate.ts';
import {
  podIdentityRequest,
  roleChainRequest,
} from '../../../shared/core/workload-identity/pod-identity-requests.ts';
import { ACCOUNT } from '../../support/snapshot-builder.ts';
import {
  APP_ROLE,
  association,
  podIdentitySnapshot,
  podIdentityTrust,
  role,
} from '../../support/workload-identity-builder.ts';

const RULE = 'pod-identity/role-trust-missing';
const TARGET = `arn:aws:iam::${ACCOUNT}:role/app-data`;
const EXTERNAL_ID = 'eu-west-1/111122223333/prod/apps/reader';
const BOTH = ['sts:AssumeRole', 'sts:TagSession'];

const of = (findings: Finding[]) => findings.filter((f) => f.ruleId === RULE);
const trust = (...Statement: unknown[]) => JSON.stringify({ Version: '2012-10-17', Statement });

/** The target trust of the EKS API reference: the association's role, under its external ID. */
const targetTrust = (externalId = EXTERNAL_ID, principal = APP_ROLE) =>
  trust({
    Sid: 'AllowPodIdentityRole',
    Effect: 'Allow',
    Principal: { AWS: principal },
    Action: BOTH,
    Condition: { StringEquals: { 'sts:ExternalId': externalId } },
  });

const chained = (
  o: {
    appTrust?: string;
    targetTrust?: string;
    x?: Partial<PodIdentityAssociation>;
    noExternalId?: true;
  } = {},
) =>
  podIdentitySnapshot({
    associations: [
      association({
        targetRoleArn: TARGET,
        ...(o.noExternalId ? {} : { externalId: EXTERNAL_ID }),
        ...o.x,
      }),
    ],
    roles: [role(APP_ROLE, o.appTrust ?? podIdentityTrust()), role(TARGET, o.targetTrust ?? targetTrust())],
  });

/** The trust the fix's AWS CLI command writes (its --policy-document). */
function cliDocument(f: Finding | undefined): string {
  const cli = f?.remediation?.awsCli ?? '';
  const m = /--policy-document '([^']*)'/.exec(cli);
  if (!m?.[1]) throw new Error(`no --policy-document in ${cli}`);
  return m[1];
}

describe('the target hop: sts:ExternalId is the association’s externalId', () => {
  it('a target trust under StringEquals sts:ExternalId = the association’s externalId gives no finding', () => {
    expect(of(assessSnapshot(chained()))).toEqual([]);
  });

  it('the guide’s form (account root, ArnEquals aws:PrincipalARN, session tags) is evaluated, not left open', () => {
    const guide = trust({
      Effect: 'Allow',
      Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` },
      Action: BOTH,
      Condition: {
        StringEquals: {
          'aws:RequestTag/eks-cluster-arn': `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/prod`,
          'aws:RequestTag/kubernetes-namespace': 'apps',
          'aws:RequestTag/kubernetes-service-account': 'reader',
        },
        ArnEquals: { 'aws:PrincipalARN': APP_ROLE },
      },
    });
    expect(of(assessSnapshot(chained({ targetTrust: guide })))).toEqual([]);
  });

  it('another external ID (the association was re-created) is a certain failure; the fix admits the current one', () => {
    const [f, ...rest] = of(assessSnapshot(chained({ targetTrust: targetTrust('old-external-id') })));
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: 'high', subject: TARGET });
    expect(f?.title).toContain('sts:ExternalId');
    expect(f?.remediation?.trustPolicyReplaces).toBe(true);
    const [statement] = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement;
    expect(statement.Condition).toEqual({
      StringEquals: { 'sts:ExternalId': ['old-external-id', EXTERNAL_ID] },
    });
    const fixed = cliDocument(f);
    expect(of(assessSnapshot(chained({ targetTrust: fixed })))).toEqual([]);
  });

  it('a snapshot without the externalId (captured before it was read) leaves the condition open: medium, never certain', () => {
    const s = chained({ noExternalId: true });
    const [f] = of(assessSnapshot(s));
    expect(f).toMatchObject({ severity: 'medium', subject: TARGET });
    expect(f?.detail).toContain('sts:ExternalId');
  });

  it('a target trust with no statement for the role gets the documented statement, under the external ID', () => {
    const [f] = of(assessSnapshot(chained({ targetTrust: podIdentityTrust() })));
    expect(f).toMatchObject({ severity: 'high', subject: TARGET });
    expect(f?.remediation?.trustPolicyReplaces).toBeUndefined();
    expect(JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement).toEqual([
      {
        Effect: 'Allow',
        Principal: { AWS: APP_ROLE },
        Action: BOTH,
        Condition: { StringEquals: { 'sts:ExternalId': EXTERNAL_ID } },
      },
    ]);
    expect(of(assessSnapshot(chained({ targetTrust: cliDocument(f) })))).toEqual([]);
  });
});

describe('the first hop: EKS Auth sends no sts:ExternalId', () => {
  // The association's own role allows sts:AssumeRole only under an external ID, and nothing
  // allows sts:TagSession.
  const firstHop = trust({
    Sid: 'PodsWithExternalId',
    Effect: 'Allow',
    Principal: { Service: 'pods.eks.amazonaws.com' },
    Action: 'sts:AssumeRole',
    Condition: {
      StringEquals: { 'sts:ExternalId': EXTERNAL_ID, 'aws:SourceAccount': ACCOUNT },
    },
  });

  it('is a certain failure of both actions, not "missing only sts:TagSession"', () => {
    const [f, ...rest] = of(assessSnapshot(chained({ appTrust: firstHop })));
    expect(rest).toEqual([]);
    expect(f).toMatchObject({ severity: 'high', subject: APP_ROLE });
    expect(f?.title).toContain('for sts:AssumeRole and sts:TagSession');
    expect(f?.title).toContain('sts:ExternalId');
    expect(f?.evidence.verdict).toBe('broken');
  });

  it('the fix is the statement to use instead: the condition gone, the other kept, TagSession in it', () => {
    const [f] = of(assessSnapshot(chained({ appTrust: firstHop })));
    expect(f?.remediation?.trustPolicyReplaces).toBe(true);
    expect(JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement).toEqual([
      {
        Sid: 'PodsWithExternalId',
        Effect: 'Allow',
        Principal: { Service: 'pods.eks.amazonaws.com' },
        Action: BOTH,
        Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT } },
      },
    ]);
    expect(f?.remediation?.notes?.join(' ')).toContain('sends no sts:ExternalId');
    expect(f?.remediation?.terraform).toContain('sid     = "PodsWithExternalId"');
    expect(f?.remediation?.terraform).not.toContain('sts:ExternalId');
    // Applied, the role's trust passes the same check.
    expect(of(assessSnapshot(chained({ appTrust: cliDocument(f) })))).toEqual([]);
  });

  it('is certain with or without a target role, and with session tags disabled', () => {
    const alone = podIdentitySnapshot({ roles: [role(APP_ROLE, firstHop)] });
    expect(of(assessSnapshot(alone)).map((f) => f.severity)).toEqual(['high']);
    const tagless = podIdentitySnapshot({
      roles: [role(APP_ROLE, firstHop)],
      associations: [association({ disableSessionTags: true })],
    });
    const [f] = of(assessSnapshot(tagless));
    expect(f?.severity).toBe('high');
    expect(f?.title).toContain('for sts:AssumeRole (');
  });
});

describe('the session tags of each hop', () => {
  const tagged = (condition: Record<string, unknown>, x: Partial<PodIdentityAssociation> = {}) =>
    podIdentitySnapshot({
      associations: [association(x)],
      roles: [
        role(
          APP_ROLE,
          trust({
            Effect: 'Allow',
            Principal: { Service: 'pods.eks.amazonaws.com' },
            Action: BOTH,
            Condition: condition,
          }),
        ),
      ],
    });

  it('namespace and service account tags are known: matching passes, another namespace is certain', () => {
    const ok = tagged({
      StringEquals: {
        'aws:RequestTag/kubernetes-namespace': 'apps',
        'aws:RequestTag/kubernetes-service-account': 'reader',
        'aws:RequestTag/eks-cluster-name': 'prod',
      },
    });
    expect(of(assessSnapshot(ok))).toEqual([]);
    const [f] = of(
      assessSnapshot(tagged({ StringEquals: { 'aws:RequestTag/kubernetes-namespace': 'jobs' } })),
    );
    expect(f?.severity).toBe('high');
    const [statement] = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement;
    expect(statement.Condition).toEqual({
      StringEquals: { 'aws:RequestTag/kubernetes-namespace': ['jobs', 'apps'] },
    });
  });

  it('the pod’s name and UID are per pod: a condition on them stays "could not evaluate"', () => {
    const [f] = of(
      assessSnapshot(tagged({ StringLike: { 'aws:RequestTag/kubernetes-pod-name': 'reader-*' } })),
    );
    expect(f?.severity).toBe('medium');
    expect(f?.detail).toContain('kubernetes-pod-name');
  });

  it('with session tags disabled a tag condition is never met: certain, the fix drops it', () => {
    const [f] = of(
      assessSnapshot(
        tagged(
          { StringEquals: { 'aws:RequestTag/kubernetes-namespace': 'apps' } },
          { disableSessionTags: true },
        ),
      ),
    );
    expect(f?.severity).toBe('high');
    const [statement] = JSON.parse(f?.remediation?.trustPolicyJson ?? '{}').Statement;
    expect(statement.Condition).toBeUndefined();
  });

  it('a tag no one sends (EKS adds only its six) is absent: certain', () => {
    const [f] = of(assessSnapshot(tagged({ StringEquals: { 'aws:RequestTag/team': 'data' } })));
    expect(f?.severity).toBe('high');
  });

  it('names only the service accounts whose requests fail', () => {
    const s = {
      ...tagged({ StringEquals: { 'aws:RequestTag/kubernetes-namespace': 'apps' } }),
    };
    s.podIdentityAssociations = {
      status: 'ok',
      data: [association(), association({ associationId: 'a-0002', namespace: 'jobs' })],
    };
    s.serviceAccounts = {
      status: 'ok',
      data: [
        { namespace: 'apps', name: 'reader' },
        { namespace: 'jobs', name: 'reader' },
      ],
    };
    const [f, ...rest] = of(assessSnapshot(s));
    expect(rest).toEqual([]);
    expect(f?.severity).toBe('high');
    expect(f?.blastRadius?.serviceAccounts).toEqual(['jobs/reader']);
    expect(f?.evidence.associations).toEqual(['a-0002']);
  });
});

describe('the request context of each hop', () => {
  const s = podIdentitySnapshot();
  const x = association({ targetRoleArn: TARGET, externalId: EXTERNAL_ID });
  const pods = trust({
    Effect: 'Allow',
    Principal: { Service: 'pods.eks.amazonaws.com' },
    Action: 'sts:AssumeRole',
    Condition: { Null: { 'sts:ExternalId': 'true' }, StringEquals: { 'aws:SourceAccount': ACCOUNT } },
  });

  it('the first hop lacks sts:ExternalId (Null true holds) and names the cluster as source', () => {
    expect(evaluateTrustPolicy(pods, podIdentityRequest(s, 'sts:AssumeRole', x)).decision).toBe('allowed');
  });

  it('the target hop carries it (Null true fails) and the association role as principal', () => {
    const asTarget = pods.replace('{"Service":"pods.eks.amazonaws.com"}', JSON.stringify({ AWS: APP_ROLE }));
    expect(evaluateTrustPolicy(asTarget, roleChainRequest(s, APP_ROLE, 'sts:AssumeRole', x)).decision).toBe(
      'denied',
    );
  });
});

describe('what-if: an association update moves the external ID with the target', () => {
  const update = (over: { targetRoleArn?: string; externalId?: string }) =>
    simulateChange(chained(), { kind: 'update-pod-identity-association', associationId: 'a-0001', ...over })
      .after;

  it('another target without the response’s external ID: the target hop’s sts:ExternalId is unknown', () => {
    const other = `arn:aws:iam::${ACCOUNT}:role/app-archive`;
    const after = update({ targetRoleArn: other });
    after.iamRoles = { status: 'ok', data: [role(APP_ROLE, podIdentityTrust()), role(other, targetTrust())] };
    expect(of(assessSnapshot(after)).map((f) => f.severity)).toEqual(['medium']);
    const known = update({ targetRoleArn: other, externalId: EXTERNAL_ID });
    known.iamRoles = after.iamRoles;
    expect(of(assessSnapshot(known))).toEqual([]);
  });

  it('clearing the target clears its external ID', () => {
    const after = update({ targetRoleArn: '' });
    const data = after.podIdentityAssociations?.status === 'ok' ? after.podIdentityAssociations.data : [];
    expect(data[0]).not.toHaveProperty('externalId');
    expect(data[0]).not.toHaveProperty('targetRoleArn');
  });
});
