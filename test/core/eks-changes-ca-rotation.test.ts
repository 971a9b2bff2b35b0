/**
 * Cluster CA rotation (scenarios/eks-changes/ca-rotation-pending-karpenter.json): a successor CA
 * EKS distributes only to the compute it manages. The rule, its event path
 * (CreateCertificateAuthority / ActivateCertificateAuthority records), the snapshot source read
 * through the real SDK client from the sandbox, and the sandbox's activation cutting off the
 * Karpenter nodes that were not made to trust the successor.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ActivateCertificateAuthorityCommand, CreateCertificateAuthorityCommand } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { createEksClient, createEksReader } from '../../shared/adapters/eks.ts';
import { captureSnapshot } from '../../shared/app/capture-snapshot.ts';
import { parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { assessSnapshot, whatIf } from '../../shared/core/predict/engine.ts';
import { validateSnapshot } from '../../shared/core/snapshot/snapshot-schema.ts';
import { REPO_ROOT } from '../support/fake-io.ts';
import { clientOptions, sandboxDeps } from '../support/sandbox-helpers.ts';

const RULE = 'cluster/ca-rotation-unmanaged-nodes';
const SUCCESSOR = 'ca-9f8e7d6c5b4a';
const load = (): ClusterSnapshot =>
  JSON.parse(
    readFileSync(join(REPO_ROOT, 'scenarios/eks-changes/ca-rotation-pending-karpenter.json'), 'utf8'),
  ) as ClusterSnapshot;
const record = (name: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, `test/fixtures/cloudtrail/${name}.json`), 'utf8')) as unknown;
const ids = (fs: { ruleId: string }[]) => fs.map((f) => f.ruleId);

describe('cluster CA rotation: the rule on the scenario', () => {
  it('a pending successor with 3 Karpenter nodes: exactly one high finding, the nodes named, nothing else', () => {
    const findings = assessSnapshot(load());
    expect(findings.map((f) => [f.ruleId, f.severity])).toEqual([[RULE, 'high']]);
    const f = findings[0];
    expect(f?.blastRadius?.nodeCount).toBe(3);
    expect(f?.blastRadius?.nodeClasses).toEqual(['default']);
    expect(f?.evidence).toMatchObject({
      certificateAuthorityId: SUCCESSOR,
      firstAutoActivation: '2026-12-18T09:30:00.000Z',
    });
    expect(f?.detail).toContain('Assumed');
    // The fix reads the successor; it never activates it as a command to run.
    expect(f?.remediation?.awsCli).toContain(
      `describe-certificate-authority --cluster-name prod --region eu-west-1`,
    );
    expect(f?.remediation?.awsCli).not.toMatch(/^aws eks activate-certificate-authority/m);
  });

  it('critical when EKS may auto-activate within 7 days, or when it is activating', () => {
    const soon = load();
    if (soon.certificateAuthorities?.status !== 'ok') throw new Error('seed');
    const ca = soon.certificateAuthorities.data[1];
    if (ca) ca.firstAutoActivation = '2026-11-23T00:00:00Z';
    expect(assessSnapshot(soon).find((f) => f.ruleId === RULE)?.severity).toBe('critical');
    if (ca) ca.signingStatus = 'ACTIVATING';
    expect(assessSnapshot(soon).find((f) => f.ruleId === RULE)?.severity).toBe('critical');
  });

  it('no finding without nodes EKS does not manage, nor without a successor; an unread CA list is not "no rotation"', () => {
    const managedOnly = load();
    if (managedOnly.compute.status === 'ok')
      managedOnly.compute.data = managedOnly.compute.data.filter((n) => n.kind === 'managed');
    expect(ids(assessSnapshot(managedOnly))).not.toContain(RULE);
    const noSuccessor = load();
    if (noSuccessor.certificateAuthorities?.status === 'ok')
      noSuccessor.certificateAuthorities.data = noSuccessor.certificateAuthorities.data.slice(0, 1);
    expect(assessSnapshot(noSuccessor)).toEqual([]);
    const unread = load();
    unread.certificateAuthorities = {
      status: 'error',
      error: 'AccessDenied: eks:ListCertificateAuthorities',
    };
    const f = assessSnapshot(unread);
    expect(f.map((x) => [x.ruleId, x.severity, x.subject])).toEqual([
      ['monitor/source-unavailable', 'medium', 'certificateAuthorities'],
    ]);
  });

  it('the event path: ActivateCertificateAuthority predicts the cut-off (critical); CreateCertificateAuthority the pending one', () => {
    const noSuccessor = load();
    if (noSuccessor.certificateAuthorities?.status === 'ok')
      noSuccessor.certificateAuthorities.data = noSuccessor.certificateAuthorities.data.slice(0, 1);
    const created = parseEksEvent(record('create-certificate-authority'));
    if (created.kind !== 'change') throw new Error(JSON.stringify(created));
    const c = whatIf(noSuccessor, created.change, { trigger: `event:${created.eventName}` });
    expect(c.findings.map((f) => [f.ruleId, f.severity])).toEqual([[RULE, 'critical']]);
    expect(c.effects.some((e) => e.summary.includes('do not get it'))).toBe(true);

    const activated = parseEksEvent(record('activate-certificate-authority'));
    if (activated.kind !== 'change') throw new Error(JSON.stringify(activated));
    const a = whatIf(load(), activated.change, { trigger: `event:${activated.eventName}` });
    const f = a.findings.find((x) => x.ruleId === RULE);
    expect(f?.severity).toBe('critical');
    expect(f?.title).toContain('being activated');
  });
});

describe('cluster CA rotation in the sandbox, read through the real SDK client', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: load(), name: 'prod' }], notReadyDelayMs: 0 });
  });
  afterAll(async () => sandbox.close());

  it('the capture reads the CAs as seeded (PEM dropped) and the rule fires on it', async () => {
    const reader = createEksReader(createEksClient('eu-west-1', clientOptions(sandbox)));
    const cas = await reader.certificateAuthorities?.('prod');
    const seed = load().certificateAuthorities;
    expect(cas).toEqual(seed?.status === 'ok' ? seed.data : undefined);
    const s = await captureSnapshot(sandboxDeps(sandbox), { region: 'eu-west-1', clusterName: 'prod' });
    expect(validateSnapshot(JSON.parse(JSON.stringify(s)))).toMatchObject({ ok: true });
    expect(s.certificateAuthorities).toEqual(seed);
    expect(ids(assessSnapshot(s))).toContain(RULE);
  });

  it('a second successor is refused; activation cuts off the Karpenter nodes not made to trust it, managed nodes stay Ready', async () => {
    const eks = createEksClient('eu-west-1', clientOptions(sandbox)).client;
    await expect(
      eks.send(new CreateCertificateAuthorityCommand({ clusterName: 'prod' })),
    ).rejects.toMatchObject({
      name: 'ResourceInUseException',
    });
    const cluster = sandbox.cluster('prod');
    const karpenter = cluster.nodes.filter((n) => n.kind === 'karpenter');
    const trusted = karpenter[0]?.id as string;
    cluster.trustCertificateAuthority(SUCCESSOR, [trusted]);
    const out = await eks.send(
      new ActivateCertificateAuthorityCommand({ clusterName: 'prod', certificateAuthorityId: SUCCESSOR }),
    );
    expect(out.update?.type).toBe('CertificateAuthorityUpdate');
    await new Promise((r) => setTimeout(r, 50));
    expect(
      cluster.certificateAuthorities.map((c) => [c.id, c.signingStatus, c.rollbackAvailable ?? false]),
    ).toEqual([
      ['ca-0a1b2c3d4e5f', 'NOT_USED', true],
      [SUCCESSOR, 'IN_USE', false],
    ]);
    expect(karpenter.map((n) => n.ready)).toEqual(['True', 'Unknown', 'Unknown']);
    expect(cluster.nodes.filter((n) => n.kind === 'managed').every((n) => n.ready === 'True')).toBe(true);

    // The next snapshot: the cut-off nodes are named, critical.
    const s = await captureSnapshot(sandboxDeps(sandbox), { region: 'eu-west-1', clusterName: 'prod' });
    const f = assessSnapshot(s).find((x) => x.ruleId === RULE);
    expect(f?.severity).toBe('critical');
    expect(f?.blastRadius?.nodeCount).toBe(2);
    expect(f?.evidence).toMatchObject({
      certificateAuthorityId: SUCCESSOR,
      previousCertificateAuthorityId: 'ca-0a1b2c3d4e5f',
    });
  });
});
