/**
 * Fixes that survive EKS's own next edit: the access entry first, then (CONFIG_MAP) the re-add
 * after EKS removes the mapping, as eksctl and `kubectl patch`; and the time to impact of nodes the
 * snapshot already shows NotReady.
 */
import { describe, expect, it } from 'vitest';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import type { Finding } from '../../shared/core/model.ts';
import { assessSnapshot, whatIf } from '../../shared/core/predict/engine.ts';
import { runWithStubs } from '../hostile/shell-stub.ts';
import {
  buildSnapshot,
  fargateProfile,
  karpenterNodes,
  managedNodes,
  NODE_ROLE,
  nodeMapping,
} from '../support/snapshot-builder.ts';

const deletion = (mapRoles = nodeMapping()) =>
  whatIf(buildSnapshot({ mapRoles, compute: [...managedNodes(2), ...karpenterNodes(3)] }), {
    kind: 'delete-nodegroup',
    nodegroupName: 'general',
  }).findings.find((f) => f.ruleId === 'nodegroup/deletion-orphans-role') as Finding;

describe('node access fix in CONFIG_MAP mode', () => {
  it('puts the access entry first and never tells to map the role in aws-auth alone', () => {
    const f = deletion();
    const summary = f.remediation?.summary ?? '';
    expect(summary).toMatch(/^Create an access entry of type EC2_LINUX for /);
    expect(summary).toContain('re-add the mapping after EKS has removed it');
    const cli = f.remediation?.awsCli ?? '';
    const at = (s: string) => cli.indexOf(s);
    expect(at('aws eks wait cluster-active')).toBeGreaterThan(at('aws eks update-cluster-config'));
    expect(at('aws eks create-access-entry')).toBeGreaterThan(at('aws eks wait cluster-active'));
    // the CONFIG_MAP alternatives are their own block, never inside the AWS CLI script
    expect(cli).not.toMatch(/eksctl|kubectl/);
    const alt = f.remediation?.alternatives?.[0]?.shell ?? '';
    expect(f.remediation?.alternatives?.[0]?.label).toMatch(/^Or, staying in CONFIG_MAP/);
    expect(alt.indexOf('kubectl patch configmap/aws-auth')).toBeGreaterThan(
      alt.indexOf('eksctl create iamidentitymapping'),
    );
    expect(alt.indexOf('eksctl create iamidentitymapping')).toBe(0);
  });

  it('writes eksctl and kubectl patch forms a shell passes exactly, restoring the mapping EKS removes', () => {
    // a hostile mapRoles (quotes, $, a newline in a username) must survive both layers
    const hostile = `${nodeMapping()}- rolearn: arn:aws:iam::111122223333:role/x\n  username: "it's $(id) \`x\`"\n  groups:\n    - dev\n`;
    const f = deletion(hostile);
    const run = runWithStubs('bash', `${f.remediation?.alternatives?.[0]?.shell ?? ''}\n`);
    expect(run.stderr).toBe('');
    const eksctl = run.calls.find((c) => c[0] === 'eksctl');
    expect(eksctl).toEqual([
      'eksctl',
      'create',
      'iamidentitymapping',
      '--cluster',
      'prod',
      '--region',
      'eu-west-1',
      '--arn',
      NODE_ROLE,
      '--username',
      'system:node:{{EC2PrivateDNSName}}',
      '--group',
      'system:bootstrappers',
      '--group',
      'system:nodes',
    ]);
    const patch = run.calls.find((c) => c[0] === 'kubectl') ?? [];
    const body = JSON.parse(patch[patch.indexOf('-p') + 1] ?? '{}') as { data: { mapRoles: string } };
    expect(body.data.mapRoles).toBe(hostile);
    expect(parseAwsAuth(body.data).roles.map((r) => r.rolearn)).toContain(NODE_ROLE);
  });

  it('leaves the kubectl patch out when mapRoles is too long to paste, and says so', () => {
    const long = `${nodeMapping()}${Array.from({ length: 80 }, (_, i) => `- rolearn: arn:aws:iam::111122223333:role/team-${i}\n  username: team-${i}\n  groups:\n    - dev\n`).join('')}`;
    const f = deletion(long);
    expect(f.remediation?.alternatives?.[0]?.shell).not.toContain('kubectl patch');
    expect(f.remediation?.notes?.join(' ')).toContain('no kubectl patch form is shown');
  });
});

describe('time to impact of nodes already NotReady', () => {
  it('says the nodes are NotReady since when, not that they go NotReady within minutes', () => {
    const nodes = karpenterNodes(3).map((n) => ({
      ...n,
      ready: 'Unknown' as const,
      readySince: '2026-11-20T09:58:00Z',
    }));
    const s = buildSnapshot({ mapRoles: '', compute: nodes, nodegroups: [] });
    const f = assessSnapshot(s).find((x) => x.ruleId === 'nodes/role-unauthorized');
    expect(f?.blastRadius?.timeToImpact).toBe(
      'all 3 node(s) already NotReady (Ready=Unknown, since 2026-11-20T09:58:00Z); new nodes fail to join',
    );
  });

  it('tells apart the nodes already down from those still to go', () => {
    const compute = [
      ...managedNodes(2),
      ...karpenterNodes(1).map((n) => ({ ...n, ready: 'Unknown' as const })),
    ];
    const f = assessSnapshot(buildSnapshot({ mapRoles: '', compute })).find(
      (x) => x.ruleId === 'nodes/role-unauthorized',
    );
    expect(f?.blastRadius?.timeToImpact).toMatch(
      /^1 node\(s\) already NotReady \(Ready=Unknown\); the other 2: new nodes fail to join at once; running nodes go NotReady within minutes/,
    );
  });

  it('keeps "within minutes" for nodes that are still Ready', () => {
    const f = assessSnapshot(buildSnapshot({ mapRoles: '' })).find(
      (x) => x.ruleId === 'nodes/role-unauthorized',
    );
    expect(f?.blastRadius?.timeToImpact).toMatch(
      /^new nodes fail to join at once; running nodes go NotReady within minutes/,
    );
  });

  it('does not say running Fargate pods keep running: their nodes go NotReady too', () => {
    const s = buildSnapshot({ mapRoles: nodeMapping(), fargateProfiles: [fargateProfile()] });
    const f = assessSnapshot(s).find((x) => x.ruleId === 'fargate/pod-execution-role-unauthorized');
    expect(f?.blastRadius?.timeToImpact).not.toContain('keep running');
    expect(f?.blastRadius?.timeToImpact).toContain('go NotReady');
  });
});

describe('fixes for a role whose IAM path the snapshot cannot tell', () => {
  const KP = 'arn:aws:iam::111122223333:role/kp-node';
  /** Karpenter nodes whose node class names its role by name only; IAM roles read before paths were recorded. */
  const karpenter = () => {
    const s = buildSnapshot({
      mapRoles: nodeMapping(),
      compute: [...managedNodes(2), ...karpenterNodes(2, KP)],
      iamRoles: [{ arn: KP, state: 'exists' }],
    });
    s.karpenterNodeClasses = { status: 'ok', data: [{ name: 'default', role: 'kp-node', roleArn: KP }] };
    return s;
  };

  it('looks the ARN up with aws iam get-role instead of creating the entry for a guess, and shows no Terraform', () => {
    const f = assessSnapshot(karpenter()).find(
      (x) => x.ruleId === 'nodes/role-unauthorized' && x.subject === KP,
    );
    const cli = f?.remediation?.awsCli ?? '';
    const run = runWithStubs('bash', cli);
    expect(run.calls.map((c) => c.slice(0, 3).join(' '))).toEqual([
      'aws eks update-cluster-config',
      'aws eks wait',
      'aws iam get-role',
    ]);
    expect(run.calls[2]).toEqual([
      'aws',
      'iam',
      'get-role',
      '--role-name',
      'kp-node',
      '--region',
      'eu-west-1',
      '--query',
      'Role.Arn',
      '--output',
      'text',
    ]);
    expect(cli).toContain('# then: aws eks create-access-entry --cluster-name prod --region eu-west-1');
    // Terraform asks IAM for the ARN (path included) instead of guessing it
    expect(f?.remediation?.terraform).toContain('data "aws_iam_role" "kp_node" {\n  name = "kp-node"\n}');
    expect(f?.remediation?.terraform).toContain('principal_arn = data.aws_iam_role.kp_node.arn');
    expect(f?.remediation?.terraform).not.toContain(KP);
    expect(f?.remediation?.summary).toContain(
      'role kp-node (by its ARN with the IAM path: look it up first)',
    );
    expect(f?.remediation?.notes?.at(-1)).toMatch(
      /^The Terraform looks the role up by name \(data "aws_iam_role"\): the IAM path of role "kp-node" is unknown/,
    );
    // aws-auth takes the path-less ARN: that alternative stays
    expect(f?.remediation?.awsAuthYaml).toContain(`rolearn: ${KP}`);
  });

  it('leaves such a role out of the auth-mode fix, with the look-up in a note', () => {
    const dev = 'arn:aws:iam::111122223333:role/dev';
    const s = buildSnapshot({
      mode: 'API_AND_CONFIG_MAP',
      mapRoles: `${nodeMapping()}- rolearn: ${dev}\n  username: dev\n  groups: [devs]\n`,
      iamRoles: [],
    });
    const f = whatIf(s, { kind: 'set-auth-mode', mode: 'API' }).findings.find(
      (x) => x.ruleId === 'cluster/auth-mode-drops-principals',
    );
    expect(f?.remediation?.awsCli).toContain(`--principal-arn ${NODE_ROLE} --type EC2_LINUX`);
    expect(f?.remediation?.awsCli).not.toContain(dev);
    expect(f?.remediation?.terraform).not.toContain(dev);
    expect(f?.remediation?.notes).toContainEqual(
      expect.stringContaining(
        `No access entry is written for ${dev}: the IAM path of role "dev" is unknown (no source of the snapshot names the role with its ARN)`,
      ),
    );
  });
});
