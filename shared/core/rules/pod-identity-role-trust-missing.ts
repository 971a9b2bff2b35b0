import { roleAccount } from '../access/compute.ts';
import { terraformName } from '../fixes/remediation.ts';
import type { ClusterSnapshot, IamRole, PodIdentityAssociation } from '../model.ts';
import type { TrustRequest } from '../workload-identity/iam-policy/evaluate.ts';
import { repairConditions } from '../workload-identity/iam-policy/repair.ts';
import {
  checkTrust,
  groupBy,
  okData,
  POD_IDENTITY_SERVICE,
  podIdentityActions,
  podIdentityRequest,
  podIdentityStatement,
  roleChainRequest,
  roleChainStatement,
  roleOf,
  serviceAccountBlastRadius,
  type TrustVerdict,
  trustDocument,
  trustFix,
  trustHcl,
  trustVerdict,
} from '../workload-identity/identity.ts';
import { conditionFix, describeChange } from '../workload-identity/pod-identity-trust-fix.ts';
import type { FindingDraft, Rule } from './types.ts';

const accountsOf = (list: readonly PodIdentityAssociation[]) =>
  list.map((x) => ({ namespace: x.namespace, name: x.serviceAccount }));

const ACTION_ORDER = ['sts:AssumeRole', 'sts:TagSession'];
const ordered = (actions: Iterable<string>) =>
  [...new Set(actions)].sort((p, q) => ACTION_ORDER.indexOf(p) - ACTION_ORDER.indexOf(q));

interface Hop {
  roleArn: string;
  /** The association's role when this is the target hop; undefined on the first hop. */
  via: string | undefined;
  x: PodIdentityAssociation;
}

/** One association's requests on this hop and what the role's trust makes of them. */
interface Check {
  x: PodIdentityAssociation;
  requests: TrustRequest[];
  verdict: TrustVerdict;
}

export const podIdentityRoleTrustMissing: Rule = {
  id: 'pod-identity/role-trust-missing',
  severity: 'high',
  kinds: ['state'],
  title: "A Pod Identity association's role does not trust pods.eks.amazonaws.com",
  meaning:
    "EKS Auth assumes the association's role as the service principal pods.eks.amazonaws.com with sts:AssumeRole and sts:TagSession (TagSession not when session tags are disabled); a targetRoleArn must trust the association's role. Each hop is judged against the request EKS Auth makes: on the first hop the cluster as source, the session tags and no sts:ExternalId; on the target hop the association's role, its externalId as sts:ExternalId and the session tags. A condition EKS Auth never meets (sts:ExternalId required on the first hop, another external ID on the target) is a certain failure, and the fix rewrites that condition. A trust policy rewritten by IaC without the statement leaves the pods without credentials. Where a condition cannot be evaluated from the snapshot (the pod's name, a role tag), the finding says so instead of asserting; a targetRoleArn in another account is never read (the monitor's credentials cannot read it) and is reported as not evaluated.",
  fix: "Add the trust statement shown (Principal Service pods.eks.amazonaws.com, Action sts:AssumeRole and sts:TagSession; on a target role the association's role, under StringEquals sts:ExternalId = the association's externalId), or use the rewritten statement shown instead of one whose condition EKS Auth never meets.",
  evaluate({ current: a }) {
    const s = a.snapshot;
    const associations = okData(s.podIdentityAssociations);
    if (!associations || s.iamRoles.status !== 'ok') return [];
    const out: FindingDraft[] = [];
    // One finding per role (and hop), naming every service account that uses it.
    const hops: Hop[] = associations.flatMap((x) => [
      { roleArn: x.roleArn, via: undefined, x },
      ...(x.targetRoleArn ? [{ roleArn: x.targetRoleArn, via: x.roleArn, x }] : []),
    ]);
    for (const [, group] of groupBy(
      hops,
      (h) => `${h.roleArn.toLowerCase()}\n${(h.via ?? '').toLowerCase()}`,
    )) {
      const first = group[0];
      if (!first) continue;
      const role = roleOf(a, first.roleArn);
      const account = roleAccount(first.roleArn);
      if (role === undefined && first.via !== undefined && account !== undefined && account !== s.accountId) {
        out.push(outsideAccount(s, first.roleArn, account, first.via, group));
        continue;
      }
      if (role?.state !== 'exists' || role.trustPolicy === undefined) continue;
      const trust = role.trustPolicy;
      const checks: Check[] = group.map(({ x }) => {
        const requests = podIdentityActions(x).map((act) =>
          first.via === undefined ? podIdentityRequest(s, act, x) : roleChainRequest(s, first.via, act, x),
        );
        return { x, requests, verdict: trustVerdict(checkTrust(trust, requests)) };
      });
      const broken = checks.filter((c) => c.verdict.verdict === 'broken');
      const open = checks.filter((c) => c.verdict.verdict === 'unknown');
      if (broken.length > 0) out.push(brokenFinding(s, role, first.via, broken, open));
      else if (open.length > 0) out.push(unknownFinding(s, role, first.via, open));
    }
    return out;
  },
};

const whoOf = (via: string | undefined) => (via === undefined ? POD_IDENTITY_SERVICE : via);
const callOf = (via: string | undefined, role: string) =>
  via === undefined ? `assumes the association's role ${role}` : `assumes the target role ${role} for ${via}`;
const whyOf = (checks: readonly Check[]) =>
  [...new Set(checks.map((c) => (c.verdict.verdict === 'ok' ? '' : c.verdict.why)))].join('; ');

function brokenFinding(
  s: ClusterSnapshot,
  role: IamRole,
  via: string | undefined,
  broken: readonly Check[],
  open: readonly Check[],
): FindingDraft {
  const who = whoOf(via);
  const users = accountsOf(broken.map((c) => c.x));
  const denied = ordered(broken.flatMap((c) => (c.verdict.verdict === 'broken' ? c.verdict.denied : [])));
  const actions = ordered(broken.flatMap((c) => c.requests.map((r) => r.action)));
  const repair = repairConditions(
    role.trustPolicy ?? '',
    broken.flatMap((c) => c.requests),
  );
  const changes = repair?.changes ?? [];
  // What the rewrite leaves denied gets the documented statement, for those associations only.
  const remaining = new Set(repair?.remaining ?? broken.flatMap((c) => c.requests));
  const left = broken.filter((c) => c.requests.some((r) => remaining.has(r)));
  const leftActions = ordered(
    broken.flatMap((c) => c.requests.filter((r) => remaining.has(r)).map((r) => r.action)),
  );
  const spec =
    leftActions.length === 0
      ? []
      : [
          via === undefined
            ? podIdentityStatement(s, leftActions)
            : roleChainStatement(
                via,
                leftActions,
                left.flatMap((c) => (c.x.externalId === undefined ? [] : [c.x.externalId])),
              ),
        ];
  const conditional = changes.filter((c) => c.change !== 'action-added');
  const keys = [...new Set(conditional.map((c) => c.key))];
  const never =
    keys.length === 0
      ? ''
      : ` (its condition on ${keys.join(' and ')} never holds for the request EKS Auth makes)`;
  const notes = changes.map((c) => describeChange(c, 'EKS Auth', callOf(via, role.arn)));
  const openNote =
    open.length > 0
      ? ` Not evaluated for ${accountsOf(open.map((c) => c.x))
          .map((u) => `${u.namespace}/${u.name}`)
          .join(', ')}: ${whyOf(open)}.`
      : '';
  const conditionWhy = conditional.map(
    (c) =>
      `${c.statement} allows ${c.action} only under ${c.operator} ${c.key}, which ${c.sent.length === 0 ? `EKS Auth does not send when it ${callOf(via, role.arn)}` : `does not admit the value ${c.sent.join(', ')} EKS Auth sends`}`,
  );
  const why = [...new Set([...conditionWhy, whyOf(broken)])].join('; ');
  return {
    severity: 'high',
    subject: role.arn,
    fingerprintKey: via ?? '',
    title: `${role.arn} does not trust ${who} for ${denied.join(' and ')}${never}: ${users.length} Pod Identity service account(s) get no credentials`,
    detail: `The role's trust policy: ${why}. ${via === undefined ? 'EKS Auth' : `The association's role ${via}`} cannot assume it, so pods using the service accounts get no AWS credentials.${openNote}`,
    evidence: {
      role: role.arn,
      principal: who,
      actions,
      verdict: 'broken',
      why,
      associations: broken.map((c) => c.x.associationId).sort(),
      ...(conditional.length > 0
        ? {
            conditionsNeverMet: [
              ...new Set(conditional.map((c) => `${c.statement}: ${c.operator} ${c.key}`)),
            ],
          }
        : {}),
    },
    blastRadius: serviceAccountBlastRadius(users),
    remediation:
      repair !== undefined && repair.rewritten.length > 0
        ? conditionFix(
            role,
            repair,
            spec,
            `Use the rewritten statement(s) shown instead of ${[...new Set(repair.rewritten.map((r) => r.label))].join(', ')} in the trust of ${role.arn}, so that EKS Auth can call ${actions.join(' and ')}${spec.length > 0 ? ', and add the statement shown' : ''}.`,
            notes,
          )
        : trustFix(
            role,
            spec,
            `Add a trust statement letting ${who} call ${spec[0]?.actions.join(' and ') ?? denied.join(' and ')} on ${role.arn}.`,
          ),
  };
}

function unknownFinding(
  s: ClusterSnapshot,
  role: IamRole,
  via: string | undefined,
  open: readonly Check[],
): FindingDraft {
  const who = whoOf(via);
  const users = accountsOf(open.map((c) => c.x));
  const actions = ordered(open.flatMap((c) => c.requests.map((r) => r.action)));
  const why = whyOf(open);
  const spec =
    via === undefined
      ? podIdentityStatement(s, actions)
      : roleChainStatement(
          via,
          actions,
          open.flatMap((c) => (c.x.externalId === undefined ? [] : [c.x.externalId])),
        );
  return {
    severity: 'medium',
    subject: role.arn,
    fingerprintKey: via ?? '',
    title: `Could not evaluate whether ${role.arn} trusts ${who}: a trust condition cannot be decided from the snapshot`,
    detail: `Not asserted either way: ${why}. Check the condition against the request EKS Auth makes (principal ${who}, actions ${actions.join(', ')}).`,
    evidence: {
      role: role.arn,
      principal: who,
      actions,
      verdict: 'unknown',
      why,
      associations: open.map((c) => c.x.associationId).sort(),
    },
    blastRadius: serviceAccountBlastRadius(users),
    remediation: trustFix(
      role,
      [spec],
      `Add a trust statement letting ${who} call ${actions.join(' and ')} on ${role.arn}.`,
    ),
  };
}

/**
 * A targetRoleArn in another account: not read (GetRole with the monitor's credentials would look
 * in the wrong account, and a NoSuchEntity there would read as "deleted"), so its trust is not
 * evaluated — said as such, at medium, never as role-not-found. The fix is the statement the
 * EKS documentation gives, to apply in that account (no CLI: the current trust there is unknown,
 * and update-assume-role-policy replaces the whole document).
 */
function outsideAccount(
  s: ClusterSnapshot,
  target: string,
  account: string,
  via: string,
  group: ReadonlyArray<{ x: PodIdentityAssociation }>,
): FindingDraft {
  const users = accountsOf(group.map((h) => h.x));
  const actions = podIdentityActions({
    disableSessionTags: group.every((h) => h.x.disableSessionTags === true),
  });
  const spec = roleChainStatement(
    via,
    actions,
    group.flatMap((h) => (h.x.externalId === undefined ? [] : [h.x.externalId])),
  );
  return {
    severity: 'medium',
    subject: target,
    fingerprintKey: via,
    title: `Could not evaluate whether ${target} trusts ${via}: the role is in account ${account}, outside this monitor's account ${s.accountId}`,
    detail: `Not asserted either way: the target role of ${users.length} Pod Identity service account(s) is in account ${account}; the monitor reads roles of ${s.accountId} only, so its trust policy (which must let ${via} call ${actions.join(' and ')}) and its existence are not checked. ${via} is checked here: it must trust pods.eks.amazonaws.com, and its permission policy must allow ${actions.join(' and ')} on ${target}.`,
    evidence: {
      role: target,
      roleAccount: account,
      monitorAccount: s.accountId,
      principal: via,
      actions: [...actions],
      verdict: 'unknown',
      why: 'role in another account: not read',
      associations: group.map((h) => h.x.associationId).sort(),
    },
    blastRadius: serviceAccountBlastRadius(users),
    remediation: {
      summary: `In account ${account}, make sure the trust policy of ${target} lets ${via} call ${spec.actions.join(' and ')}.`,
      terraform: { hcl: trustHcl(`${terraformName(target)}_trust`, [spec]) },
      trustPolicy: trustDocument([spec]),
      notes: [`Apply in account ${account} (the target role's), merged into its current trust policy.`],
    },
  };
}
