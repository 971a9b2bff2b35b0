/**
 * Engine benchmark: parse + resolve + every rule (assessSnapshot) on synthetic clusters of
 * 1k, 10k and 100k aws-auth entries, with access entries and nodes at half that count each.
 * Compared as ratios within one run (the machine is shared and noisy).
 */
import { assessSnapshot } from '../shared/core/engine.ts';
import type { ClusterSnapshot } from '../shared/core/model.ts';

const ACCOUNT = '111122223333';

export function syntheticCluster(awsAuthEntries: number): ClusterSnapshot {
  const entries = Math.floor(awsAuthEntries / 2);
  const nodes = Math.floor(awsAuthEntries / 2);
  const nodeRoles = Math.max(1, Math.floor(awsAuthEntries / 100));
  const lines: string[] = [];
  for (let i = 0; i < awsAuthEntries; i++) {
    if (i < nodeRoles) {
      lines.push(
        `- rolearn: arn:aws:iam::${ACCOUNT}:role/node-${i}`,
        '  username: system:node:{{EC2PrivateDNSName}}',
        '  groups:',
        '    - system:bootstrappers',
        '    - system:nodes',
      );
    } else {
      lines.push(
        `- rolearn: arn:aws:iam::${ACCOUNT}:role/team-${i}`,
        `  username: team-${i}`,
        '  groups:',
        `    - team-${i % 50}`,
      );
    }
  }
  return {
    schemaVersion: 1,
    capturedAt: '2026-11-20T10:00:00Z',
    accountId: ACCOUNT,
    region: 'eu-west-1',
    clusterName: 'bench',
    clusterArn: `arn:aws:eks:eu-west-1:${ACCOUNT}:cluster/bench`,
    cluster: { status: 'ACTIVE', authenticationMode: 'API_AND_CONFIG_MAP' },
    awsAuth: {
      status: 'ok',
      data: {
        data: { mapRoles: `${lines.join('\n')}\n` },
        managedFields: [
          { manager: 'Terraform', operation: 'Apply', time: '2026-01-01T00:00:00Z', dataKeys: ['mapRoles'] },
        ],
      },
    },
    accessEntries: {
      status: 'ok',
      data: Array.from({ length: entries }, (_, i) => ({
        principalArn: `arn:aws:iam::${ACCOUNT}:role/${i % 3 === 0 ? `node-${i % nodeRoles}` : `svc-${i}`}`,
        type: i % 3 === 0 ? ('EC2_LINUX' as const) : ('STANDARD' as const),
        kubernetesGroups: [],
        accessPolicies: [],
        createdAt: '2025-01-01T00:00:00Z',
      })),
    },
    nodegroups: {
      status: 'ok',
      data: Array.from({ length: nodeRoles }, (_, i) => ({
        name: `ng-${i}`,
        status: 'ACTIVE',
        nodeRole: `arn:aws:iam::${ACCOUNT}:role/node-${i}`,
        healthIssues: [],
      })),
    },
    fargateProfiles: { status: 'ok', data: [] },
    compute: {
      status: 'ok',
      data: Array.from({ length: nodes }, (_, i) => ({
        kind: i % 2 ? ('karpenter' as const) : ('managed' as const),
        id: `i-${i.toString(16).padStart(17, '0')}`,
        nodeName: `ip-10-${i >> 16}-${(i >> 8) & 255}-${i & 255}.eu-west-1.compute.internal`,
        roleArn: `arn:aws:iam::${ACCOUNT}:role/node-${i % nodeRoles}`,
        nodegroup: `ng-${i % nodeRoles}`,
      })),
    },
    iamRoles: { status: 'ok', data: [] },
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

export interface EngineRow {
  awsAuthEntries: number;
  accessEntries: number;
  nodes: number;
  medianMs: number;
  runs: number;
  findings: number;
}

export function benchEngine(sizes = [1_000, 10_000, 100_000]): EngineRow[] {
  const rows: EngineRow[] = [];
  for (const size of sizes) {
    const snap = syntheticCluster(size);
    const runs = size >= 100_000 ? 7 : size >= 10_000 ? 15 : 31;
    assessSnapshot(snap); // warm-up
    const times: number[] = [];
    let findings = 0;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      findings = assessSnapshot(snap).length;
      times.push(performance.now() - t0);
    }
    rows.push({
      awsAuthEntries: size,
      accessEntries: Math.floor(size / 2),
      nodes: Math.floor(size / 2),
      medianMs: median(times),
      runs,
      findings,
    });
  }
  return rows;
}

export function engineMarkdown(rows: EngineRow[]): string {
  const lines = [
    '| aws-auth entries | access entries | nodes | median ms (parse + resolve + all rules) | runs | ratio to previous size |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  rows.forEach((r, i) => {
    const prev = rows[i - 1];
    lines.push(
      `| ${r.awsAuthEntries.toLocaleString('en')} | ${r.accessEntries.toLocaleString('en')} | ${r.nodes.toLocaleString('en')} | ${r.medianMs.toFixed(1)} | ${r.runs} | ${prev ? `${(r.medianMs / prev.medianMs).toFixed(1)}× for 10× input` : '—'} |`,
    );
  });
  const ten = rows.find((r) => r.awsAuthEntries === 10_000);
  const ratios = rows.slice(1).map((r, i) => r.medianMs / (rows[i]?.medianMs ?? 1));
  lines.push(
    '',
    `Goal: 10k aws-auth + 5k access entries + 5k nodes under 100 ms — ${ten ? `${ten.medianMs.toFixed(1)} ms: ${ten.medianMs < 100 ? 'met' : 'NOT met'}` : 'not measured'}.`,
    `Goal: 10× the input costs ≤ 12× the time — worst ratio ${Math.max(...ratios).toFixed(1)}×: ${Math.max(...ratios) <= 12 ? 'met' : 'NOT met'}.`,
  );
  return lines.join('\n');
}
