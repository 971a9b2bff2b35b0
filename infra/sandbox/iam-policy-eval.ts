/**
 * A small IAM permission-policy evaluator for the sandbox's SimulatePrincipalPolicy: a role's
 * attached managed policies (the few AWS-managed ones the sandbox knows) and inline documents,
 * Allow where a statement's Action (or NotAction) matches, an explicit Deny over any Allow, else
 * an implicit deny. Resources and conditions are not evaluated (the actions asked take `*`).
 */
import type { SandboxIamRole } from './types.ts';

/** What the AWS-managed policies the sandbox knows allow (the actions that matter here). */
const MANAGED: Record<string, string[]> = {
  AmazonEKSWorkerNodePolicy: [
    'ec2:DescribeInstances',
    'ec2:DescribeRouteTables',
    'ec2:DescribeSecurityGroups',
    'ec2:DescribeSubnets',
    'ec2:DescribeVolumes',
    'ec2:DescribeVolumesModifications',
    'ec2:DescribeVpcs',
    'eks:DescribeCluster',
    'eks-auth:AssumeRoleForPodIdentity',
  ],
  AmazonEKSWorkerNodeMinimalPolicy: ['eks-auth:AssumeRoleForPodIdentity'],
  AmazonEKS_CNI_Policy: ['ec2:AssignPrivateIpAddresses', 'ec2:DescribeInstances'],
  AmazonEC2ContainerRegistryReadOnly: ['ecr:GetAuthorizationToken', 'ecr:BatchGetImage'],
};

type Decision = 'allowed' | 'implicitDeny' | 'explicitDeny';

function list(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function matches(pattern: string, action: string): boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    'i',
  );
  return re.test(action);
}

function statementsOf(document: string): Array<Record<string, unknown>> {
  try {
    const parsed = JSON.parse(document) as { Statement?: unknown };
    const st = parsed.Statement;
    const all = Array.isArray(st) ? st : st === undefined ? [] : [st];
    return all.filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null);
  } catch {
    return [];
  }
}

export function simulateAction(role: SandboxIamRole, action: string): Decision {
  const statements: Array<Record<string, unknown>> = [];
  for (const arn of role.attachedPolicies ?? []) {
    const name = arn.slice(arn.lastIndexOf('/') + 1);
    const actions = MANAGED[name];
    if (actions !== undefined) statements.push({ Effect: 'Allow', Action: actions, Resource: '*' });
  }
  for (const document of Object.values(role.inlinePolicies ?? {})) statements.push(...statementsOf(document));
  let allowed = false;
  for (const s of statements) {
    const hit =
      s.Action !== undefined
        ? list(s.Action).some((p) => matches(p, action))
        : s.NotAction !== undefined && !list(s.NotAction).some((p) => matches(p, action));
    if (!hit) continue;
    if (s.Effect === 'Deny') return 'explicitDeny';
    if (s.Effect === 'Allow') allowed = true;
  }
  return allowed ? 'allowed' : 'implicitDeny';
}
