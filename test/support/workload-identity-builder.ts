/**
 * Snapshots with workload identity for rule tests: a healthy Pod Identity cluster and a healthy
 * IRSA cluster, each a fresh object the test may change, and the fire/silent cases of the ten
 * workload-identity rules for the catalog test.
 */

import type {
  ClusterSnapshot,
  Finding,
  IamRole,
  PodIdentityAssociation,
  ServiceAccount,
} from '../../shared/core/model.ts';
import { assessSnapshot, compareSnapshots } from '../../shared/core/predict/engine.ts';
import {
  ACCOUNT,
  type BuildOptions,
  buildSnapshot,
  fargateProfile,
  managedNodes,
  NODE_ROLE,
} from './snapshot-builder.ts';

export const APP_ROLE = `arn:aws:iam::${ACCOUNT}:role/app-s3-reader`;
export const IRSA_ROLE = `arn:aws:iam::${ACCOUNT}:role/irsa-app`;
export const ISSUER_ID = 'ABCDEF0123456789ABCDEF0123456789';
export const ISSUER = `https://oidc.eks.eu-west-1.amazonaws.com/id/${ISSUER_ID}`;
export const ISSUER_PATH = ISSUER.slice('https://'.length);
export const PROVIDER_ARN = `arn:aws:iam::${ACCOUNT}:oidc-provider/${ISSUER_PATH}`;

export const podIdentityTrust = (actions: string[] = ['sts:AssumeRole', 'sts:TagSession']) =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Principal: { Service: 'pods.eks.amazonaws.com' }, Action: actions }],
  });

export const irsaTrust = (issuerPath = ISSUER_PATH, sub = 'system:serviceaccount:apps:web') =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Federated: `arn:aws:iam::${ACCOUNT}:oidc-provider/${issuerPath}` },
        Action: 'sts:AssumeRoleWithWebIdentity',
        Condition: {
          StringEquals: { [`${issuerPath}:sub`]: sub, [`${issuerPath}:aud`]: 'sts.amazonaws.com' },
        },
      },
    ],
  });

export function association(over: Partial<PodIdentityAssociation> = {}): PodIdentityAssociation {
  return { associationId: 'a-0001', namespace: 'apps', serviceAccount: 'reader', roleArn: APP_ROLE, ...over };
}

export function role(arn: string, trustPolicy?: string, over: Partial<IamRole> = {}): IamRole {
  return {
    arn,
    state: 'exists',
    roleId: 'AROAEXAMPLE',
    createDate: '2025-01-01T00:00:00Z',
    ...(trustPolicy === undefined ? {} : { trustPolicy }),
    ...over,
  };
}

export interface WorkloadOptions extends BuildOptions {
  associations?: PodIdentityAssociation[];
  serviceAccounts?: ServiceAccount[];
  roles?: IamRole[];
  agentStatus?: string | null;
}

/** A healthy Pod Identity cluster: agent ACTIVE, node role allowed, role trusted, SA present. */
export function podIdentitySnapshot(o: WorkloadOptions = {}): ClusterSnapshot {
  const s = buildSnapshot({ mode: 'API_AND_CONFIG_MAP', ...o });
  return {
    ...s,
    cluster: { ...s.cluster, oidcIssuer: ISSUER },
    iamRoles: { status: 'ok', data: o.roles ?? [role(APP_ROLE, podIdentityTrust())] },
    podIdentityAssociations: { status: 'ok', data: o.associations ?? [association()] },
    addons: {
      status: 'ok',
      data:
        o.agentStatus === null
          ? [{ name: 'vpc-cni', status: 'ACTIVE', healthIssues: [] }]
          : [{ name: 'eks-pod-identity-agent', status: o.agentStatus ?? 'ACTIVE', healthIssues: [] }],
    },
    oidcProviders: { status: 'ok', data: [] },
    serviceAccounts: { status: 'ok', data: o.serviceAccounts ?? [{ namespace: 'apps', name: 'reader' }] },
    nodeRolePermissions: {
      status: 'ok',
      data: [{ roleArn: NODE_ROLE, action: 'eks-auth:AssumeRoleForPodIdentity', decision: 'allowed' }],
    },
  };
}

/** A healthy IRSA cluster: provider registered, the role trusts this issuer for apps/web. */
export function irsaSnapshot(
  o: WorkloadOptions & { providers?: string[]; clientIds?: string[] | null } = {},
): ClusterSnapshot {
  const s = buildSnapshot({ mode: 'API_AND_CONFIG_MAP', ...o });
  return {
    ...s,
    cluster: { ...s.cluster, oidcIssuer: ISSUER },
    iamRoles: { status: 'ok', data: o.roles ?? [role(IRSA_ROLE, irsaTrust())] },
    podIdentityAssociations: { status: 'ok', data: o.associations ?? [] },
    addons: { status: 'ok', data: [] },
    oidcProviders: {
      status: 'ok',
      data: (o.providers ?? [ISSUER_PATH]).map((url) => ({
        arn: `arn:aws:iam::${ACCOUNT}:oidc-provider/${url}`,
        url,
        // null: not read (a snapshot from before GetOpenIDConnectProvider was captured).
        ...(o.clientIds === null ? {} : { clientIds: o.clientIds ?? ['sts.amazonaws.com'] }),
      })),
    },
    serviceAccounts: {
      status: 'ok',
      data: o.serviceAccounts ?? [{ namespace: 'apps', name: 'web', roleArnAnnotation: IRSA_ROLE }],
    },
    nodeRolePermissions: { status: 'ok', data: [] },
  };
}

const assess = (s: ClusterSnapshot) => assessSnapshot(s);

export const WORKLOAD_IDENTITY_CASES: Record<string, { fires: () => Finding[]; silent: () => Finding[] }> = {
  'pod-identity/role-trust-missing': {
    fires: () =>
      assess(podIdentitySnapshot({ roles: [role(APP_ROLE, podIdentityTrust(['sts:AssumeRole']))] })),
    silent: () => assess(podIdentitySnapshot()),
  },
  'pod-identity/role-not-found': {
    fires: () => assess(podIdentitySnapshot({ roles: [role(APP_ROLE, undefined, { state: 'missing' })] })),
    silent: () => assess(podIdentitySnapshot()),
  },
  'pod-identity/agent-missing': {
    fires: () => assess(podIdentitySnapshot({ agentStatus: null })),
    silent: () => assess(podIdentitySnapshot()),
  },
  'pod-identity/node-role-cannot-assume': {
    fires: () => {
      const s = podIdentitySnapshot();
      return assess({
        ...s,
        nodeRolePermissions: {
          status: 'ok',
          data: [
            { roleArn: NODE_ROLE, action: 'eks-auth:AssumeRoleForPodIdentity', decision: 'implicitDeny' },
          ],
        },
      });
    },
    silent: () => assess(podIdentitySnapshot()),
  },
  'pod-identity/unsupported-compute': {
    fires: () =>
      assess(
        podIdentitySnapshot({
          fargateProfiles: [fargateProfile('fp-apps', undefined, { selectors: [{ namespace: 'app*' }] })],
        }),
      ),
    silent: () =>
      assess(
        podIdentitySnapshot({
          fargateProfiles: [fargateProfile('fp-batch', undefined, { selectors: [{ namespace: 'batch' }] })],
        }),
      ),
  },
  'pod-identity/service-account-missing': {
    fires: () => assess(podIdentitySnapshot({ serviceAccounts: [{ namespace: 'apps', name: 'readr' }] })),
    silent: () => assess(podIdentitySnapshot()),
  },
  'irsa/trust-missing-cluster-issuer': {
    fires: () =>
      assess(
        irsaSnapshot({ roles: [role(IRSA_ROLE, irsaTrust('oidc.eks.eu-west-1.amazonaws.com/id/BLUE'))] }),
      ),
    silent: () => assess(irsaSnapshot()),
  },
  'irsa/oidc-provider-missing': {
    fires: () => assess(irsaSnapshot({ providers: ['oidc.eks.eu-west-1.amazonaws.com/id/BLUE'] })),
    silent: () => assess(irsaSnapshot()),
  },
  'irsa/role-not-found': {
    fires: () => assess(irsaSnapshot({ roles: [role(IRSA_ROLE, undefined, { state: 'missing' })] })),
    silent: () => assess(irsaSnapshot()),
  },
  'workload-identity/irsa-and-pod-identity': {
    fires: () =>
      assess(
        podIdentitySnapshot({
          serviceAccounts: [{ namespace: 'apps', name: 'reader', roleArnAnnotation: IRSA_ROLE }],
        }),
      ),
    silent: () => assess(podIdentitySnapshot()),
  },
};

const CI = `arn:aws:iam::${ACCOUNT}:role/ci-deploy`;
const ci = (groups: string[]) => ({
  principalArn: CI,
  type: 'STANDARD' as const,
  kubernetesGroups: groups,
  accessPolicies: [],
});
const NEW_ISSUER_PATH = 'oidc.eks.eu-west-1.amazonaws.com/id/GREEN';

/** The same cluster after a blue/green move: a new OIDC issuer, registered as a provider. */
export function movedIssuer(s: ClusterSnapshot): ClusterSnapshot {
  return {
    ...s,
    cluster: { ...s.cluster, oidcIssuer: `https://${NEW_ISSUER_PATH}` },
    oidcProviders: {
      status: 'ok',
      data: [{ arn: `arn:aws:iam::${ACCOUNT}:oidc-provider/${NEW_ISSUER_PATH}`, url: NEW_ISSUER_PATH }],
    },
  };
}

export const PARITY_CASES: Record<string, { fires: () => Finding[]; silent: () => Finding[] }> = {
  'parity/access-missing': {
    fires: () => compareSnapshots(irsaSnapshot({ entries: [ci(['deployers'])] }), irsaSnapshot()),
    silent: () =>
      compareSnapshots(
        irsaSnapshot({ entries: [ci(['deployers'])] }),
        irsaSnapshot({ entries: [ci(['deployers'])] }),
      ),
  },
  'parity/access-differs': {
    fires: () =>
      compareSnapshots(
        irsaSnapshot({ entries: [ci(['deployers'])] }),
        irsaSnapshot({ entries: [ci(['viewers'])] }),
      ),
    silent: () =>
      compareSnapshots(
        irsaSnapshot({ entries: [ci(['deployers'])] }),
        irsaSnapshot({ entries: [ci(['deployers'])] }),
      ),
  },
  'parity/workload-identity-missing': {
    fires: () => compareSnapshots(irsaSnapshot(), movedIssuer(irsaSnapshot())),
    silent: () => compareSnapshots(irsaSnapshot(), irsaSnapshot()),
  },
};

export { managedNodes };
