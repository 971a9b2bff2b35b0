import type { Analysis } from '../analysis.ts';
import { principalKey } from '../principal.ts';
import { blastRadiusOf, TIME_TO_IMPACT_NODES, terraformName } from '../remediation.ts';
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

function entryCommand(a: Analysis, d: Dropped, nodeType: string | undefined): string[] {
  const base = `aws eks create-access-entry --cluster-name ${a.cluster.name} --region ${a.cluster.region} --principal-arn ${d.arn}`;
  if (nodeType) return [`${base} --type ${nodeType}`];
  const groups = d.groups.filter((g) => !g.startsWith('system:'));
  const cmds = [`${base}${groups.length ? ` --kubernetes-groups ${groups.join(' ')}` : ''}`];
  if (d.groups.includes('system:masters')) {
    cmds.push(
      `aws eks associate-access-policy --cluster-name ${a.cluster.name} --region ${a.cluster.region} --principal-arn ${d.arn} --policy-arn arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy --access-scope type=cluster`,
    );
  }
  return cmds;
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
    const cli = fixable.flatMap((d) => entryCommand(b, d, nodeTypeOf(d))).join('\n');
    const terraform = [
      'access_entries = {',
      ...fixable.map((d) => {
        const t = nodeTypeOf(d);
        const groups = d.groups.filter((g) => !g.startsWith('system:'));
        return [
          `  ${terraformName(d.arn)} = {`,
          `    principal_arn = "${d.arn}"`,
          ...(t ? [`    type          = "${t}"`] : []),
          ...(!t && groups.length ? [`    kubernetes_groups = ${JSON.stringify(groups)}`] : []),
          ...(d.groups.includes('system:masters')
            ? [
                '    policy_associations = {',
                '      admin = {',
                '        policy_arn   = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"',
                '        access_scope = { type = "cluster" }',
                '      }',
                '    }',
              ]
            : []),
          '  }',
        ].join('\n');
      }),
      '}',
    ].join('\n');
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
        awsCli: cli,
        terraform,
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
