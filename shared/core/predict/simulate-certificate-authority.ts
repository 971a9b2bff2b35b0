/**
 * CA rotation changes applied to a snapshot (docs/eks-auth-semantics.md#cluster-ca-rotation):
 * CreateCertificateAuthority adds a successor (`NOT_USED`, distribution in progress);
 * ActivateCertificateAuthority makes it `ACTIVATING` (the state that cuts off nodes EKS does not
 * manage once it completes). Without a readable CA list the successor is still added: the change
 * itself says one exists.
 */

import type { ClusterCertificateAuthority, ClusterSnapshot } from '../model.ts';
import type { Change } from './change.ts';

type CaChange = Extract<Change, { kind: 'create-certificate-authority' | 'activate-certificate-authority' }>;

export function simulateCaChange(
  s: ClusterSnapshot,
  change: CaChange,
  effect: (summary: string, assumed?: boolean) => void,
): void {
  const known = s.certificateAuthorities?.status === 'ok' ? s.certificateAuthorities.data : [];
  if (change.kind === 'create-certificate-authority') {
    const id = change.certificateAuthorityId ?? '(new successor)';
    const successor: ClusterCertificateAuthority = {
      id,
      signingStatus: 'NOT_USED',
      distributionStatus: 'IN_PROGRESS',
      createdBy: 'CUSTOMER',
    };
    s.certificateAuthorities = { status: 'ok', data: [...known.filter((c) => c.id !== id), successor] };
    effect(
      `EKS creates successor CA ${id} and distributes it to the control plane, managed node groups, Fargate and Auto Mode; nodes EKS does not manage (self-managed, Karpenter, hybrid) do not get it`,
    );
    effect(
      'EKS may activate it by itself on a schedule (scheduledEvents); the times are not known until the CA is described',
      true,
    );
    return;
  }
  const id = change.certificateAuthorityId;
  const found = known.find((c) => c.id === id);
  const activating: ClusterCertificateAuthority = {
    ...(found ?? { id, createdBy: 'CUSTOMER' }),
    id,
    signingStatus: 'ACTIVATING',
    distributionStatus: found?.distributionStatus ?? 'COMPLETE',
  };
  s.certificateAuthorities = {
    status: 'ok',
    data: [...known.filter((c) => c.id !== id), activating],
  };
  effect(
    `CA ${id} starts signing: nodes EKS does not manage that do not trust it can no longer verify the API server and go NotReady (none is assumed to trust it)`,
    true,
  );
}
