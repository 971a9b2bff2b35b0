import type { Analysis } from '../analysis.ts';
import { principalKey } from '../principal.ts';
import type { HclAttribute, HclItem } from '../quote/hcl.ts';
import type { ShellCommand } from '../quote/shell.ts';
import {
  ADMIN_POLICY_ARN,
  blastRadiusOf,
  eksCommand,
  principalArnFlag,
  str,
  TIME_TO_IMPACT_NODES,
  uniqueTerraformNames,
} from '../remediation.ts';
import type { FindingDraft, Rule } from './types.ts';

interface Dropped {
  arn: string;
  username: string;
  groups: string[];
  kind: 'role' | 'user' | 'sso' | 'account';
}

/** aws-auth principals with no working access entry: what `API` mode drops. */
function droppedPrincipals(b: Analysis): Dropped[] {
  if (!b.awsAuth) return [];
  const hasEntry = (arn: string) => {
    const key = principalKey(arn);
    return b.index.entries.has(key) && !b.deadEntries.has(key);
  };
  const out: Dropped[] = [];
  const seen = new Set<string>();
  for (const r of [...b.awsAuth.roles].reverse()) {
    const arn = r.rolearn ?? `sso:${r.sso?.accountID}/${r.sso?.permissionSetName}`;
    if (seen.has(arn.toLowerCase())) continue;
    seen.add(arn.toLowerCase());
    if (r.rolearn && hasEntry(r.rolearn)) continue;
    out.push({ arn, username: r.username, groups: r.groups, kind: r.rolearn ? 'role' : 'sso' });
  }
  for (const u of b.awsAuth.users) {
    if (hasEntry(u.userarn)) continue;
    out.push({ arn: u.userarn, username: u.username, groups: u.groups, kind: 'user' });
  }
  for (const acct of b.awsAuth.accounts)
    out.push({ arn: acct, username: '(ARN)', groups: [], kind: 'account' });
  return out.sort((x, y) => x.arn.localeCompare(y.arn));
}

function entryCommands(a: Analysis, d: Dropped, nodeType: string | undefined): ShellCommand[] {
  const arn = principalArnFlag(d.arn);
  if (nodeType) return [eksCommand(a, 'create-access-entry', arn, { flag: '--type', value: nodeType })];
  const groups = d.groups.filter((g) => !g.startsWith('system:'));
  const cmds = [
    eksCommand(
      a,
      'create-access-entry',
      arn,
      ...(groups.length ? [{ flag: '--kubernetes-groups', values: groups }] : []),
    ),
  ];
  if (d.groups.includes('system:masters')) {
    cmds.push(
      eksCommand(
        a,
        'associate-access-policy',
        arn,
        { flag: '--policy-arn', value: ADMIN_POLICY_ARN },
        '--access-scope',
        'type=cluster',
      ),
    );
  }
  return cmds;
}

/** One `access_entries` item of terraform-aws-modules/eks for a dropped principal. */
function entryTerraform(d: Dropped, name: string, nodeType: string | undefined): HclAttribute {
  const groups = d.groups.filter((g) => !g.startsWith('system:'));
  const body: HclAttribute[] = [{ name: 'principal_arn', value: str(d.arn) }];
  if (nodeType) body.push({ name: 'type', value: str(nodeType) });
  else if (groups.length) body.push({ name: 'kubernetes_groups', value: { list: groups } });
  if (d.groups.includes('system:masters')) {
    body.push({
      name: 'policy_associations',
      value: {
        object: [
          {
            name: 'admin',
            value: {
              object: [
                { name: 'policy_arn', value: str(ADMIN_POLICY_ARN) },
                {
                  name: 'access_scope',
                  value: { object: [{ name: 'type', value: str('cluster') }], inline: true },
                },
              ],
            },
          },
        ],
      },
    });
  }
  return { name, value: { object: body } };
}

export const clusterAuthModeDropsPrincipals: Rule = {
  id: 'cluster/auth-mode-drops-principals',
  severity: 'critical',
  kinds: ['change'],
  title: 'Switching to API mode drops aws-auth principals that have no access entry',
  meaning:
    'In API mode aws-auth is ignored. Every role, user or account mapped only there loses access, nodes included. The switch is one-way.',
  fix: 'Create an access entry for every principal listed before switching (eksctl utils migrate-to-access-entry plans it).',
  evaluate({ current: a, previous: b, change }) {
    if (change?.kind !== 'set-auth-mode' || change.mode !== 'API' || !b || b.mode === 'API') return [];
    if (b.snapshot.awsAuth.status === 'error') return [];
    const dropped = droppedPrincipals(b);
    if (dropped.length === 0) return [];
    const consumers = dropped
      .filter((d) => d.kind === 'role')
      .map((d) => b.consumers.byRole.get(principalKey(d.arn)))
      .filter((c) => c !== undefined);
    const nodeTypeOf = (d: Dropped): string | undefined => {
      const c = d.kind === 'role' ? b.consumers.byRole.get(principalKey(d.arn)) : undefined;
      if (!c) return undefined;
      if (c.requirements.has('fargate')) return 'FARGATE_LINUX';
      if (c.requirements.has('ec2-windows')) return 'EC2_WINDOWS';
      return 'EC2_LINUX';
    };
    const fixable = dropped.filter((d) => d.kind === 'role' || d.kind === 'user');
    const cli = fixable.flatMap((d) => entryCommands(b, d, nodeTypeOf(d)));
    const names = uniqueTerraformNames(fixable.map((d) => d.arn));
    const terraform: HclItem[] = [
      {
        name: 'access_entries',
        value: { object: fixable.map((d, i) => entryTerraform(d, names[i] ?? 'principal', nodeTypeOf(d))) },
      },
    ];
    const draft: FindingDraft = {
      severity: consumers.length > 0 ? 'critical' : 'high',
      subject: a.snapshot.clusterArn,
      title: `Switching ${a.cluster.name} to API mode drops ${dropped.length} aws-auth principal(s)${consumers.length ? `, including node/Fargate roles of ${consumers.reduce((n, c) => n + c.nodes.length, 0)} node(s)` : ''}`,
      detail: dropped
        .map((d) => `${d.kind} ${d.arn} → "${d.username}" ${JSON.stringify(d.groups)}`)
        .join('\n'),
      evidence: { from: b.mode, to: 'API', dropped },
      remediation: {
        summary: 'Create these access entries first, confirm access, then switch. API mode cannot be undone.',
        cli,
        terraform: { hcl: terraform },
        notes: [
          'Groups starting with system: cannot be given to STANDARD access entries; system:masters becomes AmazonEKSClusterAdminPolicy.',
          ...(dropped.some((d) => d.kind === 'account' || d.kind === 'sso')
            ? [
                'mapAccounts and SSO matchers have no access-entry equivalent: create one entry per principal.',
              ]
            : []),
        ],
      },
    };
    if (consumers.length > 0) draft.blastRadius = blastRadiusOf(consumers, TIME_TO_IMPACT_NODES);
    return [draft];
  },
};
