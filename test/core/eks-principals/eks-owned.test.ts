/**
 * EKS-owned access entries (core/access/eks-owned.ts; docs/eks-auth-semantics.md#eks-owned-access-entries): never drift, stale
 * or orphaned; their loss alerts with the fix that restores them — in a snapshot diff, in a
 * CloudTrail DeleteAccessEntry, in a what-if. Scenarios: scenarios/eks-principals/.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eksOwnedEntries, trustsEksCapabilities } from '../../../shared/core/access/eks-owned.ts';
import { parseEksEvent } from '../../../shared/core/events/cloudtrail.ts';
import { atLeast, type ClusterSnapshot } from '../../../shared/core/model.ts';
import { analyzeSnapshot } from '../../../shared/core/predict/analysis.ts';
import { assessSnapshot, diffSnapshots, whatIf } from '../../../shared/core/predict/engine.ts';
import { formatSnapshotErrors, parseSnapshotJson } from '../../../shared/core/snapshot/snapshot-schema.ts';

const dir = new URL('../../../scenarios/eks-principals/', import.meta.url);
function load(name: string): ClusterSnapshot {
  const result = parseSnapshotJson(readFileSync(new URL(`${name}.json`, dir), 'utf8'), name);
  if (!result.ok) throw new Error(formatSnapshotErrors(name, result));
  return result.snapshot;
}

const ROLE = (name: string) => `arn:aws:iam::111122223333:role/${name}`;
const CAPABILITY = ROLE('prod-argocd-capability');
const CLUSTER_ROLE = ROLE('prod-cluster-role');
const AUTO_NODE = ROLE('prod-auto-node-role');
const INSIGHTS = ROLE('aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS');
const EKS_OWNED = [CAPABILITY, CLUSTER_ROLE, AUTO_NODE, INSIGHTS];

function deleteEvent(principalArn: string) {
  const event = JSON.parse(
    readFileSync(new URL('../../fixtures/cloudtrail/delete-access-entry.json', import.meta.url), 'utf8'),
  );
  event.detail.requestParameters.principalArn = encodeURIComponent(principalArn);
  const parsed = parseEksEvent(event);
  if (parsed.kind !== 'change') throw new Error(`not a change: ${JSON.stringify(parsed)}`);
  return parsed.change;
}

describe('EKS-owned access entries', () => {
  it('are recognised by trust, Auto Mode config and reserved username, each for its reason', () => {
    const s = load('ep-healthy-eks-owned');
    const owned = eksOwnedEntries(s, analyzeSnapshot(s).roles);
    expect([...owned.values()].map((o) => [o.entry.principalArn, o.ownership.kind]).sort()).toEqual(
      [
        [CAPABILITY, 'capability'],
        [CLUSTER_ROLE, 'auto-mode-cluster-role'],
        [AUTO_NODE, 'auto-mode-node-role'],
        [INSIGHTS, 'eks-reserved'],
      ].sort(),
    );
  });

  it('the healthy scenario: nothing at or above low, nothing at all about an EKS-owned entry', () => {
    const findings = assessSnapshot(load('ep-healthy-eks-owned'));
    expect(findings.filter((f) => atLeast(f.severity, 'low')).map((f) => `${f.ruleId} ${f.subject}`)).toEqual(
      [],
    );
    expect(findings.filter((f) => EKS_OWNED.includes(f.subject))).toEqual([]);
  });

  it('without Auto Mode the same unused EC2 entry is orphaned: recognition is what silences it', () => {
    const s = load('ep-healthy-eks-owned');
    delete s.cluster.computeConfig;
    delete s.autoModeNodeClasses; // as a snapshot taken before NodeClasses were read
    const ids = assessSnapshot(s)
      .filter((f) => f.subject === AUTO_NODE)
      .map((f) => f.ruleId);
    expect(ids).toEqual(['access-entry/orphaned']);
  });

  it('a capability role re-created after its entry is not reported stale', () => {
    const s = load('ep-healthy-eks-owned');
    if (s.iamRoles.status !== 'ok') throw new Error('iamRoles');
    const role = s.iamRoles.data.find((r) => r.arn === CAPABILITY);
    if (!role) throw new Error('no capability role');
    role.createDate = '2026-11-01T00:00:00Z';
    expect(assessSnapshot(s).filter((f) => f.subject === CAPABILITY)).toEqual([]);
    // the same dates on a role EKS does not own are stale
    delete role.trustPolicy;
    expect(
      assessSnapshot(s)
        .filter((f) => f.subject === CAPABILITY)
        .map((f) => f.ruleId),
    ).toEqual(['access-entry/stale-principal']);
  });

  it('the deleted-entry scenario: a diff reports exactly the capability entry lost, with the restore', () => {
    const findings = diffSnapshots(load('ep-healthy-eks-owned'), load('ep-capability-entry-deleted'));
    expect(findings.map((f) => [f.ruleId, f.severity, f.subject])).toEqual([
      ['access-entry/eks-owned-removed', 'high', CAPABILITY],
    ]);
    const [f] = findings;
    expect(f?.evidence.owner).toBe('capability');
    expect(f?.title).toContain('AccessDenied');
    expect(f?.remediation?.awsCli).toBe(
      [
        'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\',
        `  --principal-arn ${CAPABILITY} --type STANDARD --username 'arn:aws:sts::111122223333:assumed-role/prod-argocd-capability/{{SessionName}}'`,
      ].join('\n'),
    );
    expect(f?.remediation?.terraform).toBeUndefined();
  });

  it('a CloudTrail DeleteAccessEntry of each EKS-owned entry alerts (high), never as a lockout', () => {
    const s = load('ep-healthy-eks-owned');
    for (const arn of EKS_OWNED) {
      const findings = whatIf(s, deleteEvent(arn)).findings;
      expect(
        findings.filter((f) => f.subject === arn).map((f) => f.ruleId),
        arn,
      ).toContain('access-entry/eks-owned-removed');
      expect(
        findings.map((f) => f.ruleId),
        arn,
      ).not.toContain('access-entry/deletion-locks-out');
    }
  });

  it('restores the Auto Mode node entry with its AmazonEKSAutoNodePolicy', () => {
    const findings = whatIf(load('ep-healthy-eks-owned'), deleteEvent(AUTO_NODE)).findings;
    const f = findings.find((x) => x.ruleId === 'access-entry/eks-owned-removed');
    expect(f?.remediation?.awsCli?.split('\n')).toEqual([
      'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\',
      `  --principal-arn ${AUTO_NODE} --type EC2`,
      'aws eks associate-access-policy --cluster-name prod --region eu-west-1 \\',
      `  --principal-arn ${AUTO_NODE} --policy-arn arn:aws:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy --access-scope type=cluster`,
    ]);
  });

  it('the insights entry: the reserved username is not put in the fix, and the note says why', () => {
    const findings = whatIf(load('ep-healthy-eks-owned'), deleteEvent(INSIGHTS)).findings;
    const f = findings.find((x) => x.ruleId === 'access-entry/eks-owned-removed');
    expect(f?.remediation?.awsCli).not.toContain('--username');
    expect(f?.remediation?.notes?.join(' ')).toContain('"eks:cluster-insights", which a caller cannot set');
  });

  it('could not read the entries now is not a loss', () => {
    const after = load('ep-capability-entry-deleted');
    after.accessEntries = { status: 'error', error: 'eks: throttled' };
    const ids = diffSnapshots(load('ep-healthy-eks-owned'), after).map((f) => f.ruleId);
    expect(ids).not.toContain('access-entry/eks-owned-removed');
  });

  it('recognising a capability trust never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.constant(undefined)), (text) => {
        expect(typeof trustsEksCapabilities(text)).toBe('boolean');
      }),
    );
    expect(
      trustsEksCapabilities(
        JSON.stringify({
          Statement: [
            { Effect: 'Deny', Principal: { Service: 'capabilities.eks.amazonaws.com' }, Action: '*' },
          ],
        }),
      ),
    ).toBe(false);
  });
});
