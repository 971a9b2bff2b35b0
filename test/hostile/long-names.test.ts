/**
 * Issue 17, "Secrets and bounds": an anchor or tag name of 200,000 characters overflowed the stack
 * in the YAML front end (`String.fromCharCode(...bytes)` and `push(...bytes)` pass one argument
 * per byte) and became a false critical "aws-auth does not parse". The authenticator's go-yaml
 * reads them; parseAwsAuth must read them as it does — compared with the Go reference decoder —
 * and so must a 0.9 MiB aws-auth manifest (one block scalar: the same overflow).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { configMapDataFromManifest } from '../../shared/core/aws-auth/manifest.ts';
import { compareDocument } from '../support/differential-compare.ts';
import { type GoReference, startReference } from '../support/go-reference.ts';
import { NODE_ENTRY } from './bombs.ts';

const LONG = 'a'.repeat(200_000);
const ROLE = 'arn:aws:iam::111122223333:role/prod-node-role';
const DOCS: Record<string, string> = {
  anchor: `- rolearn: &${LONG} ${ROLE}\n  username: system:node:{{EC2PrivateDNSName}}\n  groups:\n  - system:bootstrappers\n  - system:nodes\n`,
  alias: `- rolearn: &${LONG} ${ROLE}\n  username: *${LONG}\n  groups:\n  - system:nodes\n`,
  tag: `- rolearn: !${LONG} ${ROLE}\n  username: x\n  groups:\n  - system:nodes\n`,
  'standard tag': `- rolearn: !!${LONG} ${ROLE}\n  username: x\n  groups:\n  - system:nodes\n`,
  'undefined tag handle': `- rolearn: !${LONG}!x ${ROLE}\n  username: x\n  groups:\n  - system:nodes\n`,
  'long plain scalar': `- rolearn: ${ROLE}\n  username: ${LONG}\n  groups:\n  - system:nodes\n`,
  'long whitespace run': `- rolearn: ${ROLE}\n  username: "a${' '.repeat(200_000)}\n  b"\n  groups:\n  - system:nodes\n`,
};

let ref: GoReference;
beforeAll(() => {
  ref = startReference();
});
afterAll(async () => {
  await ref?.close();
});

describe('200,000-character anchor, tag and scalar names (issue 17)', () => {
  for (const [name, mapRoles] of Object.entries(DOCS)) {
    it(`${name}: read as the Go reference reads it, no stack overflow`, async () => {
      const [go] = await ref.decode([{ id: name, data: { mapRoles } }]);
      if (go === undefined) throw new Error('no answer from the reference');
      const parsed = parseAwsAuth({ mapRoles });
      expect(parsed.issues.map((i) => i.message).join('\n')).not.toMatch(/call stack|internal error/i);
      expect(compareDocument({ mapRoles }, go)).toEqual([]);
    }, 60_000);
  }

  it('a 0.9 MiB aws-auth manifest (one block scalar) reads', () => {
    const body = NODE_ENTRY.repeat(Math.ceil((0.9 * 1024 * 1024) / NODE_ENTRY.length));
    const indented = body
      .split('\n')
      .map((l) => (l === '' ? l : `    ${l}`))
      .join('\n');
    const read = configMapDataFromManifest(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aws-auth\n  namespace: kube-system\ndata:\n  mapRoles: |\n${indented}`,
    );
    expect(read.ok && read.data.mapRoles).toBe(body);
  });
});
