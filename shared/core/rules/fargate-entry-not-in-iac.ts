import { principalKey } from '../access/principal.ts';
import type { NodeRequirement } from '../access/resolve.ts';
import { nodeAccessRemediation } from '../fixes/remediation.ts';
import type { ManagedField, Severity } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import type { FindingDraft, Rule } from './types.ts';

/** Field managers that are EKS itself (the aws-auth EKS writes shows `vpcLambda`). */
const EKS_MANAGER = /^(vpcLambda|eks|eks[-:.].*|.*\.eks\.amazonaws\.com)$/i;

export function isEksManager(manager: string): boolean {
  return EKS_MANAGER.test(manager);
}

/** Non-EKS managers (Terraform, Helm, Argo CD, kubectl…) that write mapRoles, latest first. */
export function iacOwnersOfMapRoles(a: Analysis): ManagedField[] {
  if (a.snapshot.awsAuth.status !== 'ok') return [];
  return a.snapshot.awsAuth.data.managedFields
    .filter((f) => f.dataKeys.includes('mapRoles') && !isEksManager(f.manager))
    .sort((x, y) => (y.time ?? '').localeCompare(x.time ?? ''));
}

/**
 * Whether aws-auth maps a role (its lower-cased rolearn as written equals the role's key): the
 * analysis's index holds exactly those keys (`awsAuthArnKey`), so no set is built per call.
 */
function mappedIn(a: Analysis): (roleArn: string) => boolean {
  return (roleArn) => a.awsAuth !== undefined && a.index.roles.has(principalKey(roleArn));
}

function draft(
  a: Analysis,
  what: string,
  roleArn: string,
  req: NodeRequirement,
  owner: ManagedField,
  basis: 'state' | 'transition' | 'change',
): FindingDraft {
  const predicted = basis === 'change';
  const entry = a.mode !== 'CONFIG_MAP' ? a.index.entries.get(principalKey(roleArn)) : undefined;
  const covered = !!entry && !a.deadEntries.has(principalKey(roleArn));
  const severity: Severity = covered ? 'medium' : 'high';
  return {
    severity,
    subject: roleArn,
    fingerprintKey: what,
    title: `${predicted ? 'EKS will add' : 'EKS added'} ${roleArn} to aws-auth for ${what}, but ${owner.manager} owns mapRoles: its next apply removes it`,
    detail: [
      `mapRoles was last written by ${owner.manager} (${owner.operation}${owner.time ? `, ${owner.time}` : ''}); an entry EKS writes is not in that tool's configuration.`,
      covered
        ? `A ${entry?.type} access entry also authorizes the role, so removal should be harmless; in early 2024 some API_AND_CONFIG_MAP clusters still needed the aws-auth entry for Fargate (unconfirmed today).`
        : 'When it is removed, the compute loses access (Fargate: new pods are not scheduled; nodes: NotReady).',
    ].join(' '),
    // `basis` tells the alert lifecycle how this was seen (see originOf in alerts.ts)
    evidence: { basis, owner, mode: a.mode, accessEntry: entry ?? null },
    remediation: {
      ...nodeAccessRemediation(a, roleArn, req),
      summary: `Declare ${roleArn} in the ${owner.manager} configuration of aws-auth (or create an access entry) before its next apply.`,
    },
  };
}

export const fargateEntryNotInIac: Rule = {
  id: 'fargate/entry-not-in-iac',
  severity: 'high',
  kinds: ['state', 'transition', 'change'],
  title: 'EKS added an aws-auth entry that the tool owning aws-auth will remove',
  meaning:
    'EKS adds the pod execution role (Fargate) or node role (managed node groups) to aws-auth. When Terraform, Pulumi, CDK, Helm or GitOps owns mapRoles, its next apply removes what it did not declare.',
  fix: 'Declare the entry in the IaC that owns aws-auth, or move the role to an access entry.',
  evaluate({ current: a, previous: b, change }) {
    if (a.mode === 'API') return [];
    const out: FindingDraft[] = [];
    if (change && b) {
      const owner = iacOwnersOfMapRoles(b)[0];
      if (!owner) return [];
      if (change.kind === 'create-fargate-profile' && !mappedIn(b)(change.podExecutionRoleArn)) {
        out.push(
          draft(
            a,
            `Fargate profile ${change.fargateProfileName}`,
            change.podExecutionRoleArn,
            'fargate',
            owner,
            'change',
          ),
        );
      }
      if (change.kind === 'create-nodegroup' && !mappedIn(b)(change.nodeRole)) {
        out.push(
          draft(a, `node group ${change.nodegroupName}`, change.nodeRole, 'ec2-linux', owner, 'change'),
        );
      }
      return out;
    }
    if (b) {
      // Between two snapshots: an entry for a Fargate profile or node group appeared while the
      // IaC tool owned mapRoles before. Kubernetes moves field ownership to the last writer, so
      // after EKS's edit only the previous snapshot still names the IaC owner.
      const owner = iacOwnersOfMapRoles(b)[0];
      if (!owner) return [];
      const inA = mappedIn(a);
      const inB = mappedIn(b);
      const added = (arn: string) => inA(arn) && !inB(arn);
      if (a.snapshot.fargateProfiles.status === 'ok') {
        for (const fp of a.snapshot.fargateProfiles.data) {
          if (added(fp.podExecutionRoleArn)) {
            out.push(
              draft(a, `Fargate profile ${fp.name}`, fp.podExecutionRoleArn, 'fargate', owner, 'transition'),
            );
          }
        }
      }
      if (a.snapshot.nodegroups.status === 'ok') {
        for (const ng of a.snapshot.nodegroups.data) {
          if (added(ng.nodeRole) && !out.some((f) => f.subject === ng.nodeRole)) {
            out.push(draft(a, `node group ${ng.name}`, ng.nodeRole, 'ec2-linux', owner, 'transition'));
          }
        }
      }
      return out;
    }
    // On one snapshot: an EKS-shaped entry for a Fargate profile created after the IaC's last write.
    const owner = iacOwnersOfMapRoles(a)[0];
    if (!owner?.time || a.snapshot.fargateProfiles.status !== 'ok') return [];
    const inA = mappedIn(a);
    for (const fp of a.snapshot.fargateProfiles.data) {
      if (!fp.createdAt || fp.createdAt <= owner.time) continue;
      if (!inA(fp.podExecutionRoleArn)) continue;
      out.push(draft(a, `Fargate profile ${fp.name}`, fp.podExecutionRoleArn, 'fargate', owner, 'state'));
    }
    return out;
  },
};
