/**
 * `npm start`, the aws-auth edits caught by the aws-auth paths (b, c; b in continuous mode) and the
 * remediation runs: with `--remediate` the damage never comes; with `--remediate dry-run` the
 * monitor writes nothing. The CloudTrail incidents are in incident-demo.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { firstAt, timeline, useIncidentDemo } from '../support/incident-demo-run.ts';

const demo = useIncidentDemo();

describe('npm start: the incident demo, aws-auth edits and remediation', () => {
  for (const id of ['b', 'c']) {
    it(`scenario ${id}: the aws-auth edit is caught by awsAuthCheck on its schedule (no staged run), the writer named from the audit log, the counts agree, exit 0`, async () => {
      const { code, out } = await demo('--scenario', id);
      expect(out).toMatch(
        /^Counts agree: the alert said (\d+) node\(s\) lose access; the sandbox saw \1 go NotReady\.$/m,
      );
      expect(code).toBe(0);
      if (id === 'b') expect(out).not.toContain('running pods keep running');
      const lines = timeline(out);
      const check = firstAt(lines, /^awsAuthCheck {2}(re-check|schedule tick)/);
      // the edit lands just after a look: the next one is the re-check, 30 s on AWS's clock (6 s here)
      expect(check).toBeGreaterThan(4);
      expect(firstAt(lines, /^Slack received/)).toBeGreaterThan(check);
      expect(lines.some(([, what]) => /^scheduler /.test(what))).toBe(false);
      expect(Number.isFinite(firstAt(lines, /^onAuditEvent {2}CloudWatch Logs subscription/))).toBe(true);
      expect(out).toMatch(/aws-auth write \(resourceVersion \d+\) was made by (Terraform|kubectl-edit)/);
    });
  }

  it('scenario b, continuous mode: awsAuthWatch sees the edit (no awsAuthCheck at all), before the damage, exit 0', async () => {
    const { code, out } = await demo('--scenario', 'b', '--mode', 'continuous');
    expect(out).toContain('OK: the critical alert reached Slack');
    expect(code).toBe(0);
    expect(out).toContain('continuous mode: awsAuthWatch holds a watch on aws-auth');
    const lines = timeline(out);
    expect(lines.some(([, what]) => /^awsAuthCheck /.test(what))).toBe(false);
    expect(firstAt(lines, /^Slack received/)).toBeLessThan(firstAt(lines, /Ready=Unknown/));
  });

  it('scenario a, remediation on, CONFIG_MAP: onEksEvent puts back what EKS removed; zero nodes NotReady; one write, by the monitor, exit 0', async () => {
    const { code, out } = await demo('--remediate');
    expect(out).toMatch(/^OK: remediation on — zero nodes NotReady/m);
    expect(code).toBe(0);
    const lines = timeline(out);
    expect(lines.filter(([, what]) => /Ready=Unknown/.test(what))).toHaveLength(0);
    const edit = firstAt(lines, /EKS removed .* aws-auth/);
    const restore = firstAt(lines, /aws-auth updated by eks-auth-sentinel/);
    expect(restore).toBeGreaterThan(edit);
    expect(out).toContain('Remediation done: restore 1 aws-auth entry of role prod-node-role');
    expect(out).toMatch(/^ {2}T\+\d+\.\d\ds {2}by (onEksEvent|awsAuthCheck) \(the monitor's role\)/m);
    expect(out).toMatch(/^Writes by the monitor after the incident: [12] \(kube PatchConfigMap 200/m);
  });

  it("scenario a, remediation on, API_AND_CONFIG_MAP: the node role's access entry exists before EKS's aws-auth edit; zero nodes NotReady, exit 0", async () => {
    // a 2× clock: EKS's edit 15 s into the deletion, room for onEksEvent's cold start on a loaded machine
    const { code, out } = await demo(
      '--auth-mode',
      'api-and-config-map',
      '--remediate',
      'on',
      '--clock',
      '2',
    );
    expect(out).toMatch(/^OK: remediation on — zero nodes NotReady/m);
    expect(code).toBe(0);
    const lines = timeline(out);
    const created = firstAt(lines, /access entry \S+prod-node-role \(EC2_LINUX\) created/);
    const edit = firstAt(lines, /EKS removed .* aws-auth/);
    expect(Number.isFinite(created)).toBe(true);
    expect(created).toBeLessThan(edit);
    expect(out).toContain('Remediation done: create the EC2_LINUX access entry of role prod-node-role');
    expect(out).toContain('eks CreateAccessEntry 200');
  });

  it('scenario b, remediation on: awsAuthCheck restores the Fargate entry Terraform removed; zero Fargate nodes NotReady, exit 0', async () => {
    const { code, out } = await demo('--scenario', 'b', '--remediate');
    expect(out).toMatch(/^OK: remediation on — zero nodes NotReady/m);
    expect(code).toBe(0);
    expect(out).toContain('Remediation done: restore 1 aws-auth entry of role prod-fargate-pod-execution');
    expect(out).toMatch(/by awsAuthCheck \(the monitor's role\)/);
    expect(out).toContain('Writes by the monitor after the incident: 1 (kube PatchConfigMap 200');
    expect(timeline(out).filter(([, what]) => /Ready=Unknown/.test(what))).toHaveLength(0);
  });

  for (const id of ['a', 'b']) {
    it(`scenario ${id}, remediation dry-run: no write at all, "would do" alerted, the damage happens as without it, exit 0`, async () => {
      const { code, out } = await demo('--scenario', id, '--remediate', 'dry-run');
      expect(out).toContain('Writes by the monitor after the incident: 0.');
      expect(out).toContain('OK: dry-run wrote nothing');
      expect(out).toMatch(/Remediation would do \(dry run\): restore 1 aws-auth entry/);
      expect(code).toBe(0);
      expect(timeline(out).some(([, what]) => /Ready=Unknown/.test(what))).toBe(true);
    });
  }
});
