/**
 * `whatif --terraform-plan` benchmark: validate + translate + simulate a plan of 2,000 resource
 * changes against a 10k-entry aws-auth cluster (bench/engine.ts `syntheticCluster`), as a ratio
 * to `assess` (assessSnapshot) on the same snapshot in the same run. Two plans: a typical large
 * plan (2,000 changes, most of them not about authentication) and a worst case where every
 * change is auth-relevant. The JSON is parsed once outside the timing, as the CLI reads a file.
 */
import { assessSnapshot } from '../shared/core/engine.ts';
import { validatePlan, whatIfTerraformPlan } from '../shared/core/terraform-plan/index.ts';
import { syntheticCluster } from './engine.ts';

const ACCOUNT = '111122223333';
const CHANGES = 2_000;

type Rc = Record<string, unknown>;

function rc(address: string, type: string, actions: string[], before: unknown, after: unknown): Rc {
  return {
    address,
    mode: 'managed',
    type,
    name: address.split('.')[1] ?? 'x',
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: { actions, before, after, after_unknown: {}, before_sensitive: {}, after_sensitive: {} },
  };
}

function entry(i: number, role = `svc-${i}`) {
  return { cluster_name: 'bench', principal_arn: `arn:aws:iam::${ACCOUNT}:role/${role}`, type: 'STANDARD' };
}

function awsAuthUpdate(mapRoles: string): Rc {
  const meta = [{ name: 'aws-auth', namespace: 'kube-system' }];
  // drop the last 10 entries (4 lines each): mappings that disappear
  const lines = mapRoles.trimEnd().split('\n');
  const after = `${lines.slice(0, lines.length - 40).join('\n')}\n`;
  return rc(
    'kubernetes_config_map_v1_data.aws_auth',
    'kubernetes_config_map_v1_data',
    ['update'],
    { metadata: meta, data: { mapRoles }, field_manager: 'Terraform', force: true },
    { metadata: meta, data: { mapRoles: after }, field_manager: 'Terraform', force: true },
  );
}

/** A typical large plan: one aws-auth update, 60 access-entry and 4 node-group changes, the rest other resources. */
export function typicalPlan(mapRoles: string): unknown {
  const changes: Rc[] = [awsAuthUpdate(mapRoles)];
  for (let i = 0; i < 40; i++)
    changes.push(
      rc(`aws_eks_access_entry.new${i}`, 'aws_eks_access_entry', ['create'], null, entry(100_000 + i)),
    );
  for (let i = 0; i < 20; i++)
    changes.push(
      rc(`aws_eks_access_entry.old${i}`, 'aws_eks_access_entry', ['delete'], entry(3 * i + 1), null),
    );
  for (let i = 0; i < 4; i++) {
    const ng = {
      cluster_name: 'bench',
      node_group_name: `ng-${i}`,
      node_role_arn: `arn:aws:iam::${ACCOUNT}:role/node-${i}`,
    };
    changes.push(
      rc(`aws_eks_node_group.ng${i}`, 'aws_eks_node_group', ['create', 'delete'], ng, {
        ...ng,
        node_group_name: `ng-${i}-b`,
      }),
    );
  }
  while (changes.length < CHANGES) {
    const i = changes.length;
    const rule = {
      security_group_id: 'sg-0a1b2c3d',
      from_port: i,
      to_port: i,
      protocol: 'tcp',
      type: 'ingress',
    };
    changes.push(
      rc(
        `aws_security_group_rule.r${i}`,
        'aws_security_group_rule',
        i % 4 === 0 ? ['create'] : ['no-op'],
        i % 4 === 0 ? null : rule,
        rule,
      ),
    );
  }
  return { format_version: '1.2', terraform_version: '1.9.8', resource_changes: changes };
}

/** Every change auth-relevant: 1,999 access-entry creates and deletes plus the aws-auth update. */
export function worstPlan(mapRoles: string): unknown {
  const changes: Rc[] = [awsAuthUpdate(mapRoles)];
  for (let i = 0; changes.length < CHANGES; i++) {
    changes.push(
      i % 2 === 0
        ? rc(`aws_eks_access_entry.new${i}`, 'aws_eks_access_entry', ['create'], null, entry(100_000 + i))
        : rc(`aws_eks_access_entry.old${i}`, 'aws_eks_access_entry', ['delete'], entry(3 * i + 1), null),
    );
  }
  return { format_version: '1.2', terraform_version: '1.9.8', resource_changes: changes };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function time(fn: () => unknown, runs: number): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

export interface PlanBenchRow {
  plan: string;
  relevant: number;
  assessMs: number;
  planMs: number;
  findings: number;
}

export function benchTerraformPlan(runs = 7): PlanBenchRow[] {
  const snapshot = syntheticCluster(10_000);
  const mapRoles = snapshot.awsAuth.status === 'ok' ? (snapshot.awsAuth.data.data.mapRoles ?? '') : '';
  const rows: PlanBenchRow[] = [];
  for (const [name, doc] of [
    ['typical: 2,000 changes, 65 auth-relevant', typicalPlan(mapRoles)],
    ['worst case: 2,000 changes, all auth-relevant', worstPlan(mapRoles)],
  ] as const) {
    const check = () => {
      const v = validatePlan(doc);
      if (!v.ok) throw new Error(v.error);
      return whatIfTerraformPlan(v.plan, [snapshot]);
    };
    const result = check();
    const assessMs = time(() => assessSnapshot(snapshot), runs);
    const planMs = time(check, runs);
    rows.push({
      plan: name,
      relevant: result.clusters[0]?.steps ?? 0,
      assessMs,
      planMs,
      findings: result.clusters.reduce((n, c) => n + c.findings.length, 0),
    });
  }
  return rows;
}

const NOTE =
  'Where the time goes: the evaluation is one what-if (states before and after analysed once each, within one plan evaluation aws-auth is parsed once per distinct content: `withEvaluationMemo`, shared/core/analysis.ts); what remains above assess is each node-group or Fargate step that really edits aws-auth re-encoding the 10k-entry mapRoles and the next state re-parsing it (`simulateChange`, shared/core/simulate.ts), and the aws-auth step listing what it unmaps.';

export function terraformPlanMarkdown(rows: PlanBenchRow[]): string {
  const lines = [
    'Cluster: 10,000 aws-auth entries, 5,000 access entries, 5,000 nodes (bench/engine.ts). Median of 7 runs after a warm-up.',
    '',
    '| plan | steps simulated | assess ms | whatif --terraform-plan ms | ratio | findings |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.plan} | ${r.relevant} | ${r.assessMs.toFixed(1)} | ${r.planMs.toFixed(1)} | ${(r.planMs / r.assessMs).toFixed(1)}× | ${r.findings} |`,
    ),
  ];
  const typical = rows[0];
  if (typical) {
    const ratio = typical.planMs / typical.assessMs;
    lines.push(
      '',
      NOTE,
      '',
      `Goal: whatif --terraform-plan ≤ 2× assess on the same snapshot — typical plan ${ratio.toFixed(1)}×: ${ratio <= 2 ? 'met' : 'NOT met'}.`,
    );
  }
  return lines.join('\n');
}
