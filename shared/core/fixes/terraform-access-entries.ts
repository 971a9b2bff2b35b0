/**
 * Access entries as Terraform: a whole file of `aws_eks_access_entry` and
 * `aws_eks_access_policy_association` resources that `terraform validate` accepts alone (the AWS
 * provider ≥ 5.33 is implied by the resource types: no `provider` or `required_providers` block, so
 * the file also drops into an existing configuration), then the same entries as the
 * terraform-aws-modules/eks `access_entries` input, commented out and labelled as what it is: a
 * fragment of that module's input, an alternative to the resources. Every value is quoted by
 * `quote/hcl.ts` from structured data. Pure.
 */
import type { AccessEntryType, AccessScope } from '../model.ts';
import type { HclAttribute, HclItem, HclValue } from '../quote/hcl.ts';

/** One access entry as the Terraform writes it. */
export interface TerraformEntry {
  /** The resource name (an identifier: `uniqueTerraformNames`). */
  name: string;
  /** The principal's ARN, or an expression that gives it (`data.aws_iam_role.x.arn`). */
  principalArn: string | { reference: string };
  type: AccessEntryType;
  username?: string;
  kubernetesGroups?: readonly string[];
  accessPolicies?: ReadonlyArray<{ policyArn: string; accessScope: AccessScope }>;
  /** `lifecycle { replace_triggered_by = [...] }` of the entry (and, through it, its policies). */
  replaceTriggeredBy?: readonly string[];
}

const str = (s: string): HclValue => ({ string: s });
const arnValue = (e: TerraformEntry): HclValue =>
  typeof e.principalArn === 'string' ? str(e.principalArn) : e.principalArn;

function scopeHcl(scope: AccessScope): HclAttribute[] {
  return [
    { name: 'type', value: str(scope.type) },
    ...(scope.type === 'namespace' ? [{ name: 'namespaces', value: { list: scope.namespaces ?? [] } }] : []),
  ];
}

/** The policy name of an access-policy ARN, as an identifier: `AmazonEKSAdminPolicy` → `admin`. */
function policyKey(policyArn: string): string {
  const last = policyArn.split('/').pop() ?? 'policy';
  const short = last.replace(/^AmazonEKS/, '').replace(/Policy$/, '') || last;
  const snake = short
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toLowerCase();
  return /^[a-z_]/.test(snake) ? snake : `p_${snake}`;
}

/** Unique keys for an entry's policies: `cluster_admin`, `view`, `view_2` … */
function policyKeys(policies: TerraformEntry['accessPolicies']): string[] {
  const used = new Set<string>();
  return (policies ?? []).map((p) => {
    const base = policyKey(p.policyArn);
    let k = base;
    for (let n = 2; used.has(k); n++) k = `${base}_${n}`;
    used.add(k);
    return k;
  });
}

/** The entry and its policy associations as resources of cluster `cluster`. */
export function entryResources(cluster: string, e: TerraformEntry): HclItem[] {
  const body: HclItem[] = [
    { name: 'cluster_name', value: str(cluster) },
    { name: 'principal_arn', value: arnValue(e) },
    { name: 'type', value: str(e.type) },
    ...(e.username === undefined ? [] : [{ name: 'user_name', value: str(e.username) }]),
    ...(e.kubernetesGroups === undefined || e.kubernetesGroups.length === 0
      ? []
      : [{ name: 'kubernetes_groups', value: { list: e.kubernetesGroups } }]),
  ];
  if (e.replaceTriggeredBy !== undefined && e.replaceTriggeredBy.length > 0)
    body.push(
      { blank: true },
      {
        block: 'lifecycle',
        labels: [],
        body: [{ name: 'replace_triggered_by', value: { references: e.replaceTriggeredBy } }],
      },
    );
  const items: HclItem[] = [{ block: 'resource', labels: ['aws_eks_access_entry', e.name], body }];
  const keys = policyKeys(e.accessPolicies);
  (e.accessPolicies ?? []).forEach((p, i) => {
    items.push(
      { blank: true },
      {
        block: 'resource',
        // `<entry>__<policy>`: the policies of one entry have distinct keys
        labels: ['aws_eks_access_policy_association', `${e.name}__${keys[i] ?? `policy_${i + 1}`}`],
        body: [
          { name: 'cluster_name', value: str(cluster) },
          // a reference, so Terraform creates (and re-creates) the entry first
          { name: 'principal_arn', value: { reference: `aws_eks_access_entry.${e.name}.principal_arn` } },
          { name: 'policy_arn', value: str(p.policyArn) },
          { blank: true },
          { block: 'access_scope', labels: [], body: scopeHcl(p.accessScope) },
          ...(e.replaceTriggeredBy !== undefined && e.replaceTriggeredBy.length > 0
            ? [
                { blank: true as const },
                {
                  block: 'lifecycle',
                  labels: [],
                  body: [
                    {
                      name: 'replace_triggered_by',
                      value: { references: [`aws_eks_access_entry.${e.name}`] },
                    },
                  ],
                },
              ]
            : []),
        ],
      },
    );
  });
  return items;
}

/** One item of the terraform-aws-modules/eks `access_entries` input. */
export function moduleEntry(e: TerraformEntry): HclAttribute {
  const body: HclAttribute[] = [
    { name: 'principal_arn', value: arnValue(e) },
    { name: 'type', value: str(e.type) },
  ];
  if (e.username !== undefined) body.push({ name: 'user_name', value: str(e.username) });
  if (e.kubernetesGroups !== undefined && e.kubernetesGroups.length > 0)
    body.push({ name: 'kubernetes_groups', value: { list: e.kubernetesGroups } });
  const policies = e.accessPolicies ?? [];
  if (policies.length > 0) {
    const keys = policyKeys(policies);
    body.push({
      name: 'policy_associations',
      value: {
        object: policies.map((p, i) => ({
          name: keys[i] ?? `policy_${i + 1}`,
          value: {
            object: [
              { name: 'policy_arn', value: str(p.policyArn) },
              { name: 'access_scope', value: { object: scopeHcl(p.accessScope), inline: true } },
            ],
          },
        })),
      },
    });
  }
  return { name: e.name, value: { object: body } };
}

/**
 * The entries as a whole file: `head` comments, the resources, then the module alternative
 * commented out under a label naming the input it belongs to.
 */
export function accessEntriesFile(
  cluster: string,
  entries: readonly TerraformEntry[],
  head: readonly HclItem[] = [],
): HclItem[] {
  const items: HclItem[] = [...head];
  for (const e of entries) {
    if (items.length > 0) items.push({ blank: true });
    items.push(...entryResources(cluster, e));
  }
  if (entries.length === 0) return items;
  items.push(
    { blank: true },
    {
      comment:
        'Or, with terraform-aws-modules/eks, instead of the resources above: add to the access_entries input of its module (module "eks" { … }):',
    },
    { commentedOut: [{ name: 'access_entries', value: { object: entries.map(moduleEntry) } }] },
  );
  return items;
}
