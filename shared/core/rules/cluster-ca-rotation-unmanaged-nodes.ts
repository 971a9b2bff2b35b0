/**
 * Cluster CA rotation (docs/eks-auth-semantics.md#cluster-ca-rotation): EKS distributes a successor
 * CA to the control plane, managed node groups, Fargate and Auto Mode; nodes EKS does not manage
 * (self-managed, Karpenter, hybrid) keep the CA bundle they booted with, and once the successor
 * signs they cannot verify the API server: NotReady without any IAM change. The user guide asks the
 * owner to make them trust the successor before activation. EKS may also activate it by itself
 * (`scheduledEvents.firstAutoActivation` … `finalAutoActivation`).
 *
 * Conservative reading where the facts are silent: every running node of those kinds is taken not
 * to trust the successor (nothing in EKS's APIs tells that it does), Karpenter nodes launched
 * before the successor included; a successor is at risk of activation from `firstAutoActivation`
 * on, or at any time when it has none.
 */

import { eksCommand } from '../fixes/remediation.ts';
import type { BlastRadius, ClusterCertificateAuthority, ComputeNode } from '../model.ts';
import { CONTINUE, type ShellLine } from '../quote/shell.ts';
import type { FindingDraft, Rule } from './types.ts';

const UNMANAGED = new Set(['self-managed', 'karpenter', 'hybrid']);
const FIRST_NODES = 10;
/** A successor EKS may activate within this long (or that is activating) is critical. */
const SOON_MS = 7 * 24 * 3600 * 1000;

const label = (n: ComputeNode) => n.nodeName ?? n.id;

/** The CA commands are newer than some AWS CLI releases' EKS model (1.45.11 does not know them). */
const CLI_NOTE =
  'The certificate-authority commands need an AWS CLI whose EKS model knows cluster CA rotation (aws eks describe-certificate-authority help); older releases answer "Invalid choice": update the CLI or use an AWS SDK.';

function blast(nodes: readonly ComputeNode[], timeToImpact: string): BlastRadius {
  return {
    nodegroups: [],
    fargateProfiles: [],
    nodeClasses: [...new Set(nodes.flatMap((n) => (n.nodeClass ? [n.nodeClass] : [])))].sort(),
    nodeCount: nodes.length,
    firstNodes: nodes.slice(0, FIRST_NODES).map(label),
    timeToImpact,
  };
}

function kinds(nodes: readonly ComputeNode[]): string {
  const count = new Map<string, number>();
  for (const n of nodes) count.set(n.kind, (count.get(n.kind) ?? 0) + 1);
  return [...count].map(([k, c]) => `${c} ${k}`).join(', ');
}

const dataCommand = (a: Parameters<typeof eksCommand>[0], id: string) =>
  eksCommand(
    a,
    'describe-certificate-authority',
    CONTINUE,
    { flag: '--certificate-authority-id', value: id },
    '--query',
    'certificateAuthority.data',
    '--output',
    'text',
  );

export const clusterCaRotationUnmanagedNodes: Rule = {
  id: 'cluster/ca-rotation-unmanaged-nodes',
  severity: 'critical',
  kinds: ['state'],
  title: 'A cluster CA rotation will cut off nodes EKS does not manage',
  meaning:
    'EKS hands the successor CA to managed node groups, Fargate and Auto Mode only. Self-managed, Karpenter and hybrid nodes that do not trust it before it is activated — by you or by EKS on schedule — can no longer verify the API server and go NotReady, with no IAM change to see.',
  fix: 'Add the successor CA to the trust bundle of every self-managed, Karpenter and hybrid node (and external kubeconfigs), or replace those nodes, before activating it — and before its first auto-activation time.',
  evaluate({ current: a }) {
    const cas = a.snapshot.certificateAuthorities;
    if (cas?.status !== 'ok') return [];
    const compute = a.snapshot.compute;
    const unmanaged = compute.status === 'ok' ? compute.data.filter((n) => UNMANAGED.has(n.kind)) : undefined;
    if (unmanaged !== undefined && unmanaged.length === 0) return [];
    const now = Date.parse(a.snapshot.capturedAt);
    const out: FindingDraft[] = [];

    for (const ca of cas.data) {
      const successor =
        ca.signingStatus === 'ACTIVATING' || (ca.signingStatus === 'NOT_USED' && !ca.rollbackAvailable);
      if (successor) out.push(pending(a, ca, unmanaged, now));
    }
    const active = cas.data.find((c) => c.signingStatus === 'IN_USE');
    const previous = cas.data.find((c) => c.signingStatus === 'NOT_USED' && c.rollbackAvailable);
    if (active?.activatedAt !== undefined && previous !== undefined && unmanaged !== undefined) {
      const since = Date.parse(active.activatedAt);
      const cut = unmanaged.filter(
        (n) => n.ready !== 'True' && n.ready !== undefined && Date.parse(n.readySince ?? '') >= since,
      );
      if (cut.length > 0) out.push(cutOff(a, active, previous, cut));
    }
    return out;
  },
};

function pending(
  a: Parameters<Rule['evaluate']>[0]['current'],
  ca: ClusterCertificateAuthority,
  unmanaged: readonly ComputeNode[] | undefined,
  now: number,
): FindingDraft {
  const first = ca.firstAutoActivation === undefined ? undefined : Date.parse(ca.firstAutoActivation);
  const soon = ca.signingStatus === 'ACTIVATING' || first === undefined || first - now <= SOON_MS;
  const when =
    ca.signingStatus === 'ACTIVATING'
      ? 'it is being activated now'
      : ca.firstAutoActivation === undefined
        ? 'it can be activated at any time (no auto-activation time is set)'
        : `EKS may activate it by itself from ${ca.firstAutoActivation}${ca.finalAutoActivation ? ` and will by ${ca.finalAutoActivation}` : ''}`;
  const who =
    unmanaged === undefined
      ? 'the nodes EKS does not manage (the compute source was not read: which ones is unknown)'
      : `${unmanaged.length} node(s) EKS does not manage (${kinds(unmanaged)})`;
  const cli: ShellLine[] = [
    { comment: 'The successor CA (base64 PEM): decode it and add it, next to the current CA, to the trust' },
    { comment: "bundle of every self-managed, Karpenter and hybrid node (kubelet's kubeconfig" },
    {
      comment:
        'certificate-authority-data / --client-ca-file) and of external kubeconfigs, or replace those nodes:',
    },
    dataCommand(a, ca.id),
    {
      comment: `Only once every such node trusts it (before the first auto-activation time): aws eks activate-certificate-authority --certificate-authority-id ${ca.id}`,
    },
  ];
  return {
    severity: soon ? 'critical' : 'high',
    subject: a.snapshot.clusterArn,
    fingerprintKey: `ca:${ca.id}`,
    title: `Successor CA ${ca.id} of ${a.cluster.name} is ${ca.signingStatus === 'ACTIVATING' ? 'being activated' : 'pending'}: ${who} lose the API server unless they trust it first`,
    detail: [
      `Signing status ${ca.signingStatus}, distribution ${ca.distributionStatus ?? 'unknown'} (distribution covers managed node groups, Fargate and Auto Mode only); ${when}.`,
      'Assumed (nothing in the EKS API tells): none of these nodes trusts the successor yet.',
      ...(unmanaged !== undefined && unmanaged.length > 0
        ? [
            `Nodes: ${unmanaged.slice(0, FIRST_NODES).map(label).join(', ')}${unmanaged.length > FIRST_NODES ? ` and ${unmanaged.length - FIRST_NODES} more` : ''}`,
          ]
        : []),
    ].join('\n'),
    evidence: {
      certificateAuthorityId: ca.id,
      signingStatus: ca.signingStatus,
      distributionStatus: ca.distributionStatus ?? null,
      firstAutoActivation: ca.firstAutoActivation ?? null,
      finalAutoActivation: ca.finalAutoActivation ?? null,
      unmanagedNodes: unmanaged === undefined ? null : unmanaged.length,
      trustAssumed: 'none of the nodes EKS does not manage trusts the successor',
    },
    ...(unmanaged === undefined ? {} : { blastRadius: blast(unmanaged, when) }),
    remediation: {
      summary:
        'Make every node EKS does not manage trust the successor CA (or replace those nodes), then activate it yourself before EKS does.',
      cli,
      notes: [
        'Karpenter: nodes launched before the successor keep the old bundle; replacing them (drift or expiry) after distribution is the conservative path.',
        'Activating before they trust it turns them NotReady; no IAM or access-entry change shows it.',
        CLI_NOTE,
      ],
    },
  };
}

function cutOff(
  a: Parameters<Rule['evaluate']>[0]['current'],
  active: ClusterCertificateAuthority,
  previous: ClusterCertificateAuthority,
  cut: readonly ComputeNode[],
): FindingDraft {
  return {
    severity: 'critical',
    subject: a.snapshot.clusterArn,
    fingerprintKey: `ca-active:${active.id}`,
    title: `${cut.length} node(s) of ${a.cluster.name} that EKS does not manage went NotReady after CA ${active.id} was activated (${kinds(cut)})`,
    detail: `CA ${active.id} signs since ${active.activatedAt} (activated by ${active.activatedBy ?? 'unknown'}); these nodes stopped being Ready after that: they most likely do not trust it. The previous CA ${previous.id} can still be rolled back to.`,
    evidence: {
      certificateAuthorityId: active.id,
      activatedAt: active.activatedAt ?? null,
      activatedBy: active.activatedBy ?? null,
      previousCertificateAuthorityId: previous.id,
      rollbackAvailable: true,
    },
    blastRadius: blast(cut, 'now'),
    remediation: {
      summary:
        'Add the now-active CA to these nodes’ trust bundle (or replace them); while the rollback window lasts, going back to the previous CA restores them.',
      cli: [
        { comment: 'The active CA (base64 PEM), for the trust bundle of these nodes:' },
        dataCommand(a, active.id),
      ],
      notes: [
        `Rolling back: the API lists the previous CA ${previous.id} with rollbackAvailable; the call that rolls back is not confirmed in the facts this tool was built on — check the EKS user guide before using activate-certificate-authority on it.`,
        CLI_NOTE,
      ],
    },
  };
}
