/**
 * Where the fast paths of aws-auth are off for a cluster, and why: the detector (awsAuthCheck's
 * GET, awsAuthWatch's watch) needs the Kubernetes API reachable from the functions; attribution
 * (onAuditEvent) needs the cluster's audit log in CloudWatch Logs. Low: the schedule still sees
 * every change, only later and without the writer. Silent in `API` mode (aws-auth is not read
 * for authentication) and while the audit logging is not known (snapshots taken before it was read).
 * A subscription filter that exists is taken as onAuditEvent's: a log group holds at most two, and
 * the snapshot does not know the function's ARN.
 */
import { connectFailureIn, explainUnreachable } from '../access/endpoint-access.ts';
import type { FindingDraft, Rule } from './types.ts';

export const REALTIME_UNAVAILABLE = 'monitor/realtime-unavailable';

export const monitorRealtimeUnavailable: Rule = {
  id: REALTIME_UNAVAILABLE,
  severity: 'low',
  kinds: ['state'],
  title: 'Fast detection or attribution of aws-auth writes is off for this cluster',
  meaning:
    'aws-auth writes are seen within seconds to a minute by awsAuthCheck (or awsAuthWatch in continuous mode) and attributed to their writer by the audit log subscription (onAuditEvent). For this cluster one of them cannot work: the Kubernetes API endpoint is not reachable from the functions, or the control plane does not ship its audit log (DescribeCluster logging, type audit). The scheduled snapshot still sees every change.',
  fix: 'Enable the audit log type of the cluster (aws eks update-cluster-config --logging) and deploy infra/cloudformation/aws-auth-audit-subscription.yaml for it; make the endpoint reachable from the functions (see "Private clusters").',
  evaluate({ current: a }) {
    if (a.mode === 'API') return [];
    const s = a.snapshot;
    const reasons: string[] = [];
    const evidence: Record<string, unknown> = {};
    if (s.awsAuth.status === 'error') {
      const failure = connectFailureIn(s.awsAuth.error);
      if (failure !== undefined) {
        const why = explainUnreachable(s.cluster, failure);
        reasons.push(
          `fast detection is off: the Kubernetes API is not reachable from the functions (${why.reason})`,
        );
        evidence.connectFailure = failure;
      }
    }
    if (s.cluster.auditLogging === false) {
      reasons.push(
        'attribution is off: the control plane does not ship its audit log (logging type audit disabled)',
      );
      evidence.auditLogging = false;
    }
    const sub = s.auditSubscription;
    const noFilter = sub?.status === 'absent' || (sub?.status === 'ok' && sub.data.filterNames.length === 0);
    if (s.cluster.auditLogging === true && noFilter) {
      reasons.push(
        `attribution is off: no subscription filter sends /aws/eks/${a.cluster.name}/cluster to onAuditEvent`,
      );
      evidence.auditSubscription = 'missing';
    }
    if (reasons.length === 0) return [];
    const draft: FindingDraft = {
      severity: 'low',
      subject: 'aws-auth-realtime',
      title: `aws-auth writes of ${a.cluster.name}: ${reasons.join('; ')}`,
      detail: reasons.map((r) => `${r[0]?.toUpperCase() ?? ''}${r.slice(1)}.`).join(' '),
      evidence: { ...evidence, reasons },
      remediation: {
        summary:
          'aws eks update-cluster-config --name <cluster> --logging \'{"clusterLogging":[{"types":["audit"],"enabled":true}]}\', then infra/cloudformation/aws-auth-audit-subscription.yaml (or infra/terraform/aws-auth-audit-subscription) for the cluster; for an unreachable endpoint see README "Private clusters".',
      },
    };
    return [draft];
  },
};
