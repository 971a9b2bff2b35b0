/** Hand-built findings for renderer and CLI tests. */
import fc from 'fast-check';
import {
  type BlastRadius,
  type ClusterRef,
  type Finding,
  type Remediation,
  SEVERITIES,
} from '../../shared/core/model.ts';

export const TEST_CLUSTER: ClusterRef = { accountId: '111122223333', region: 'eu-west-1', name: 'prod' };

export function createBlastRadius(overrides: Partial<BlastRadius> = {}): BlastRadius {
  return {
    nodegroups: ['general'],
    fargateProfiles: [],
    nodeClasses: ['default'],
    nodeCount: 12,
    firstNodes: ['ip-10-0-1-17.eu-west-1.compute.internal', 'i-0abc123def4567890'],
    timeToImpact: 'new nodes at once; running nodes NotReady within minutes',
    ...overrides,
  };
}

export function createRemediation(overrides: Partial<Remediation> = {}): Remediation {
  return {
    summary: 'Create an EC2_LINUX access entry for the Karpenter node role before deleting the node group.',
    awsCli:
      'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\\n  --principal-arn arn:aws:iam::111122223333:role/KarpenterNodeRole-prod --type EC2_LINUX',
    terraform: [
      'resource "aws_eks_access_entry" "karpenter_node" {',
      '  cluster_name  = "prod"',
      '  principal_arn = "arn:aws:iam::111122223333:role/KarpenterNodeRole-prod"',
      '  type          = "EC2_LINUX"',
      '}',
    ].join('\n'),
    awsAuthYaml: [
      '- rolearn: arn:aws:iam::111122223333:role/KarpenterNodeRole-prod',
      '  username: system:node:{{EC2PrivateDNSName}}',
      '  groups:',
      '    - system:bootstrappers',
      '    - system:nodes',
    ].join('\n'),
    ...overrides,
  };
}

let counter = 0;

/** Overrides for `createFinding`; an optional field set to `undefined` is left out. */
export type FindingOverrides = { [K in keyof Finding]?: Finding[K] | undefined };

/** A complete finding; every field can be overridden. */
export function createFinding(overrides: FindingOverrides = {}): Finding {
  counter += 1;
  const finding: Finding = {
    ruleId: 'nodegroup/deletion-orphans-role',
    severity: 'critical',
    cluster: TEST_CLUSTER,
    subject: 'arn:aws:iam::111122223333:role/KarpenterNodeRole-prod',
    title: 'Deleting node group general removes a role Karpenter nodes still need',
    detail:
      'EKS removes the node role from aws-auth when the last managed node group using it is deleted. ' +
      'Karpenter nodes use the same role and nothing else authorizes it.',
    evidence: { nodegroup: 'general', roleArn: 'arn:aws:iam::111122223333:role/KarpenterNodeRole-prod' },
    blastRadius: createBlastRadius(),
    remediation: createRemediation(),
    trigger: 'whatif',
    fingerprint: `fp-${counter}`,
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete (finding as unknown as Record<string, unknown>)[key];
    else (finding as unknown as Record<string, unknown>)[key] = value;
  }
  return finding;
}

/** renderText's code frame: `    --- sh ---` … `    --- end ---` (the dash run as long as needed). */
const TEXT_FRAME_OPEN = /^ {4}(-{3,}) \S+ \1$/;

/** The line that closes the text frame `line` opens, or undefined when it opens none. */
function textFrameClose(line: string): string | undefined {
  const dashes = TEXT_FRAME_OPEN.exec(line)?.[1];
  return dashes === undefined ? undefined : `    ${dashes} end ${dashes}`;
}

/**
 * Whether a code fence is left open at the end of `text` (CommonMark rules: up to three spaces of
 * indentation; a fence closes with the same character, at least as long, and nothing after it).
 */
export function hasOpenFence(text: string): boolean {
  let open: { char: string; length: number } | undefined;
  let frameClose: string | undefined;
  for (const line of text.split('\n')) {
    // Code inside a text frame is code, not Markdown.
    if (frameClose !== undefined) {
      if (line === frameClose) frameClose = undefined;
      continue;
    }
    if (open === undefined && textFrameClose(line) !== undefined) {
      frameClose = textFrameClose(line);
      continue;
    }
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    const run = m?.[1];
    if (m === null || run === undefined) continue;
    const rest = m[2] ?? '';
    const char = run.charAt(0);
    if (open === undefined) {
      if (char === '`' && rest.includes('`')) continue; // not a fence: inline code
      open = { char, length: run.length };
    } else if (char === open.char && run.length >= open.length && rest.trim() === '') {
      open = undefined;
    }
  }
  return open !== undefined;
}

/** The contents of every fenced (Markdown) or framed (text) code block in `text`, in order. */
export function codeBlocksOf(text: string): string[] {
  const blocks: string[] = [];
  let open: { char: string; length: number; close?: string | undefined; lines: string[] } | undefined;
  for (const line of text.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    const run = m?.[1];
    if (open !== undefined) {
      const closes =
        open.char === 'frame'
          ? line === open.close
          : run !== undefined &&
            run.charAt(0) === open.char &&
            run.length >= open.length &&
            (m?.[2] ?? '').trim() === '';
      if (closes) {
        blocks.push(open.lines.join('\n'));
        open = undefined;
      } else {
        open.lines.push(line);
      }
    } else if (run !== undefined && !(run.charAt(0) === '`' && (m?.[2] ?? '').includes('`'))) {
      open = { char: run.charAt(0), length: run.length, lines: [] };
    } else if (textFrameClose(line) !== undefined) {
      open = { char: 'frame', length: 0, close: textFrameClose(line), lines: [] };
    }
  }
  return blocks;
}

/**
 * A finding of attacker-written text (`nasty`) for the renderer properties: every string field
 * drawn from `nasty`; list sizes, the fingerprint and the evidence as each property needs them.
 */
export function findingArbitrary(
  nasty: fc.Arbitrary<string>,
  options: {
    maxNodegroups: number;
    maxFirstNodes: number;
    fingerprint: fc.Arbitrary<string>;
    evidence: fc.Arbitrary<Record<string, unknown>>;
  },
): fc.Arbitrary<Finding> {
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  return fc
    .record({
      ruleId: nasty,
      severity: fc.constantFrom(...SEVERITIES),
      cluster: fc.record({ accountId: nasty, region: nasty, name: nasty }),
      subject: nasty,
      title: nasty,
      detail: nasty,
      blastRadius: optional(
        fc.record({
          nodegroups: fc.array(nasty, { maxLength: options.maxNodegroups }),
          fargateProfiles: fc.array(nasty, { maxLength: 3 }),
          nodeClasses: fc.array(nasty, { maxLength: 3 }),
          nodeCount: fc.nat(),
          firstNodes: fc.array(nasty, { maxLength: options.maxFirstNodes }),
          timeToImpact: nasty,
        }),
      ),
      remediation: optional(
        fc.record(
          {
            summary: nasty,
            awsCli: nasty,
            terraform: nasty,
            awsAuthYaml: nasty,
            notes: fc.array(nasty, { maxLength: 3 }),
          },
          { requiredKeys: ['summary'] },
        ),
      ),
      trigger: fc.constantFrom('schedule', 'manual', 'whatif', 'event:DeleteNodegroup') as fc.Arbitrary<
        Finding['trigger']
      >,
      fingerprint: options.fingerprint,
      evidence: options.evidence,
    })
    .map(({ blastRadius, remediation, ...rest }) => {
      const f: Finding = { ...rest };
      if (blastRadius !== undefined) f.blastRadius = blastRadius;
      if (remediation !== undefined) f.remediation = remediation;
      return f;
    });
}
