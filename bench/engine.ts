/**
 * Engine benchmark: parse + resolve + every rule (assessSnapshot) on synthetic clusters of
 * 1k, 10k and 100k aws-auth entries, with access entries and nodes at half that count each.
 * Compared as ratios within one run (the machine is shared and noisy).
 *
 * Then the parse alone at 10k entries, the go-yaml v2 port (`parseAwsAuth`) against the former
 * `yaml`-package front end (`bench/legacy-aws-auth/`), interleaved in the same run (issue 9:
 * the parse share no more than 1.2× the old path's): the engine's input as it is (the fast path
 * reads it, both sides), and the same text behind a leading comment, which the fast path leaves
 * to the YAML front end.
 */
import { parseAwsAuth } from '../shared/core/aws-auth/index.ts';
import type { ClusterSnapshot } from '../shared/core/model.ts';
import { assessSnapshot } from '../shared/core/predict/engine.ts';
import { parseAwsAuthLegacy } from './legacy-aws-auth/index.ts';

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

export interface ParseCompareRow {
  input: string;
  bytes: number;
  roles: number;
  newMs: number;
  oldMs: number;
  runs: number;
}

/** The engine's aws-auth text at `size` entries, through the new and the old parse path. */
export function benchParseCompare(size = 10_000, runs = 15): ParseCompareRow[] {
  const data = syntheticCluster(size).awsAuth;
  const text = data.status === 'ok' ? (data.data.data.mapRoles ?? '') : '';
  const inputs = [
    { input: 'engine input (fast path on both sides)', text },
    {
      input: 'the same behind `# managed by Terraform` (YAML front end)',
      text: `# managed by Terraform\n${text}`,
    },
  ];
  return inputs.map(({ input, text: mapRoles }) => {
    const paths = { new: parseAwsAuth, old: parseAwsAuthLegacy };
    const times = { new: [] as number[], old: [] as number[] };
    let roles = 0;
    for (const f of Object.values(paths)) f({ mapRoles }); // warm-up
    for (let i = 0; i < runs; i++) {
      // Alternating order: a busy moment of the machine hits both alike.
      for (const k of i % 2 ? (['old', 'new'] as const) : (['new', 'old'] as const)) {
        const t0 = performance.now();
        const parsed = paths[k]({ mapRoles });
        times[k].push(performance.now() - t0);
        if (k === 'new') roles = parsed.roles.length;
        else if (parsed.roles.length !== roles && i > 0)
          throw new Error(`old path keeps ${parsed.roles.length} roles`);
      }
    }
    return {
      input,
      bytes: Buffer.byteLength(mapRoles),
      roles,
      newMs: median(times.new),
      oldMs: median(times.old),
      runs,
    };
  });
}

export function engineMarkdown(rows: EngineRow[], parse: ParseCompareRow[] = []): string {
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
  if (parse.length > 0) {
    lines.push(
      '',
      `Parse alone at 10k entries (\`parseAwsAuth\` of the \`mapRoles\` value): the go-yaml v2 port against the former \`yaml\`-package front end (\`bench/legacy-aws-auth/\`), ${parse[0]?.runs} runs each, alternating; median.`,
      '',
      '| input | bytes | roles | new (go-yaml port) ms | old (`yaml` package) ms | new ÷ old | parse share of the engine run at 10k |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...parse.map((p) => {
        const share = ten && p === parse[0] ? `${((100 * p.newMs) / ten.medianMs).toFixed(0)} %` : '—';
        return `| ${p.input} | ${p.bytes.toLocaleString('en')} | ${p.roles.toLocaleString('en')} | ${p.newMs.toFixed(1)} | ${p.oldMs.toFixed(1)} | ${(p.newMs / p.oldMs).toFixed(2)}× | ${share} |`;
      }),
    );
    const worst = Math.max(...parse.map((p) => p.newMs / p.oldMs));
    lines.push(
      '',
      `Goal (issue 9): the parse at 10k entries no more than 1.2× the old path's, same run — worst ${worst.toFixed(2)}×: ${worst <= 1.2 ? 'met' : 'NOT met'}.`,
    );
  }
  return lines.join('\n');
}
