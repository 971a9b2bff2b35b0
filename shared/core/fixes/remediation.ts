/**
 * Copy-paste fixes: AWS CLI, Terraform (`aws_eks_access_entry` and the terraform-aws-eks
 * `access_entries` input) and aws-auth YAML, chosen by the cluster's authentication mode.
 */
import type { ConsumerInventory, RoleConsumer } from '../access/consumers.ts';
import { principalKey, roleArnWithoutPath, roleNameOf } from '../access/principal.ts';
import {
  AUTO_NODE_POLICY_ARN,
  FARGATE_GROUPS,
  NODE_GROUPS,
  NODE_USERNAME,
  type NodeRequirement,
  requiredEntryType,
  SESSION_NODE_USERNAME,
  WINDOWS_NODE_GROUPS,
} from '../access/resolve.ts';
import { entryArnOf, type UnknownEntryArn, unknownPathText } from '../access/role-arn.ts';
import type { AccessEntryType, BlastRadius, ComputeNode, Remediation } from '../model.ts';
import type { Analysis } from '../predict/analysis.ts';
import { type HclItem, type HclValue, renderHcl } from '../quote/hcl.ts';
import { jsonText } from '../quote/json.ts';
import type { Rendered } from '../quote/rendered.ts';
import {
  CONTINUE,
  renderShellScript,
  type ShellCommand,
  type ShellScript,
  type ShellWord,
} from '../quote/shell.ts';
import { type AwsAuthEntry, renderAwsAuthEntry } from '../quote/yaml.ts';
import { accessEntriesFile } from './terraform-access-entries.ts';

export const ADMIN_POLICY_ARN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';

/** A Terraform identifier from a role ARN: `prod-node-role` → `prod_node_role`. */
export function terraformName(arn: string): string {
  const base = (roleNameOf(arn) ?? arn.split('/').pop() ?? 'principal').replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(base) ? base : `r_${base}`;
}

/** `terraformName` of each ARN, with `_2`, `_3` … where two would be the same key. */
export function uniqueTerraformNames(arns: readonly string[]): string[] {
  const used = new Set<string>();
  return arns.map((arn) => {
    const base = terraformName(arn);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    return name;
  });
}

/** The fix as structured values; `renderFix` writes each block through its language's quoting layer. */
export interface FixPlan {
  /** What to do, one or two sentences (prose: renderers escape it). */
  summary: string;
  /**
   * AWS CLI commands (argv vectors): one script, run top to bottom under `set -euo pipefail`.
   * Only `aws` commands; other tools go to `alternatives`.
   */
  cli?: ShellScript;
  /** Other ways to the same fix (eksctl, kubectl …), each its own labelled script. */
  alternatives?: ReadonlyArray<{ label: string; script: ShellScript }>;
  /**
   * Terraform configuration: a whole file `terraform validate` accepts alone, or, with
   * `fragmentOf`, what to add to an existing block or module input (never a command line).
   */
  terraform?: { hcl: readonly HclItem[]; fragmentOf?: string };
  /** One aws-auth list item. */
  awsAuth?: AwsAuthEntry;
  /** A trust-policy document (the statements to add), written as JSON through `jsonText`. */
  trustPolicy?: unknown;
  /** Its statements are to be used instead of existing ones (named in the notes), not added. */
  trustPolicyReplaces?: boolean;
  notes?: string[];
}

const BLOCK_LABEL = {
  awsCli: 'AWS CLI command',
  terraform: 'Terraform',
  awsAuthYaml: 'aws-auth YAML',
} as const;

export interface FixContext {
  /** The cluster's Region: `aws iam …` commands get `--region` too (without a default Region the CLI refuses them). */
  region?: string;
}

/** The AWS CLI script each rendered remediation was made from (for `dedupeFixCommands`). */
const fixScripts = new WeakMap<Remediation, ShellScript>();

export function fixScriptOf(r: Remediation): ShellScript | undefined {
  return fixScripts.get(r);
}

const hasFlag = (c: ShellCommand, flag: string) =>
  c.argv.some((w) => typeof w !== 'string' && 'flag' in w && w.flag === flag);

/** `aws iam <op> …` without `--region` gets `--region <region>` after the operation. */
export function withIamRegion(script: ShellScript, region: string): ShellScript {
  return script.map((line) => {
    if ('comment' in line || line.argv[0] !== 'aws' || line.argv[1] !== 'iam' || hasFlag(line, '--region'))
      return line;
    return { argv: [...line.argv.slice(0, 3), { flag: '--region', value: region }, ...line.argv.slice(3)] };
  });
}

/**
 * The fix as the code blocks a user pastes. A block whose values its language cannot carry
 * exactly (a NUL in a shell argument, a lone surrogate) is left out, with a note saying why.
 */
export function renderFix(plan: FixPlan, context: FixContext = {}): Remediation {
  const cli = plan.cli && context.region !== undefined ? withIamRegion(plan.cli, context.region) : plan.cli;
  const out: Remediation = { summary: plan.summary };
  fixScripts.set(out, cli ?? []);
  const refused: string[] = [];
  const put = (field: keyof typeof BLOCK_LABEL, r: Rendered | undefined) => {
    if (r === undefined) return;
    if (r.ok) out[field] = r.text;
    else refused.push(`The ${BLOCK_LABEL[field]} is not shown: ${r.reason}.`);
  };
  put('awsCli', cli && renderShellScript(cli));
  for (const alt of plan.alternatives ?? []) {
    const r = renderShellScript(alt.script);
    if (r.ok) out.alternatives = [...(out.alternatives ?? []), { label: alt.label, shell: r.text }];
    else refused.push(`The ${alt.label} block is not shown: ${r.reason}.`);
  }
  const tf = plan.terraform;
  put('terraform', tf && renderHcl(tf.hcl));
  if (out.terraform !== undefined && tf?.fragmentOf !== undefined) out.terraformFragmentOf = tf.fragmentOf;
  put('awsAuthYaml', plan.awsAuth && renderAwsAuthEntry(plan.awsAuth));
  if (plan.trustPolicy !== undefined) out.trustPolicyJson = jsonText(plan.trustPolicy, 2);
  if (plan.trustPolicy !== undefined && plan.trustPolicyReplaces) out.trustPolicyReplaces = true;
  const notes = [...(plan.notes ?? []), ...refused];
  if (notes.length > 0) out.notes = notes;
  return out;
}

export const str = (s: string): HclValue => ({ string: s });

/** `aws eks <operation> --cluster-name <name> --region <region> …` */
export function eksCommand(
  a: Pick<Analysis, 'cluster'>,
  operation: string,
  ...words: ShellWord[]
): ShellCommand {
  return {
    argv: [
      'aws',
      'eks',
      operation,
      { flag: '--cluster-name', value: a.cluster.name },
      { flag: '--region', value: a.cluster.region },
      ...words,
    ],
  };
}

/** `aws eks update-cluster-config … --access-config authenticationMode=<mode>` */
export function authModeCommand(cluster: { name: string; region: string }, mode: string): ShellCommand {
  return {
    argv: [
      'aws',
      'eks',
      'update-cluster-config',
      { flag: '--name', value: cluster.name },
      { flag: '--region', value: cluster.region },
      CONTINUE,
      '--access-config',
      `authenticationMode=${mode}`,
    ],
  };
}

/** `aws eks wait cluster-active …`: the switch is an update that takes minutes. */
export function waitActiveCommand(cluster: { name: string; region: string }): ShellCommand {
  return {
    argv: [
      'aws',
      'eks',
      'wait',
      'cluster-active',
      { flag: '--name', value: cluster.name },
      { flag: '--region', value: cluster.region },
    ],
  };
}

/** The switch, then the wait until the cluster is ACTIVE again (access-entry calls before it fail). */
export function modeSwitchScript(cluster: { name: string; region: string }, mode: string): ShellCommand[] {
  return [authModeCommand(cluster, mode), waitActiveCommand(cluster)];
}

export const principalArnFlag = (arn: string): ShellWord => ({ flag: '--principal-arn', value: arn });

function awsAuthMappingFor(roleArn: string, req: NodeRequirement): AwsAuthEntry {
  const rolearn = roleArnWithoutPath(roleArn);
  if (req === 'fargate' || req === 'hybrid') {
    return {
      role: {
        rolearn,
        username: SESSION_NODE_USERNAME,
        groups: req === 'fargate' ? [...FARGATE_GROUPS] : [...NODE_GROUPS],
      },
    };
  }
  return {
    role: {
      rolearn,
      username: NODE_USERNAME,
      groups: req === 'ec2-windows' ? [...WINDOWS_NODE_GROUPS] : [...NODE_GROUPS],
    },
  };
}

/**
 * The commands that leave `principalArn` with an access entry of `type` and no groups: create it;
 * or, over an entry EKS already has for that ARN — stale (bound to a deleted or re-created role)
 * or of another type (a type cannot be updated) — delete it first (create would fail with
 * ResourceInUseException); a STANDARD entry wanted with other groups is updated.
 */
export function accessEntryCommands(
  a: Pick<Analysis, 'cluster' | 'deadEntries'> & { accessEntries?: Analysis['accessEntries'] | undefined },
  principalArn: string,
  type: AccessEntryType,
  groups: readonly string[] = [],
): ShellCommand[] {
  const arn = principalArnFlag(principalArn);
  const key = principalKey(principalArn);
  const existing = a.accessEntries?.find((e) => e.principalArn === principalArn);
  const groupWords = groups.length > 0 ? [{ flag: '--kubernetes-groups', values: groups }] : [];
  const create = eksCommand(
    a,
    'create-access-entry',
    CONTINUE,
    arn,
    { flag: '--type', value: type },
    ...groupWords,
  );
  if (existing === undefined) return [create];
  const dead = a.deadEntries.get(key)?.entry === existing;
  if (!dead && existing.type === type && type === 'STANDARD') {
    return [
      eksCommand(a, 'update-access-entry', CONTINUE, arn, { flag: '--kubernetes-groups', values: groups }),
    ];
  }
  return [eksCommand(a, 'delete-access-entry', CONTINUE, arn), create];
}

function accessEntryCli(
  a: Analysis,
  principalArn: string,
  type: AccessEntryType,
  options: NodeAccessOptions = {},
): ShellCommand[] {
  const entries = options.entriesAfter ?? a;
  return accessEntryCommands(
    { cluster: a.cluster, accessEntries: entries.accessEntries, deadEntries: entries.deadEntries },
    principalArn,
    type,
  );
}

function accessEntryTerraform(
  a: Analysis,
  principalArn: string,
  type: AccessEntryType,
  head: readonly HclItem[] = [],
): HclItem[] {
  // An EC2 entry (an Auto Mode custom NodeClass role) needs AmazonEKSAutoNodePolicy with it.
  const accessPolicies =
    type === 'EC2'
      ? [{ policyArn: AUTO_NODE_POLICY_ARN, accessScope: { type: 'cluster' as const } }]
      : undefined;
  return accessEntriesFile(
    a.cluster.name,
    [
      {
        name: terraformName(principalArn),
        principalArn,
        type,
        ...(accessPolicies ? { accessPolicies } : {}),
      },
    ],
    head,
  );
}

/**
 * The access entry of a role whose IAM path is unknown: a `data "aws_iam_role"` looks the role up
 * by name, and the entry takes the ARN IAM gives (path included).
 */
export function roleLookupEntryTerraform(
  a: Analysis,
  roleName: string,
  type: AccessEntryType,
  head: readonly HclItem[] = [],
): HclItem[] {
  const name = terraformName(`arn:aws:iam::000000000000:role/${roleName}`);
  return accessEntriesFile(
    a.cluster.name,
    [{ name, principalArn: { reference: `data.aws_iam_role.${name}.arn` }, type }],
    [
      ...head,
      ...(head.length > 0 ? [{ blank: true as const }] : []),
      { comment: "The role's IAM path is not known here: IAM gives its ARN, path included." },
      { block: 'data', labels: ['aws_iam_role', name], body: [{ name: 'name', value: str(roleName) }] },
    ],
  );
}

/** `aws eks associate-access-policy … AmazonEKSAutoNodePolicy`: what an Auto Mode node role's EC2 entry needs. */
function autoNodePolicyCli(a: Analysis, principalArn: string): ShellCommand {
  return eksCommand(
    a,
    'associate-access-policy',
    CONTINUE,
    principalArnFlag(principalArn),
    { flag: '--policy-arn', value: AUTO_NODE_POLICY_ARN },
    { flag: '--access-scope', value: 'type=cluster' },
  );
}

const MODE_SWITCH_NOTE =
  'This cluster runs in CONFIG_MAP mode: access entries need the authentication mode switched to API_AND_CONFIG_MAP first. The switch is one-way and keeps aws-auth working.';

/** `eksctl create iamidentitymapping …`: appends one mapping to aws-auth. */
function eksctlMappingCommand(a: Analysis, entry: AwsAuthEntry): ShellCommand | undefined {
  if (!('role' in entry)) return undefined;
  const { rolearn, username, groups } = entry.role;
  if (rolearn === undefined) return undefined;
  return {
    argv: [
      'eksctl',
      'create',
      'iamidentitymapping',
      { flag: '--cluster', value: a.cluster.name },
      { flag: '--region', value: a.cluster.region },
      CONTINUE,
      { flag: '--arn', value: rolearn },
      { flag: '--username', value: username },
      ...groups.map((g) => ({ flag: '--group', value: g })),
    ],
  };
}

/** Longest mapRoles a `kubectl patch` form carries; longer ones are left to eksctl. */
export const PATCH_MAX_CHARS = 4_000;

/** `kubectl patch` that sets mapRoles to `mapRoles` (JSON via the JSON quoting layer, then shell-quoted). */
function kubectlPatchMapRoles(mapRoles: string): ShellCommand {
  return {
    argv: [
      'kubectl',
      'patch',
      'configmap/aws-auth',
      '-n',
      'kube-system',
      '--type',
      'merge',
      CONTINUE,
      '-p',
      jsonText({ data: { mapRoles } }),
    ],
  };
}

export interface NodeAccessOptions {
  /** The access entries the fix will meet, when not those of the state it is built on (a change deletes one). */
  entriesAfter?: Pick<Analysis, 'accessEntries' | 'deadEntries'>;
  /** Other states that may know the role's real ARN (the source cluster of a comparison). */
  knownIn?: readonly Analysis[];
  /**
   * EKS itself removes the mapping (a node group deletion): in CONFIG_MAP the mapping must be
   * re-added after that edit. With the mapRoles from before it, a `kubectl patch` restores it.
   */
  eksRemoves?: { mapRolesBefore?: string };
}

/**
 * The fix that gives a role back the identity its compute needs, for the cluster's mode. The
 * access entry comes first: neither EKS's own aws-auth edits nor the tool that owns aws-auth
 * remove it. In CONFIG_MAP the mapping (eksctl, `kubectl patch`, YAML) follows as the alternative.
 * The entry names the role's real ARN, IAM path included, whatever spelling `roleArn` has
 * (`role-arn.ts`); when the snapshot cannot tell the path, the fix looks it up instead of guessing.
 */
export function nodeAccessRemediation(
  a: Analysis,
  roleArn: string,
  req: NodeRequirement,
  options: NodeAccessOptions = {},
): FixPlan {
  const entry = entryArnOf(a, roleArn, ...(options.knownIn ?? []));
  if (entry.known) return knownRoleAccessRemediation(a, entry.arn, req, options);
  const head: HclItem[] =
    a.mode === 'CONFIG_MAP'
      ? [{ comment: 'after setting authentication_mode = "API_AND_CONFIG_MAP" on the cluster:' }]
      : [];
  return withArnLookup(knownRoleAccessRemediation(a, roleArn, req, options), roleArn, entry, {
    hcl: roleLookupEntryTerraform(a, entry.roleName, requiredEntryType(req), head),
  });
}

/**
 * A fix whose EKS commands would name `guessed`, a role ARN whose IAM path is unknown: the first
 * such command becomes the `aws iam get-role` that prints the real ARN, and each of them a comment
 * saying how to run it with that ARN; the Terraform (which would carry the guess) is left out.
 */
export function withArnLookup(
  fix: FixPlan,
  guessed: string,
  unknown: UnknownEntryArn,
  terraform?: FixPlan['terraform'],
): FixPlan {
  const who = `role ${unknown.roleName} (by its ARN with the IAM path: look it up first)`;
  let looked = false;
  const cli = fix.cli?.flatMap((line): ShellScript => {
    if ('comment' in line) return [line];
    const guess = (w: ShellWord) =>
      typeof w !== 'string' && 'value' in w && w.flag === '--principal-arn' && w.value === guessed;
    if (!line.argv.some(guess)) return [line];
    const words = line.argv.flatMap((w) =>
      guess(w) || typeof w === 'string'
        ? [guess(w) ? '--principal-arn <that ARN>' : (w as string)]
        : 'value' in w
          ? [w.flag, w.value]
          : 'values' in w
            ? [w.flag, ...w.values]
            : [],
    );
    const first = !looked;
    looked = true;
    return [
      ...(first
        ? [
            {
              comment: `The access entry needs the role's ARN with its IAM path; this prints it (${unknown.why}):`,
            },
            unknown.lookup,
          ]
        : []),
      { comment: `then: ${words.join(' ')}` },
    ];
  });
  const { terraform: _guess, ...rest } = fix;
  return {
    ...rest,
    summary: fix.summary.split(guessed).join(who),
    ...(cli ? { cli } : {}),
    ...(terraform ? { terraform } : {}),
    notes: [
      ...(fix.notes ?? []),
      terraform
        ? `The Terraform looks the role up by name (data "aws_iam_role"): ${unknownPathText(unknown)}.`
        : `No Terraform is shown: ${unknownPathText(unknown)}.`,
    ],
  };
}

function knownRoleAccessRemediation(
  a: Analysis,
  roleArn: string,
  req: NodeRequirement,
  options: NodeAccessOptions,
): FixPlan {
  const type = requiredEntryType(req);
  const awsAuth = awsAuthMappingFor(roleArn, req);
  if (a.mode === 'CONFIG_MAP') {
    const removes = options.eksRemoves;
    const before = removes?.mapRolesBefore;
    const patch = before !== undefined && before.length <= PATCH_MAX_CHARS;
    const eksctl = eksctlMappingCommand(a, awsAuth);
    return {
      summary: `Create an access entry of type ${type} for ${roleArn} (after switching to API_AND_CONFIG_MAP, one-way): EKS and the tool that owns aws-auth leave it alone. Staying in CONFIG_MAP, ${removes ? 're-add the mapping after EKS has removed it' : 'map the role in aws-auth mapRoles'} and declare it in the tool that owns aws-auth${removes ? ': EKS removes it again with every deletion of the last managed node group using the role' : ''}.`,
      awsAuth,
      cli: [
        { comment: 'Durable: access entries (the switch is one-way and keeps aws-auth working).' },
        ...modeSwitchScript(a.cluster, 'API_AND_CONFIG_MAP'),
        ...accessEntryCli(a, roleArn, type, options),
        ...(type === 'EC2' ? [autoNodePolicyCli(a, roleArn)] : []),
      ],
      alternatives: [
        {
          label: removes
            ? 'Or, staying in CONFIG_MAP: re-add the mapping once EKS has removed it (node group gone)'
            : 'Or, staying in CONFIG_MAP: add the mapping to aws-auth',
          script: [
            ...(eksctl ? [eksctl] : []),
            ...(patch && before !== undefined
              ? [
                  { comment: 'or restore mapRoles as it was before the deletion (overwrites later edits):' },
                  kubectlPatchMapRoles(before),
                ]
              : []),
          ],
        },
      ],
      terraform: {
        hcl: accessEntryTerraform(a, roleArn, type, [
          { comment: 'after setting authentication_mode = "API_AND_CONFIG_MAP" on the cluster:' },
        ]),
      },
      notes: [
        MODE_SWITCH_NOTE,
        ...(removes && before !== undefined && !patch
          ? [
              `mapRoles is longer than ${PATCH_MAX_CHARS} characters: no kubectl patch form is shown; use eksctl or the aws-auth YAML.`,
            ]
          : []),
      ],
    };
  }
  if (type === 'EC2') {
    // Auto Mode: the EC2 entry plus AmazonEKSAutoNodePolicy; an EC2 entry already there gets the policy only.
    const exists = a.index.entries.get(principalKey(roleArn))?.type === 'EC2';
    return {
      summary: exists
        ? `Associate AmazonEKSAutoNodePolicy with the EC2 access entry of ${roleArn}: EKS adds it only for the built-in node pools' role.`
        : `Create an access entry of type EC2 for ${roleArn} and associate AmazonEKSAutoNodePolicy with it: EKS does both only for the built-in node pools' role.`,
      cli: [...(exists ? [] : accessEntryCli(a, roleArn, type, options)), autoNodePolicyCli(a, roleArn)],
      terraform: { hcl: accessEntryTerraform(a, roleArn, type) },
    };
  }
  return {
    summary: `Create an access entry of type ${type} for ${roleArn}: access entries are not overwritten by whatever manages aws-auth.`,
    cli: accessEntryCli(a, roleArn, type, options),
    terraform: { hcl: accessEntryTerraform(a, roleArn, type) },
    ...(a.mode === 'API_AND_CONFIG_MAP' ? { awsAuth } : {}),
    ...(a.mode === 'API_AND_CONFIG_MAP'
      ? { notes: ['Alternatively re-add the aws-auth mapping shown; the access entry is the durable fix.'] }
      : {}),
  };
}

/** The compute's role was deleted: no mapping helps until a role of that name exists again. */
export function deletedRoleRemediation(a: Analysis, roleArn: string, req: NodeRequirement): FixPlan {
  const service = req === 'fargate' ? 'eks-fargate-pods.amazonaws.com' : 'ec2.amazonaws.com';
  const fix = nodeAccessRemediation(a, roleArn, req);
  return {
    summary: `Re-create the IAM role ${roleArn} (same name and path, trusted by ${service}, with its policies), then give it the node identity again: an access entry is bound to the old role ID.`,
    ...(fix.cli ? { cli: fix.cli } : {}),
    ...(fix.terraform ? { terraform: fix.terraform } : {}),
    ...(fix.awsAuth ? { awsAuth: fix.awsAuth } : {}),
    notes: [
      'A re-created role gets a new role ID: delete and re-create access entries for it (terraform apply -replace).',
      ...(fix.notes ?? []),
    ],
  };
}

/** The problem a deleted compute role has, whatever maps it. */
export const ROLE_DELETED_PROBLEM = 'the IAM role does not exist (deleted): nothing can assume it';

export function deleteAwsAuthMappingNote(): string {
  return 'Edit with `kubectl edit -n kube-system configmap/aws-auth`, or in the Terraform/Helm/GitOps source that owns it.';
}
