/**
 * Capture cost of workload identity: one cluster with 500 Pod Identity associations and 500 IRSA
 * service accounts over 200 distinct roles, captured through the real adapters against the
 * sandbox (20 ms a call), against the same cluster without workload identity in the same run.
 * The point is proportionality: each role is read once per capture (GetRole = 200 + the node
 * role), whoever uses it, and the association describes are bounded like access entries. The
 * account has 50 IAM OIDC providers (other clusters'): only the cluster's own is read
 * (GetOpenIDConnectProvider = 1).
 */
import { readFileSync } from 'node:fs';
import { startSandbox } from '../infra/sandbox/index.ts';
import { createLiveCaptureDeps } from '../shared/adapters/live.ts';
import { captureSnapshot } from '../shared/app/capture-snapshot.ts';
import type { ClusterSnapshot } from '../shared/core/model.ts';

const ACCOUNT = '111122223333';
const REGION = 'eu-west-1';
const LATENCY_MS = 20;
export const SHAPE = { associations: 500, irsaServiceAccounts: 500, roles: 200, oidcProviders: 50 } as const;
const role = (i: number) => `arn:aws:iam::${ACCOUNT}:role/wl-${String(i).padStart(3, '0')}`;

function seed(): ClusterSnapshot {
  return JSON.parse(
    readFileSync(
      new URL('../scenarios/workload-identity/wi-healthy-pod-identity.json', import.meta.url),
      'utf8',
    ),
  ) as ClusterSnapshot;
}

/** The healthy Pod Identity scenario scaled up: associations on roles 0–199, IRSA on the same roles. */
export function workloadCluster(name: string): ClusterSnapshot {
  const s = seed();
  s.clusterName = name;
  s.clusterArn = `arn:aws:eks:${REGION}:${ACCOUNT}:cluster/${name}`;
  s.podIdentityAssociations = {
    status: 'ok',
    data: Array.from({ length: SHAPE.associations }, (_, i) => ({
      associationId: `a-${String(i).padStart(17, '0')}`,
      namespace: `team-${i % 50}`,
      serviceAccount: `pi-${i}`,
      roleArn: role(i % SHAPE.roles),
    })),
  };
  s.serviceAccounts = {
    status: 'ok',
    data: Array.from({ length: SHAPE.irsaServiceAccounts }, (_, i) => ({
      namespace: `team-${i % 50}`,
      name: `irsa-${i}`,
      roleArnAnnotation: role((i * 7) % SHAPE.roles),
    })),
  };
  const issuerPath = (s.cluster.oidcIssuer ?? '').replace(/^https:\/\//, '');
  s.oidcProviders = {
    status: 'ok',
    data: Array.from({ length: SHAPE.oidcProviders }, (_, i) => {
      const url = i === 0 ? issuerPath : `oidc.eks.${REGION}.amazonaws.com/id/OTHER${i}`;
      return { arn: `arn:aws:iam::${ACCOUNT}:oidc-provider/${url}`, url };
    }),
  };
  const trust =
    '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"pods.eks.amazonaws.com"},"Action":["sts:AssumeRole","sts:TagSession"]}]}';
  if (s.iamRoles.status === 'ok') {
    s.iamRoles.data.push(
      ...Array.from({ length: SHAPE.roles }, (_, i) => ({
        arn: role(i),
        state: 'exists' as const,
        trustPolicy: trust,
      })),
    );
  }
  return s;
}

/** The same cluster without workload identity: no association, no annotated service account. */
export function baselineCluster(name: string): ClusterSnapshot {
  const s = workloadCluster(name);
  s.podIdentityAssociations = { status: 'ok', data: [] };
  s.serviceAccounts = { status: 'ok', data: [] };
  return s;
}

export interface WorkloadCaptureResult {
  rows: Array<{ label: string; ms: number; calls: Record<string, number> }>;
}

export async function benchCaptureWorkloadIdentity(): Promise<WorkloadCaptureResult> {
  const sandbox = await startSandbox({
    clusters: [
      { snapshot: workloadCluster('wi'), name: 'wi' },
      { snapshot: baselineCluster('base'), name: 'base' },
    ],
    latencyMs: LATENCY_MS,
  });
  try {
    const deps = createLiveCaptureDeps({
      credentials: { ...sandbox.credentials },
      endpoints: {
        eks: sandbox.env.AWS_ENDPOINT_URL_EKS,
        ec2: sandbox.env.AWS_ENDPOINT_URL_EC2,
        iam: sandbox.env.AWS_ENDPOINT_URL_IAM,
      },
    });
    const rows: WorkloadCaptureResult['rows'] = [];
    // Warm the clients once, then measure each shape.
    await captureSnapshot(deps, { region: REGION, clusterName: 'base' });
    for (const [label, name] of [
      ['without workload identity', 'base'],
      ['500 associations + 500 IRSA service accounts over 200 roles', 'wi'],
    ] as const) {
      const mark = sandbox.calls.length;
      const started = performance.now();
      await captureSnapshot(deps, { region: REGION, clusterName: name });
      const ms = performance.now() - started;
      const calls: Record<string, number> = {};
      for (const c of sandbox.calls.slice(mark)) {
        const key = `${c.service}:${c.operation}`;
        calls[key] = (calls[key] ?? 0) + 1;
      }
      rows.push({ label, ms, calls });
    }
    return { rows };
  } finally {
    await sandbox.close();
  }
}

export function captureWorkloadIdentityMarkdown(r: WorkloadCaptureResult): string {
  const ops = [...new Set(r.rows.flatMap((row) => Object.keys(row.calls)))].sort();
  const [base, wi] = r.rows;
  const lines = [
    `One cluster, ${LATENCY_MS} ms per call, no throttling; the real SDK and Kubernetes clients against the sandbox.`,
    '',
    `| capture | wall time | ${ops.join(' | ')} |`,
    `|---|---:|${ops.map(() => '---:').join('|')}|`,
    ...r.rows.map(
      (row) =>
        `| ${row.label} | ${Math.round(row.ms)} ms | ${ops.map((o) => row.calls[o] ?? 0).join(' | ')} |`,
    ),
    '',
    base && wi
      ? `Ratio with / without workload identity: ${(wi.ms / base.ms).toFixed(1)}× wall time, ${(Object.values(wi.calls).reduce((a, b) => a + b, 0) / Object.values(base.calls).reduce((a, b) => a + b, 0)).toFixed(1)}× calls. GetRole ${wi.calls['iam:GetRole'] ?? 0} = ${(wi.calls['iam:GetRole'] ?? 0) - (base.calls['iam:GetRole'] ?? 0)} workload roles (${SHAPE.roles} distinct) + the ${base.calls['iam:GetRole'] ?? 0} the cluster uses anyway: each role read once, not once per use (1,000 uses). GetOpenIDConnectProvider ${wi.calls['iam:GetOpenIDConnectProvider'] ?? 0} of the ${SHAPE.oidcProviders} providers listed: the cluster's own only.`
      : '',
  ];
  return lines.join('\n');
}
