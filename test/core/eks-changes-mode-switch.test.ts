/**
 * The CONFIG_MAP → API_AND_CONFIG_MAP switch (scenarios/eks-changes/mode-switch-node-and-fargate-config-map.json):
 * the two sources disagree on whether EKS back-fills node and Fargate access entries
 * (docs/eks-auth-semantics.md#mode-switch-back-fill). The prediction — what-if and the event path —
 * names the reading it assumed, and its fix creates the entries under either reading.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateAccessEntryCommand,
  DescribeAccessEntryCommand,
  DescribeClusterCommand,
  UpdateClusterConfigCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../infra/sandbox/index.ts';
import { createEksClient } from '../../shared/adapters/eks.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { whatIf } from '../../shared/core/predict/engine.ts';
import { MODE_SWITCH_BACK_FILL } from '../../shared/core/predict/mode-switch-back-fill.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { clientOptions } from '../support/sandbox-helpers.ts';

const FILE = 'scenarios/eks-changes/mode-switch-node-and-fargate-config-map.json';
const NODE = 'arn:aws:iam::111122223333:role/prod-node-role';
const FARGATE = 'arn:aws:iam::111122223333:role/prod-fargate-pod-execution';
const load = () => JSON.parse(readFileSync(join(REPO_ROOT, FILE), 'utf8')) as ClusterSnapshot;

function modeRecord(mode: string): unknown {
  const e = JSON.parse(
    readFileSync(join(REPO_ROOT, 'test/fixtures/cloudtrail/update-cluster-config-auth-mode.json'), 'utf8'),
  ) as { detail: { requestParameters: { accessConfig: { authenticationMode: string } } } };
  e.detail.requestParameters.accessConfig.authenticationMode = mode;
  return e;
}

describe('mode switch CONFIG_MAP → API_AND_CONFIG_MAP: the assumption named, the entries created either way', () => {
  it('today: only cluster/configmap-only-mode (low)', async () => {
    const fake = createFakeIo();
    await runCli(['assess', '--snapshot', FILE, '--format', 'json'], fake.io);
    const ids = (JSON.parse(fake.out()) as { findings: { ruleId: string }[] }).findings.map((f) => f.ruleId);
    expect(ids).toEqual(['cluster/configmap-only-mode']);
  });

  it('what-if names the assumed reading in an effect and in the finding, and the fix creates both entries', async () => {
    const fake = createFakeIo();
    const code = await runCli(
      ['whatif', '--snapshot', FILE, '--auth-mode', 'API_AND_CONFIG_MAP', '--format', 'json'],
      fake.io,
    );
    expect(code).toBe(0);
    const report = JSON.parse(fake.out()) as {
      effects: { summary: string; assumed: boolean }[];
      findings: {
        ruleId: string;
        severity: string;
        detail: string;
        evidence: Record<string, unknown>;
        remediation: { awsCli: string; notes: string[] };
      }[];
    };
    const effect = report.effects.find((e) => e.summary.includes('containers-roadmap#185'));
    expect(effect?.assumed).toBe(true);
    expect(effect?.summary).toContain('Assumed the EKS API reference');
    expect(report.findings.map((f) => [f.ruleId, f.severity])).toEqual([
      ['cluster/mode-switch-node-entries', 'low'],
    ]);
    const f = report.findings[0];
    expect(f?.evidence.backFillAssumption).toBe(MODE_SWITCH_BACK_FILL.id);
    expect(f?.detail).toContain(`Assumed: ${MODE_SWITCH_BACK_FILL.assumed}`);
    expect(f?.detail).toContain(`Not assumed: ${MODE_SWITCH_BACK_FILL.other}`);
    const cli = f?.remediation.awsCli ?? '';
    // Wait for the switch, then create both entries; an existing one (PM reading) is documented as fine.
    expect(cli.indexOf('aws eks wait cluster-active --name prod --region eu-west-1')).toBeGreaterThanOrEqual(
      0,
    );
    expect(cli.indexOf('wait cluster-active')).toBeLessThan(cli.indexOf('create-access-entry'));
    expect(cli).toContain(`--principal-arn ${NODE} --type EC2_LINUX`);
    expect(cli).toContain(`--principal-arn ${FARGATE} --type FARGATE_LINUX`);
    expect(cli).toMatch(/ResourceInUseException: the entry is there, go on/);
    expect(cli.split('\n').filter((l) => l.startsWith('aws eks create-access-entry'))).toHaveLength(2);
  });

  it('no finding when the entries already exist (the PM reading came true, or someone created them)', () => {
    const s = load();
    s.cluster.authenticationMode = 'CONFIG_MAP';
    s.accessEntries = {
      status: 'ok',
      data: [
        { principalArn: NODE, type: 'EC2_LINUX', kubernetesGroups: ['system:nodes'], accessPolicies: [] },
        { principalArn: FARGATE, type: 'FARGATE_LINUX', kubernetesGroups: [], accessPolicies: [] },
      ],
    };
    const r = whatIf(s, { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' });
    expect(r.findings.map((f) => f.ruleId)).not.toContain('cluster/mode-switch-node-entries');
  });

  it('the event path: the UpdateClusterConfig record predicts the same finding with the same assumption', () => {
    const parsed = parseEksEvent(modeRecord('API_AND_CONFIG_MAP'));
    expect(parsed.kind).toBe('change');
    if (parsed.kind !== 'change') return;
    const r = whatIf(load(), parsed.change, { trigger: `event:${parsed.eventName}` });
    const f = r.findings.find((x) => x.ruleId === 'cluster/mode-switch-node-entries');
    expect(f?.evidence.backFillAssumption).toBe(MODE_SWITCH_BACK_FILL.id);
    expect(r.effects.some((e) => e.assumed && e.summary.includes(MODE_SWITCH_BACK_FILL.assumed))).toBe(true);
  });

  it('a record that switches the mode together with Auto Mode and zonal shift fields is still read: the same finding', () => {
    const e = JSON.parse(
      readFileSync(
        join(REPO_ROOT, 'test/fixtures/cloudtrail/update-cluster-config-auto-mode-with-auth-mode.json'),
        'utf8',
      ),
    );
    const parsed = parseEksEvent(e);
    if (parsed.kind !== 'change') throw new Error(`not read: ${JSON.stringify(parsed)}`);
    const r = whatIf(load(), parsed.change, { trigger: `event:${parsed.eventName}` });
    expect(r.findings.map((f) => f.ruleId)).toEqual(['cluster/mode-switch-node-entries']);
  });

  it('to API directly: the assumption is named in the effects, and the node roles are left to auth-mode-drops-principals (no second copy of its commands)', () => {
    const r = whatIf(load(), { kind: 'set-auth-mode', mode: 'API' });
    expect(r.effects.some((e) => e.summary.includes(MODE_SWITCH_BACK_FILL.assumed))).toBe(true);
    expect(r.findings.map((f) => f.ruleId)).not.toContain('cluster/mode-switch-node-entries');
    expect(r.findings.map((f) => f.ruleId)).toContain('cluster/auth-mode-drops-principals');
  });
});

describe('the fix holds under either reading, against the sandbox through the real SDK client', () => {
  for (const reading of ['api-reference', 'pm-statement'] as const) {
    it(`${reading}: after the switch, the fix's entries exist; a create that meets EKS's own entry is ResourceInUseException`, async () => {
      const sandbox = await startSandbox({ clusters: [{ snapshot: load() }], modeSwitchBackFill: reading });
      try {
        const eks = createEksClient('eu-west-1', clientOptions(sandbox)).client;
        const f = whatIf(load(), { kind: 'set-auth-mode', mode: 'API_AND_CONFIG_MAP' }).findings.find(
          (x) => x.ruleId === 'cluster/mode-switch-node-entries',
        );
        const roles = (f?.evidence.roles ?? []) as { roleArn: string; type: string }[];
        expect(roles.map((r) => r.type).sort()).toEqual(['EC2_LINUX', 'FARGATE_LINUX']);
        await eks.send(
          new UpdateClusterConfigCommand({
            name: 'prod',
            accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
          }),
        );
        for (let i = 0; i < 50; i++) {
          const c = await eks.send(new DescribeClusterCommand({ name: 'prod' }));
          if (c.cluster?.status === 'ACTIVE') break;
          await new Promise((r) => setTimeout(r, 20));
        }
        const outcomes: string[] = [];
        for (const r of roles) {
          try {
            await eks.send(
              new CreateAccessEntryCommand({ clusterName: 'prod', principalArn: r.roleArn, type: r.type }),
            );
            outcomes.push('created');
          } catch (error) {
            outcomes.push((error as { name: string }).name);
          }
        }
        expect(outcomes).toEqual(
          reading === 'pm-statement'
            ? ['ResourceInUseException', 'ResourceInUseException']
            : ['created', 'created'],
        );
        for (const r of roles) {
          const d = await eks.send(
            new DescribeAccessEntryCommand({ clusterName: 'prod', principalArn: r.roleArn }),
          );
          expect(d.accessEntry?.type).toBe(r.type);
        }
      } finally {
        await sandbox.close();
      }
    });
  }
});
