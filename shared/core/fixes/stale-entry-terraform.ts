/**
 * The Terraform for `access-entry/stale-principal`: an access entry is bound to the role ID it was
 * created for, so after the role is re-created it matches nothing. A whole file that keeps the
 * entry bound to the current role for good: the role is looked up by name (`data "aws_iam_role"`,
 * which also gives its ARN with the IAM path), its unique ID is held by a `terraform_data`, and
 * the entry and its policy associations are replaced whenever that ID changes
 * (`lifecycle { replace_triggered_by }`). Pure; every value quoted by `quote/hcl.ts`.
 */

import { roleNameOf } from '../access/principal.ts';
import type { AccessEntry } from '../model.ts';
import type { HclItem } from '../quote/hcl.ts';
import { terraformName } from './remediation.ts';
import { accessEntriesFile } from './terraform-access-entries.ts';

export function staleEntryTerraform(cluster: string, entry: AccessEntry): HclItem[] {
  const name = terraformName(entry.principalArn);
  const roleName = roleNameOf(entry.principalArn) ?? entry.principalArn;
  const standard = entry.type === 'STANDARD';
  return accessEntriesFile(
    cluster,
    [
      {
        name,
        principalArn: { reference: `data.aws_iam_role.${name}.arn` },
        type: entry.type,
        ...(standard && entry.username ? { username: entry.username } : {}),
        ...(standard && entry.kubernetesGroups.length > 0
          ? { kubernetesGroups: entry.kubernetesGroups }
          : {}),
        ...(entry.accessPolicies.length > 0
          ? {
              accessPolicies: entry.accessPolicies.map((p) => ({
                policyArn: p.policyArn,
                accessScope: p.accessScope,
              })),
            }
          : {}),
        replaceTriggeredBy: [`terraform_data.${name}_role_id`],
      },
    ],
    [
      {
        comment:
          'The entry is bound to the role ID it was created for: replace it whenever the role is re-created.',
      },
      {
        block: 'data',
        labels: ['aws_iam_role', name],
        body: [{ name: 'name', value: { string: roleName } }],
      },
      { blank: true },
      {
        block: 'resource',
        labels: ['terraform_data', `${name}_role_id`],
        body: [{ name: 'input', value: { reference: `data.aws_iam_role.${name}.unique_id` } }],
      },
    ],
  );
}

/** How to apply it the first time (prose: a note, not under the Terraform label). */
export function staleEntryTerraformNote(principalArn: string): string {
  const name = terraformName(principalArn);
  return `Terraform: a new terraform_data does not trigger the replacement, so the first time replace the entry once with \`terraform apply -replace=aws_eks_access_entry.${name}\` (the entry already in state), or, when Terraform does not manage it yet, delete it with the AWS CLI's delete-access-entry above before \`terraform apply\`.`;
}
