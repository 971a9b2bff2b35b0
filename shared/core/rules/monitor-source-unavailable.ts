import { safeErrorMessage } from '../../errors.ts';
import { connectFailureIn, explainUnreachable } from '../access/endpoint-access.ts';
import { fingerprintOf } from '../fingerprint.ts';
import {
  type ClusterId,
  clusterRefOf,
  type Finding,
  type Severity,
  type SourceName,
  type Trigger,
} from '../model.ts';
import type { FindingDraft, Rule } from './types.ts';

/** The rule ID of the monitor's own blindness: named here only, imported everywhere else. */
export const SOURCE_UNAVAILABLE = 'monitor/source-unavailable';

/**
 * Whether `finding` says the monitor is blind somewhere that matters: a `low` one names a source
 * the cluster's authentication mode does not use.
 */
export function blindsTheMonitor(finding: Finding): boolean {
  return finding.ruleId === SOURCE_UNAVAILABLE && finding.severity !== 'low';
}

const WHAT: Record<SourceName, string> = {
  awsAuth: 'the aws-auth ConfigMap',
  accessEntries: 'access entries',
  nodegroups: 'managed node groups',
  fargateProfiles: 'Fargate profiles',
  compute: 'nodes and instances',
  karpenterNodeClasses: 'Karpenter EC2NodeClasses',
  autoModeNodeClasses: 'EKS Auto Mode NodeClasses',
  iamRoles: 'IAM roles',
  podIdentityAssociations: 'Pod Identity associations',
  addons: 'EKS add-ons',
  oidcProviders: 'IAM OIDC providers',
  serviceAccounts: 'Kubernetes service accounts',
  nodeRolePermissions: "node roles' Pod Identity permission (iam:SimulatePrincipalPolicy)",
  certificateAuthorities: "the cluster's certificate authorities (CA rotation)",
};

export const monitorSourceUnavailable: Rule = {
  id: SOURCE_UNAVAILABLE,
  severity: 'high',
  kinds: ['state'],
  title: 'A source could not be read: the monitor is blind there',
  meaning:
    'A read failed (permissions, throttling, network). Nothing is concluded from that source — a failed read never looks like "every mapping was removed" — and this finding says what is not watched.',
  fix: 'Grant the permission named in the error (see infra/iam and infra/kubernetes), or fix connectivity to the cluster endpoint (a private-only or CIDR-restricted endpoint needs the monitor in the cluster’s VPC).',
  evaluate({ current: a }) {
    const s = a.snapshot;
    const out: FindingDraft[] = [];
    const sources: Array<[SourceName, { status: string; error?: string } | undefined]> = [
      ['awsAuth', s.awsAuth],
      ['accessEntries', s.accessEntries],
      ['nodegroups', s.nodegroups],
      ['fargateProfiles', s.fargateProfiles],
      ['compute', s.compute],
      ['karpenterNodeClasses', s.karpenterNodeClasses],
      ['autoModeNodeClasses', s.autoModeNodeClasses],
      ['iamRoles', s.iamRoles],
      ['podIdentityAssociations', s.podIdentityAssociations],
      ['addons', s.addons],
      ['oidcProviders', s.oidcProviders],
      ['serviceAccounts', s.serviceAccounts],
      ['nodeRolePermissions', s.nodeRolePermissions],
      ['certificateAuthorities', s.certificateAuthorities],
    ];
    for (const [name, src] of sources) {
      if (src?.status !== 'error') continue;
      const irrelevant =
        (name === 'awsAuth' && a.mode === 'API') || (name === 'accessEntries' && a.mode === 'CONFIG_MAP');
      // CA rotation is no authentication source: blind there, a pending successor CA goes unseen.
      const severity: Severity = irrelevant ? 'low' : name === 'certificateAuthorities' ? 'medium' : 'high';
      // A Kubernetes API the monitor cannot reach at all: say why, from the endpoint access.
      const failure = connectFailureIn(src.error ?? '');
      const unreachable = failure === undefined ? undefined : explainUnreachable(s.cluster, failure);
      const notUsed = irrelevant ? ` (not used for authentication in ${a.mode} mode)` : '';
      out.push({
        severity,
        subject: name,
        title:
          unreachable === undefined
            ? `Cannot read ${WHAT[name]} of ${a.cluster.name}: findings that depend on it are suspended`
            : `Cannot reach the Kubernetes API of ${a.cluster.name} (${unreachable.reason}): findings that depend on ${WHAT[name]} are suspended`,
        detail: `${src.error ?? 'read failed'}${notUsed}${unreachable === undefined ? '' : `. ${unreachable.explanation}`}`,
        evidence: {
          source: name,
          error: src.error ?? null,
          ...(failure === undefined
            ? {}
            : {
                connectFailure: failure,
                endpointPublicAccess: s.cluster.endpointPublicAccess ?? null,
                endpointPrivateAccess: s.cluster.endpointPrivateAccess ?? null,
                publicAccessCidrs: s.cluster.publicAccessCidrs ?? null,
              }),
        },
        remediation: {
          summary:
            unreachable === undefined
              ? "Restore the monitor's read access; see infra/iam/monitor-read-policy.json and infra/kubernetes/monitor-clusterrole.yaml."
              : unreachable.explanation,
        },
      });
    }
    return out;
  },
};

/**
 * The finding for a cluster that could not be read at all (DescribeCluster failed): the monitor
 * is blind to all of it. Fingerprinted like every finding, so it alerts once, not every run.
 */
export function clusterUnreadableFinding(id: ClusterId, error: string, trigger: Trigger): Finding {
  const ruleId = SOURCE_UNAVAILABLE;
  const cluster = clusterRefOf(id);
  return {
    ruleId,
    severity: 'high',
    cluster,
    subject: 'cluster',
    title: `Cannot read cluster ${cluster.name}: the monitor is blind to it`,
    detail: error,
    evidence: { source: 'cluster', error },
    remediation: {
      summary:
        "Restore the monitor's read access (eks:DescribeCluster; see infra/iam/monitor-read-policy.json) or check that the cluster still exists.",
    },
    trigger,
    fingerprint: fingerprintOf([ruleId, cluster.accountId, cluster.region, cluster.name, 'cluster', '']),
  };
}

/** The object a store error names (`resource`, e.g. `s3://bucket/key`), when it names one. */
function resourceOf(error: unknown): string | undefined {
  const resource = (error as { resource?: unknown } | undefined)?.resource;
  return typeof resource === 'string' ? resource : undefined;
}

/**
 * The stored snapshot could not be read or validated: the monitor cannot see what changed since
 * the last run (transition rules), though the state findings of the fresh capture stand.
 */
export function storedSnapshotUnreadableFinding(key: ClusterId, error: unknown, trigger: Trigger): Finding {
  const ruleId = SOURCE_UNAVAILABLE;
  const object = resourceOf(error) ?? 'the stored snapshot';
  const message = safeErrorMessage(error);
  return {
    ruleId,
    severity: 'medium',
    cluster: { accountId: key.accountId, region: key.region, name: key.clusterName },
    subject: 'stored-snapshot',
    title: `Cannot read the stored snapshot of ${key.clusterName} (${object}): changes since the last run are not evaluated`,
    detail: `${message}. The run continues as if no snapshot had been stored, and stores the fresh one in its place.`,
    evidence: { source: 'stored-snapshot', object, error: message },
    remediation: {
      summary: `Nothing to do if the next run reads it again. If it keeps failing, check the monitor's s3:GetObject access to ${object}.`,
    },
    trigger,
    fingerprint: fingerprintOf([ruleId, key.accountId, key.region, key.clusterName, 'stored-snapshot', '']),
  };
}
