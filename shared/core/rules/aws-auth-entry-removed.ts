import { principalKey } from '../access/principal.ts';
import type { AwsAuthKey, ParsedAwsAuth, RoleMapping, UserMapping } from '../aws-auth/index.ts';
import type { Actor, AwsAuthConfigMap, ManagedField } from '../model.ts';
import type { FindingDraft, Rule } from './types.ts';

interface Mapping {
  dataKey: AwsAuthKey;
  arn: string;
  username?: string;
  groups?: string[];
}

type Source = RoleMapping | UserMapping | string;

function roleArnOf(r: RoleMapping): string {
  return r.rolearn ?? `sso:${r.sso?.accountID}/${r.sso?.permissionSetName}`;
}

/**
 * Every mapping of a parse by key, one map per data key (roles by their ARN lower-cased, users
 * likewise, accounts as written), the last duplicate's source kept at the first one's place; the
 * Mapping itself is made only for what is reported. Keys are not prefixed with the data key: one
 * string fewer per entry. Only the state before's are built: the state after's keys are deleted
 * from them (no second map of 10,000 keys).
 */
type ByKey = Map<string, Source>;

function sourcesOf(p: ParsedAwsAuth): [ByKey, ByKey, ByKey] {
  const roles: ByKey = new Map();
  const users: ByKey = new Map();
  const accounts: ByKey = new Map();
  for (const r of p.roles) roles.set(roleArnOf(r).toLowerCase(), r);
  for (const u of p.users) users.set(u.userarn.toLowerCase(), u);
  for (const acct of p.accounts) accounts.set(acct, acct);
  return [roles, users, accounts];
}

function mappingOf(source: Source): Mapping {
  if (typeof source === 'string') return { dataKey: 'mapAccounts', arn: source };
  if ('userarn' in source) {
    return { dataKey: 'mapUsers', arn: source.userarn, username: source.username, groups: source.groups };
  }
  return { dataKey: 'mapRoles', arn: roleArnOf(source), username: source.username, groups: source.groups };
}

/** The field manager that last wrote a data key, per metadata.managedFields. */
export function lastWriterOf(fields: readonly ManagedField[], dataKey: string): ManagedField | undefined {
  return [...fields]
    .filter((f) => f.dataKeys.includes(dataKey))
    .sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''))
    .pop();
}

/**
 * The ConfigMap's last writer of any data key, as an actor (`managedFields`): who made the write
 * a watch or a poll saw, when Kubernetes recorded it. Undefined when no manager owns a data key.
 */
export function awsAuthWriterActor(configMap: AwsAuthConfigMap): Actor | undefined {
  const writer = [...configMap.managedFields]
    .filter((f) => f.dataKeys.length > 0)
    .sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''))
    .pop();
  return writerActor(writer).actor;
}

/** A managedFields writer as the finding's actor: manager, operation and time. */
export function writerActor(writer: ManagedField | undefined): { actor?: Actor } {
  if (writer === undefined) return {};
  return {
    actor: {
      source: 'managedFields',
      manager: writer.manager,
      operation: writer.operation,
      ...(writer.time === undefined ? {} : { time: writer.time }),
    },
  };
}

export const awsAuthEntryRemoved: Rule = {
  id: 'aws-auth/entry-removed',
  severity: 'high',
  kinds: ['transition'],
  title: 'A mapping disappeared from aws-auth',
  meaning:
    'A role, user or account mapping present in the previous snapshot is gone. The field manager that wrote the change (Terraform, Helm, kubectl, EKS…) is named when Kubernetes recorded it.',
  fix: 'Re-add the mapping if it was not meant to go, and declare it in the tool that owns aws-auth.',
  evaluate({ current: a, previous: b }) {
    if (!b || a.mode === 'API') return [];
    const before = b.snapshot.awsAuth;
    const after = a.snapshot.awsAuth;
    // Never diff a side we could not read: a failed read is not "everything removed".
    if (before.status !== 'ok' || after.status === 'error' || !b.awsAuth) return [];
    // What is left of the state before's mappings once the state after's keys are taken out, data
    // key by data key in the parse's order (mapRoles, mapUsers, mapAccounts).
    const gone = sourcesOf(b.awsAuth);
    if (a.awsAuth) {
      const now = a.awsAuth;
      const [roles, users, accounts] = gone;
      for (const r of now.roles) roles.delete(roleArnOf(r).toLowerCase());
      for (const u of now.users) users.delete(u.userarn.toLowerCase());
      for (const acct of now.accounts) accounts.delete(acct);
    }
    const deleted = after.status === 'absent';
    const out: FindingDraft[] = [];
    for (const source of gone.flatMap((byKey) => [...byKey.values()])) {
      const m = mappingOf(source);
      // A key that no longer parses is reported by aws-auth/parse-failure, once, not per entry.
      if (a.awsAuth && a.awsAuth.keyStatus[m.dataKey] === 'failed') continue;
      const writer = after.status === 'ok' ? lastWriterOf(after.data.managedFields, m.dataKey) : undefined;
      const used = m.dataKey === 'mapRoles' ? a.consumers.byRole.get(principalKey(m.arn)) : undefined;
      out.push({
        severity: 'high',
        subject: m.arn,
        fingerprintKey: m.dataKey,
        title: deleted
          ? `aws-auth was deleted: ${m.arn} is no longer mapped`
          : `${m.arn} was removed from aws-auth ${m.dataKey}${writer ? ` by ${writer.manager}` : ''}`,
        detail: [
          m.username !== undefined ? `It mapped to "${m.username}" ${JSON.stringify(m.groups ?? [])}.` : '',
          writer
            ? `Last writer of ${m.dataKey}: ${writer.manager} (${writer.operation}${writer.time ? `, ${writer.time}` : ''}).`
            : '',
          used
            ? `Still used by: ${[...used.nodegroups.map((n) => `node group ${n}`), ...used.fargateProfiles.map((f) => `Fargate profile ${f}`), ...used.nodeClasses.map((n) => `EC2NodeClass ${n}`)].join(', ') || `${used.nodes.length} node(s)`}.`
            : '',
        ]
          .filter(Boolean)
          .join(' '),
        evidence: {
          before: m,
          resourceVersionBefore: before.data.resourceVersion ?? null,
          resourceVersionAfter: after.status === 'ok' ? (after.data.resourceVersion ?? null) : null,
          writer: writer ?? null,
        },
        ...writerActor(writer),
        remediation: {
          summary: `If ${m.arn} should keep access, re-add it${writer ? ` in the source ${writer.manager} applies` : ''}.`,
        },
      });
    }
    return out;
  },
};
