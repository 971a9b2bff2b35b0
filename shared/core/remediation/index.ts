/**
 * The entry of `shared/core/remediation/`: opt-in prevention, planned from data (plan-actions.ts),
 * the mapRoles text of a restore (restore-map-roles.ts) and the alert of each action
 * (action-alert.ts). The writes themselves are the app's (shared/app/remediate.ts).
 */
export {
  ACTION_RESULTS,
  type ActionCall,
  type ActionOutcome,
  type ActionResult,
  actionFinding,
  callCommand,
  REMEDIATION_RULE_ID,
} from './action-alert.ts';
export {
  type ActionKind,
  type AwsAuthGuard,
  beforeNodegroupDeletion,
  type Dependants,
  type MapRolesEntry,
  planAwsAuthRemoval,
  planNodegroupDeletion,
  REMEDIATION_MODES,
  type RemediationAction,
  type RemediationMode,
  type RemediationPlan,
  type RemovalOptions,
  type SkippedRole,
} from './plan-actions.ts';
export { type RestoreText, restoreMapRoles } from './restore-map-roles.ts';
