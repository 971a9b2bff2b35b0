/**
 * The rules the monitor runs — on a snapshot (`state`), between two (`transition`), on a change
 * (`change`): everything but blue/green parity (parity-rules.ts, run by `compare` alone). The
 * engine and the alert lifecycle take their rules from here, so the event path's bundle carries no
 * parity code. The whole catalog, in the order of the README's table, is registry.ts.
 */
import { accessEntryDeletionLocksOut } from './access-entry-deletion-locks-out.ts';
import { accessEntryDeletionUnauthorizes } from './access-entry-deletion-unauthorizes.ts';
import { accessEntryEksOwnedRemoved } from './access-entry-eks-owned-removed.ts';
import { accessEntryOrphaned } from './access-entry-orphaned.ts';
import { accessEntryStalePrincipal } from './access-entry-stale-principal.ts';
import { awsAuthEntryRemoved } from './aws-auth-entry-removed.ts';
import { awsAuthGroupLooksMalformed } from './aws-auth-group-looks-malformed.ts';
import { awsAuthNodeRoleMissingGroups } from './aws-auth-node-role-missing-groups.ts';
import { awsAuthParseFailure } from './aws-auth-parse-failure.ts';
import { awsAuthRoleArnHasPath } from './aws-auth-role-arn-has-path.ts';
import { awsAuthShadowedDuplicate } from './aws-auth-shadowed-duplicate.ts';
import { awsAuthWriteAttributed } from './aws-auth-write-attributed.ts';
import { clusterAdminGranted } from './cluster-admin-granted.ts';
import { clusterApiModeIgnoresAwsAuth } from './cluster-api-mode-ignores-aws-auth.ts';
import { clusterAuthModeDropsPrincipals } from './cluster-auth-mode-drops-principals.ts';
import { clusterCaRotationUnmanagedNodes } from './cluster-ca-rotation-unmanaged-nodes.ts';
import { clusterConfigmapOnlyMode } from './cluster-configmap-only-mode.ts';
import { clusterModeSwitchNodeEntries } from './cluster-mode-switch-node-entries.ts';
import { fargateEntryNotInIac } from './fargate-entry-not-in-iac.ts';
import { fargatePodExecutionRoleUnauthorized } from './fargate-pod-execution-role-unauthorized.ts';
import { irsaOidcProviderMissing } from './irsa-oidc-provider-missing.ts';
import { irsaRoleNotFound } from './irsa-role-not-found.ts';
import { irsaTrustMissingClusterIssuer } from './irsa-trust-missing-cluster-issuer.ts';
import { monitorRealtimeUnavailable } from './monitor-realtime-unavailable.ts';
import { monitorSourceUnavailable } from './monitor-source-unavailable.ts';
import { nodegroupDeletionOrphansRole } from './nodegroup-deletion-orphans-role.ts';
import { nodesRoleUnauthorized } from './nodes-role-unauthorized.ts';
import { podIdentityAgentMissing } from './pod-identity-agent-missing.ts';
import { podIdentityNodeRoleCannotAssume } from './pod-identity-node-role-cannot-assume.ts';
import { podIdentityRoleNotFound } from './pod-identity-role-not-found.ts';
import { podIdentityRoleTrustMissing } from './pod-identity-role-trust-missing.ts';
import { podIdentityServiceAccountMissing } from './pod-identity-service-account-missing.ts';
import { podIdentityUnsupportedCompute } from './pod-identity-unsupported-compute.ts';
import type { Rule } from './types.ts';
import { workloadIdentityIrsaAndPodIdentity } from './workload-identity-irsa-and-pod-identity.ts';

export const MONITOR_RULES: readonly Rule[] = [
  nodesRoleUnauthorized,
  fargatePodExecutionRoleUnauthorized,
  awsAuthParseFailure,
  nodegroupDeletionOrphansRole,
  accessEntryDeletionUnauthorizes,
  accessEntryDeletionLocksOut,
  accessEntryEksOwnedRemoved,
  clusterAuthModeDropsPrincipals,
  clusterApiModeIgnoresAwsAuth,
  clusterCaRotationUnmanagedNodes,
  accessEntryStalePrincipal,
  fargateEntryNotInIac,
  awsAuthEntryRemoved,
  awsAuthWriteAttributed,
  awsAuthRoleArnHasPath,
  awsAuthNodeRoleMissingGroups,
  awsAuthGroupLooksMalformed,
  clusterAdminGranted,
  awsAuthShadowedDuplicate,
  accessEntryOrphaned,
  clusterConfigmapOnlyMode,
  clusterModeSwitchNodeEntries,
  monitorSourceUnavailable,
  monitorRealtimeUnavailable,
  // Workload identity (Pod Identity, IRSA)
  podIdentityRoleTrustMissing,
  podIdentityRoleNotFound,
  podIdentityAgentMissing,
  podIdentityNodeRoleCannotAssume,
  podIdentityUnsupportedCompute,
  podIdentityServiceAccountMissing,
  irsaTrustMissingClusterIssuer,
  irsaOidcProviderMissing,
  irsaRoleNotFound,
  workloadIdentityIrsaAndPodIdentity,
];
