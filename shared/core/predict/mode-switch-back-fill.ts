/**
 * What a CONFIG_MAP → API_AND_CONFIG_MAP switch does to the aws-auth lines EKS manages for managed
 * node groups and Fargate profiles: two sources disagree (docs/eks-auth-semantics.md#mode-switch-back-fill),
 * neither verified. Every prediction of such a switch (simulate.ts, whatif, the event path) names
 * the reading it assumed through this constant.
 */
export const MODE_SWITCH_BACK_FILL = {
  id: 'api-reference: no access entries created for existing node groups and Fargate profiles',
  assumed:
    'the EKS API reference: in API_AND_CONFIG_MAP EKS keeps writing aws-auth for managed node groups and Fargate profiles, and the switch creates no access entries for the existing ones.',
  other:
    'an AWS EKS PM statement (aws/containers-roadmap#185): the switch migrates those aws-auth lines into node-type access entries, and EKS manages only access entries for them from then on.',
} as const;

/** One sentence naming the assumption and the reading not taken. */
export function modeSwitchBackFillText(): string {
  return `Assumed ${MODE_SWITCH_BACK_FILL.assumed} Not assumed: ${MODE_SWITCH_BACK_FILL.other} Unverified either way, so the fix creates the entries regardless.`;
}
