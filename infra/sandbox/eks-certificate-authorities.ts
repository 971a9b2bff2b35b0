/**
 * Cluster CA rotation in the sandbox (`Create/Activate/Describe/ListCertificateAuthorities`, SDK
 * v3 3.1169 paths `/clusters/{name}/certificate-authorities[/{id}[/activate]]`). Modelled from the
 * EKS user guide and the API model (docs/eks-auth-semantics.md#cluster-ca-rotation):
 * - Create: one successor at a time (`NOT_USED`), distributed to EKS-managed compute
 *   (`IN_PROGRESS`, then `COMPLETE` after the side-effect delay). Scheduled auto-activation times
 *   are not documented as durations: the sandbox sets none on a created CA; a seed may carry them.
 * - Activate: refused until the successor is distributed (`InvalidRequestException`); it goes
 *   `ACTIVATING`, then `IN_USE` while the old CA becomes `NOT_USED` with `rollbackAvailable`.
 *   Then every running node EKS does not manage (self-managed, Karpenter, hybrid) that was not
 *   made to trust the new CA (`ClusterState.caTrust`) loses the API server: Ready `Unknown`.
 *   Managed node groups, Fargate and Auto Mode got the CA from EKS and stay Ready.
 */
import type { CaSigningStatus, ClusterCertificateAuthority } from '../../shared/core/model.ts';
import { isoNow, uuid } from './ids.ts';
import { EksError } from './service-errors.ts';
import type { ClusterState, World } from './world.ts';

export const CA_OPERATIONS = [
  'ListCertificateAuthorities',
  'DescribeCertificateAuthority',
  'CreateCertificateAuthority',
  'ActivateCertificateAuthority',
] as const;

/** Kinds of compute whose CA bundle EKS updates itself. */
const MANAGED_BY_EKS = new Set(['managed', 'fargate', 'auto']);

const epoch = (iso: string | undefined): number | undefined =>
  iso === undefined ? undefined : Date.parse(iso) / 1000;

function summaryJson(ca: ClusterCertificateAuthority): Record<string, unknown> {
  return {
    id: ca.id,
    createdAt: epoch(ca.createdAt),
    createdBy: ca.createdBy,
    activatedAt: epoch(ca.activatedAt),
    activatedBy: ca.activatedBy,
    signingStatus: ca.signingStatus,
    distributionStatus: ca.distributionStatus,
  };
}

function caJson(ca: ClusterCertificateAuthority, data: string): Record<string, unknown> {
  return {
    ...summaryJson(ca),
    validity: { notAfter: epoch(ca.notAfter) },
    scheduledEvents: {
      firstAutoActivation: epoch(ca.firstAutoActivation),
      finalAutoActivation: epoch(ca.finalAutoActivation),
    },
    rollbackAvailable: ca.rollbackAvailable ?? false,
    data,
  };
}

function caUpdate(params: { type: string; value: string }[]): Record<string, unknown> {
  return {
    id: uuid(),
    status: 'InProgress',
    type: 'CertificateAuthorityUpdate',
    params,
    createdAt: Date.now() / 1000,
    errors: [],
  };
}

/** DescribeCluster's `certificateAuthority.active`, when a CA is in use. */
export function activeCaJson(c: ClusterState): Record<string, unknown> | undefined {
  const active = c.certificateAuthorities.find((x) => x.signingStatus === 'IN_USE');
  return active === undefined ? undefined : { id: active.id, activatedBy: active.activatedBy ?? 'EKS' };
}

export function certificateAuthorityOperation(
  world: World,
  delayMs: number,
  c: ClusterState,
  operation: (typeof CA_OPERATIONS)[number],
  params: Record<string, string>,
  caData: string,
): Record<string, unknown> {
  const find = (): ClusterCertificateAuthority => {
    const ca = c.certificateAuthorities.find((x) => x.id === params.certificateAuthorityId);
    if (!ca)
      throw new EksError(404, 'ResourceNotFoundException', 'No certificate authority found with that id.', {
        clusterName: c.name,
      });
    return ca;
  };
  switch (operation) {
    case 'ListCertificateAuthorities':
      return { certificateAuthorities: c.certificateAuthorities.map(summaryJson) };
    case 'DescribeCertificateAuthority':
      return { certificateAuthority: caJson(find(), caData) };
    case 'CreateCertificateAuthority': {
      if (c.certificateAuthorities.some((x) => x.signingStatus !== 'IN_USE' && !x.rollbackAvailable))
        throw new EksError(
          409,
          'ResourceInUseException',
          'A successor certificate authority already exists.',
          {
            clusterName: c.name,
          },
        );
      const ca: ClusterCertificateAuthority = {
        id: uuid(),
        signingStatus: 'NOT_USED',
        distributionStatus: 'IN_PROGRESS',
        createdBy: 'CUSTOMER',
        createdAt: isoNow(),
      };
      c.certificateAuthorities = c.certificateAuthorities.filter((x) => !x.rollbackAvailable);
      c.certificateAuthorities.push(ca);
      world.log(`${c.name}: certificate authority ${ca.id} created (distributing)`);
      world.later(delayMs, () => {
        ca.distributionStatus = 'COMPLETE';
        world.log(`${c.name}: certificate authority ${ca.id} distributed to EKS-managed compute`);
      });
      return {
        update: caUpdate([{ type: 'CertificateAuthorityId', value: ca.id }]),
        certificateAuthority: summaryJson(ca),
      };
    }
    case 'ActivateCertificateAuthority': {
      const ca = find();
      if (ca.signingStatus === 'IN_USE')
        throw new EksError(400, 'InvalidRequestException', 'The certificate authority is already in use.', {
          clusterName: c.name,
        });
      if (ca.distributionStatus !== 'COMPLETE')
        throw new EksError(
          400,
          'InvalidRequestException',
          'The certificate authority has not been distributed yet.',
          { clusterName: c.name },
        );
      ca.signingStatus = 'ACTIVATING';
      world.log(`${c.name}: activating certificate authority ${ca.id}`);
      world.later(delayMs, () => activate(world, c, ca, 'CUSTOMER'));
      return {
        update: caUpdate([{ type: 'ActiveCertificateAuthority', value: ca.id }]),
        certificateAuthority: summaryJson(ca),
      };
    }
  }
}

/** The successor signs from now on; nodes EKS does not manage that do not trust it lose the API server. */
export function activate(
  world: World,
  c: ClusterState,
  ca: ClusterCertificateAuthority,
  by: 'CUSTOMER' | 'EKS',
): void {
  if (c.removed) return;
  const now = isoNow();
  for (const old of c.certificateAuthorities)
    if (old !== ca && old.signingStatus === 'IN_USE') {
      old.signingStatus = 'NOT_USED' satisfies CaSigningStatus;
      old.rollbackAvailable = true;
    }
  ca.signingStatus = 'IN_USE';
  ca.activatedAt = now;
  ca.activatedBy = by;
  const trusted = c.caTrust.get(ca.id) ?? new Set<string>();
  const lost: string[] = [];
  for (const node of c.nodes) {
    if (MANAGED_BY_EKS.has(node.kind) || node.instanceState !== 'running' || trusted.has(node.id)) continue;
    if (node.ready !== 'Unknown') {
      node.ready = 'Unknown';
      node.readySince = now;
      lost.push(node.nodeName ?? node.id);
    }
  }
  world.log(
    `${c.name}: certificate authority ${ca.id} in use${lost.length > 0 ? `; ${lost.length} node(s) EKS does not manage lost the API server: ${lost.join(', ')}` : ''}`,
  );
}
