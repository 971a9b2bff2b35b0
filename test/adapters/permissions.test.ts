/**
 * The monitor's written permissions (infra/iam/monitor-read-policy.json,
 * infra/kubernetes/monitor-clusterrole.yaml) against what a full capture really calls.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { captureSnapshots } from '../../shared/app/capture-snapshot.ts';
import { listClusters } from '../../shared/app/list-clusters.ts';
import { loadScenario, sandboxDeps } from '../support/sandbox-helpers.ts';

const READERS_GROUP = 'eks-auth-sentinel:readers';
/** STS GetCallerIdentity needs no IAM permission (the EKS token is a presigned call of it). */
const NEEDS_NO_PERMISSION = new Set(['sts:GetCallerIdentity']);

interface PolicyStatement {
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
}

function policyActions(): Set<string> {
  const doc = JSON.parse(
    readFileSync(new URL('../../infra/iam/monitor-read-policy.json', import.meta.url), 'utf8'),
  ) as {
    Statement: PolicyStatement[];
  };
  const actions = new Set<string>();
  for (const s of doc.Statement) {
    expect(s.Effect).toBe('Allow');
    for (const a of Array.isArray(s.Action) ? s.Action : [s.Action]) actions.add(a);
  }
  return actions;
}

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs?: string[];
}
interface RbacObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
  subjects?: Array<{ kind: string; name: string }>;
}

function rbacObjects(): RbacObject[] {
  const text = readFileSync(
    new URL('../../infra/kubernetes/monitor-clusterrole.yaml', import.meta.url),
    'utf8',
  );
  return parseAllDocuments(text).map((d) => d.toJS() as RbacObject);
}

/** What a Kubernetes request recorded by the sandbox needs. */
const KUBE_REQUESTS: Record<
  string,
  { verb: string; apiGroup: string; resource: string; namespace?: string; name?: string }
> = {
  GetConfigMap: {
    verb: 'get',
    apiGroup: '',
    resource: 'configmaps',
    namespace: 'kube-system',
    name: 'aws-auth',
  },
  ListNodes: { verb: 'list', apiGroup: '', resource: 'nodes' },
  ListEC2NodeClasses: { verb: 'list', apiGroup: 'karpenter.k8s.aws', resource: 'ec2nodeclasses' },
  ListNodeClasses: { verb: 'list', apiGroup: 'eks.amazonaws.com', resource: 'nodeclasses' },
  ListServiceAccounts: { verb: 'list', apiGroup: '', resource: 'serviceaccounts' },
};

/** Rules granted to the readers group: ClusterRoles through ClusterRoleBindings, Roles through RoleBindings. */
function grantedRules(objects: RbacObject[]): Array<Rule & { namespace?: string }> {
  const granted: Array<Rule & { namespace?: string }> = [];
  for (const binding of objects.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding')) {
    if (!binding.subjects?.some((s) => s.kind === 'Group' && s.name === READERS_GROUP)) continue;
    const role = objects.find(
      (o) =>
        o.kind === binding.roleRef?.kind &&
        o.metadata.name === binding.roleRef?.name &&
        (o.kind === 'ClusterRole' || o.metadata.namespace === binding.metadata.namespace),
    );
    const namespace = binding.kind === 'RoleBinding' ? binding.metadata.namespace : undefined;
    for (const rule of role?.rules ?? [])
      granted.push(namespace === undefined ? rule : { ...rule, namespace });
  }
  return granted;
}

function allows(rules: Array<Rule & { namespace?: string }>, need: (typeof KUBE_REQUESTS)[string]): boolean {
  return rules.some(
    (r) =>
      (r.namespace === undefined || r.namespace === need.namespace) &&
      (r.apiGroups ?? []).includes(need.apiGroup) &&
      (r.resources ?? []).includes(need.resource) &&
      (r.verbs ?? []).includes(need.verb) &&
      (r.resourceNames === undefined || (need.name !== undefined && r.resourceNames.includes(need.name))),
  );
}

describe('monitor permissions', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({
      clusters: [
        // Its audit log on: the capture asks for the log group's subscription filters.
        { snapshot: loadScenario('a-karpenter-shares-last-nodegroup-role'), logging: ['audit'] },
        {
          snapshot: loadScenario('a-karpenter-shares-role-api-and-config-map-with-entry'),
          name: 'api-mixed',
        },
        { snapshot: loadScenario('b-fargate-entry-removed-by-terraform'), name: 'fargate' },
        // CA rotation: ListCertificateAuthorities, and DescribeCertificateAuthority for each CA.
        { snapshot: loadScenario('eks-changes/ca-rotation-pending-karpenter'), name: 'ca-rotation' },
        { snapshot: loadScenario('workload-identity/wi-healthy-pod-identity'), name: 'pod-identity' },
        // IRSA: the cluster's own OIDC provider is read (GetOpenIDConnectProvider).
        { snapshot: loadScenario('workload-identity/wi-healthy-irsa'), name: 'irsa' },
      ],
    });
    const deps = sandboxDeps(sandbox);
    const listing = await listClusters(deps, ['eu-west-1']);
    const outcomes = await captureSnapshots(deps, listing.clusters);
    expect(outcomes.every((o) => o.ok)).toBe(true);
  });
  afterAll(async () => sandbox.close());

  it('grants every AWS operation a full capture calls, and nothing it does not call', () => {
    const actions = policyActions();
    const used = new Set(
      sandbox.calls
        .filter(
          (c) =>
            c.service === 'eks' ||
            c.service === 'ec2' ||
            c.service === 'iam' ||
            c.service === 'sts' ||
            c.service === 'logs',
        )
        .map((c) => `${c.service}:${c.operation}`),
    );
    const missing = [...used].filter((a) => !actions.has(a) && !NEEDS_NO_PERMISSION.has(a));
    expect(missing).toEqual([]);
    expect([...actions].filter((a) => !used.has(a))).toEqual([]);
    // SimulatePrincipalPolicy only evaluates the role's policies: it reads, it changes nothing.
    expect(
      [...actions].every((a) =>
        /^(eks:(List|Describe)|ec2:Describe|iam:(Get|List)|iam:SimulatePrincipalPolicy$|logs:DescribeSubscriptionFilters$)/.test(
          a,
        ),
      ),
    ).toBe(true);
  });

  it('grants every Kubernetes request a full capture makes through the readers group', () => {
    const rules = grantedRules(rbacObjects());
    const operations = new Set(sandbox.calls.filter((c) => c.service === 'kube').map((c) => c.operation));
    expect([...operations].sort()).toEqual([
      'GetConfigMap',
      'ListEC2NodeClasses',
      'ListNodeClasses',
      'ListNodes',
      'ListServiceAccounts',
    ]);
    for (const op of operations) {
      const need = KUBE_REQUESTS[op];
      expect(need, `unmapped Kubernetes request ${op}`).toBeDefined();
      if (need !== undefined) expect(allows(rules, need), `${op} is not granted`).toBe(true);
    }
  });

  it('grants configmaps only for aws-auth in kube-system, and no write verb anywhere', () => {
    const objects = rbacObjects();
    const rules = grantedRules(objects);
    expect(
      allows(rules, {
        verb: 'get',
        apiGroup: '',
        resource: 'configmaps',
        namespace: 'default',
        name: 'aws-auth',
      }),
    ).toBe(false);
    expect(
      allows(rules, {
        verb: 'get',
        apiGroup: '',
        resource: 'configmaps',
        namespace: 'kube-system',
        name: 'other',
      }),
    ).toBe(false);
    const verbs = objects.flatMap((o) => o.rules ?? []).flatMap((r) => r.verbs ?? []);
    expect(verbs.every((v) => v === 'get' || v === 'list')).toBe(true);
    expect(objects.find((o) => o.kind === 'ClusterRole')?.metadata.name).toBe('eks-auth-sentinel-reader');
    // Service accounts: list only, and Secrets never (a service account token lives there).
    const resources = objects.flatMap((o) => o.rules ?? []).flatMap((r) => r.resources ?? []);
    expect(resources).not.toContain('secrets');
    const saRules = objects
      .flatMap((o) => o.rules ?? [])
      .filter((r) => r.resources?.includes('serviceaccounts'));
    expect(saRules.flatMap((r) => r.verbs ?? [])).toEqual(['list']);
  });
});
