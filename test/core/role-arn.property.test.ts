/**
 * No access-entry ARN the product writes — a migration plan's entries, a fix's `create-access-entry`,
 * `associate-access-policy` and `update-access-entry`, a Terraform `principal_arn` — names a role
 * other than by its real ARN, when the snapshot knows the role's IAM path; and none names a role
 * whose path it does not know (never the path-less guess). Roles are made known through random
 * subsets of the sources a capture reads: IAM with its path, an older capture's IAM entries (both
 * spellings, no path), instance profiles, node groups, Fargate profiles, existing access entries.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { principalKey } from '../../shared/core/access/principal.ts';
import { planMigration } from '../../shared/core/migrate/migration-plan.ts';
import type { AccessEntry, ClusterSnapshot, ComputeNode, Finding, IamRole } from '../../shared/core/model.ts';
import { assessSnapshot, whatIf } from '../../shared/core/predict/engine.ts';
import { ACCOUNT, buildSnapshot } from '../support/snapshot-builder.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 250);

type Use = 'ec2' | 'fargate' | 'standard';
type Via = 'iam-path' | 'iam-asked' | 'instance-profile' | 'nodegroup' | 'fargate-profile' | 'entry';

interface RoleSpec {
  name: string;
  path: string;
  use: Use;
  mapped: boolean;
  via: Via[];
}

const arnOf = (r: RoleSpec) => `arn:aws:iam::${ACCOUNT}:role${r.path}${r.name}`;
const pathless = (r: RoleSpec) => `arn:aws:iam::${ACCOUNT}:role/${r.name}`;

const roleSpec = (name: string): fc.Arbitrary<RoleSpec> =>
  fc.record({
    name: fc.constant(name),
    path: fc.constantFrom('/', '/eks/', '/teams/ci/', '/aws-reserved/sso.amazonaws.com/eu-west-1/'),
    use: fc.constantFrom<Use>('ec2', 'fargate', 'standard'),
    mapped: fc.boolean(),
    via: fc.subarray<Via>([
      'iam-path',
      'iam-asked',
      'instance-profile',
      'nodegroup',
      'fargate-profile',
      'entry',
    ]),
  });

const scenarioArb = fc.record({
  mode: fc.constantFrom('CONFIG_MAP', 'API_AND_CONFIG_MAP', 'API') as fc.Arbitrary<
    ClusterSnapshot['cluster']['authenticationMode']
  >,
  roles: fc
    .subarray(['legacy-node', 'ci', 'ops', 'fargate-pods', 'web'], { minLength: 1, maxLength: 4 })
    .chain((names) => fc.tuple(...names.map(roleSpec))),
});

function mapping(r: RoleSpec): string {
  const groups =
    r.use === 'ec2'
      ? ['system:bootstrappers', 'system:nodes']
      : r.use === 'fargate'
        ? ['system:bootstrappers', 'system:nodes', 'system:node-proxier']
        : ['developers'];
  const username =
    r.use === 'ec2'
      ? 'system:node:{{EC2PrivateDNSName}}'
      : r.use === 'fargate'
        ? 'system:node:{{SessionName}}'
        : `${r.name}:{{SessionName}}`;
  // aws-auth names the role without its path, as it must
  return `- rolearn: ${pathless(r)}\n  username: '${username}'\n  groups: [${groups.join(', ')}]\n`;
}

/** The snapshot, and for each role whether it tells the role's path. */
function build(mode: ClusterSnapshot['cluster']['authenticationMode'], roles: readonly RoleSpec[]) {
  const iamRoles: IamRole[] = [];
  const compute: ComputeNode[] = [];
  const nodegroups: ClusterSnapshot['nodegroups'] & { status: 'ok' } = { status: 'ok', data: [] };
  const fargate: ClusterSnapshot['fargateProfiles'] & { status: 'ok' } = { status: 'ok', data: [] };
  const entries: AccessEntry[] = [];
  const known = new Map<string, boolean>();
  roles.forEach((r, i) => {
    const has = (v: Via) => r.via.includes(v);
    let tells = false;
    if (has('iam-path')) {
      iamRoles.push({ arn: arnOf(r), state: 'exists', path: r.path });
      tells = true;
    } else if (has('iam-asked')) {
      // an older capture: one entry per spelling, the ARN it asked with, no path
      iamRoles.push({ arn: pathless(r), state: 'exists' });
      if (r.path !== '/') iamRoles.push({ arn: arnOf(r), state: 'exists' });
      tells ||= r.path !== '/';
    }
    if (r.use === 'ec2' && has('instance-profile')) {
      compute.push({ kind: 'self-managed', id: `i-0${String(i).padStart(16, '0')}`, roleArn: arnOf(r) });
      tells = true;
    }
    if (r.use === 'ec2' && has('nodegroup')) {
      nodegroups.data.push({ name: `ng-${r.name}`, status: 'ACTIVE', nodeRole: arnOf(r), healthIssues: [] });
      tells = true;
    }
    if (r.use === 'fargate' && has('fargate-profile')) {
      fargate.data.push({
        name: `fp-${r.name}`,
        status: 'ACTIVE',
        podExecutionRoleArn: arnOf(r),
        selectors: [],
      });
      tells = true;
    }
    if (mode !== 'CONFIG_MAP' && has('entry')) {
      entries.push({
        principalArn: arnOf(r),
        type: r.use === 'ec2' ? 'EC2_LINUX' : r.use === 'fargate' ? 'FARGATE_LINUX' : 'STANDARD',
        kubernetesGroups: r.use === 'standard' ? ['readers'] : [],
        accessPolicies: [],
      });
      tells = true;
    }
    known.set(principalKey(arnOf(r)), tells);
  });
  const snapshot = buildSnapshot({
    mode,
    mapRoles: roles
      .filter((r) => r.mapped)
      .map(mapping)
      .join(''),
    entries,
    nodegroups: nodegroups.data,
    fargateProfiles: fargate.data,
    compute,
    iamRoles,
  });
  return { snapshot, known };
}

const CREATES = /^aws eks (create-access-entry|associate-access-policy|update-access-entry) /;

/** The principal ARNs a fix's EKS writes and Terraform name. */
function writtenBy(findings: readonly Finding[]): string[] {
  const out: string[] = [];
  for (const f of findings) {
    const cli = (f.remediation?.awsCli ?? '').replace(/ \\\n\s+/g, ' ');
    for (const line of cli.split('\n')) {
      if (!CREATES.test(line)) continue;
      for (const m of line.matchAll(/--principal-arn (\S+)/g)) out.push(m[1] ?? '');
    }
    for (const m of (f.remediation?.terraform ?? '').matchAll(/principal_arn\s*=\s*"([^"]+)"/g))
      out.push(m[1] ?? '');
  }
  return out;
}

describe('every access-entry ARN the product writes names the role as IAM has it', () => {
  it('holds for migrate, every finding of the state and of a switch to API, over random knowledge', () => {
    let sawPathWritten = 0;
    let sawUnknown = 0;
    fc.assert(
      fc.property(scenarioArb, ({ mode, roles }) => {
        const { snapshot, known } = build(mode, roles);
        const truth = new Map(roles.map((r) => [principalKey(arnOf(r)), arnOf(r)] as const));
        const plan = planMigration(snapshot);
        const findings = [
          ...assessSnapshot(snapshot),
          ...(mode === 'API' ? [] : whatIf(snapshot, { kind: 'set-auth-mode', mode: 'API' }).findings),
        ];
        const written = [...plan.accessEntries.map((e) => e.principalArn), ...writtenBy(findings)];
        for (const arn of written) {
          const key = principalKey(arn);
          const real = truth.get(key);
          if (real === undefined) continue;
          // a role whose path the snapshot cannot tell is never written at all
          expect(known.get(key), `${arn} written, but the snapshot does not tell its path`).toBe(true);
          expect(arn).toBe(real);
          if (real !== pathless(roles.find((r) => arnOf(r) === real) as RoleSpec)) sawPathWritten++;
        }
        for (const r of roles) {
          if (known.get(principalKey(arnOf(r)))) continue;
          sawUnknown++;
          // a mapped role that would need an entry is a blocker naming the look-up
          if (r.mapped && mode !== 'API')
            expect(plan.blockers.map((b) => `${b.subject} ${b.reason}`).join('\n')).toContain(
              `aws iam get-role --role-name ${r.name} `,
            );
        }
      }),
      { numRuns: RUNS },
    );
    // the property was not vacuous
    expect(sawPathWritten).toBeGreaterThan(0);
    expect(sawUnknown).toBeGreaterThan(0);
  });
});
