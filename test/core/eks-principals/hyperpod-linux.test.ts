/**
 * `HYPERPOD_LINUX` is an access-entry type (docs/eks-auth-semantics.md#access-entry-types): every place that
 * validates types accepts it, and it is node-like — a role of the cluster's account only, no
 * groups or username — yet never "orphaned", since HyperPod's instances are not in the inventory.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { accessEntryUsername } from '../../../shared/core/access/resolve.ts';
import { parseEksEvent } from '../../../shared/core/events/cloudtrail.ts';
import { assessSnapshot } from '../../../shared/core/predict/engine.ts';
import { validateSnapshot } from '../../../shared/core/snapshot/snapshot-schema.ts';
import { ACCOUNT, buildSnapshot, ec2Entry } from '../../support/snapshot-builder.ts';

const HYPERPOD_ROLE = `arn:aws:iam::${ACCOUNT}:role/hyperpod-execution`;
const hyperpodEntry = () => ec2Entry(HYPERPOD_ROLE, { type: 'HYPERPOD_LINUX' });

describe('HYPERPOD_LINUX access entries', () => {
  it('validate in a snapshot', () => {
    const s = buildSnapshot({ mode: 'API', entries: [ec2Entry(), hyperpodEntry()] });
    const result = validateSnapshot(JSON.parse(JSON.stringify(s)));
    expect(result.ok).toBe(true);
  });

  it('are parsed from a CloudTrail CreateAccessEntry, in any case', () => {
    const event = JSON.parse(
      readFileSync(
        new URL('../../fixtures/cloudtrail/create-access-entry-ec2-linux.json', import.meta.url),
        'utf8',
      ),
    );
    event.detail.requestParameters = { name: 'prod', principalArn: HYPERPOD_ROLE, type: 'HyperPod_Linux' };
    event.detail.responseElements = null;
    const parsed = parseEksEvent(event);
    expect(parsed.kind === 'change' && parsed.change).toEqual({
      kind: 'create-access-entry',
      entry: {
        principalArn: HYPERPOD_ROLE,
        type: 'HYPERPOD_LINUX',
        kubernetesGroups: [],
        accessPolicies: [],
      },
    });
  });

  it('resolve to a node username, like the other session-named node types', () => {
    expect(accessEntryUsername(hyperpodEntry())).toBe('system:node:{{SessionName}}');
  });

  it('are never reported orphaned: HyperPod instances are not in the inventory', () => {
    const withHyperpod = assessSnapshot(
      buildSnapshot({ mode: 'API', entries: [ec2Entry(), hyperpodEntry()] }),
    );
    expect(withHyperpod.filter((f) => f.subject === HYPERPOD_ROLE)).toEqual([]);
    // an EC2_LINUX entry of the same unused role still is
    const unused = assessSnapshot(
      buildSnapshot({ mode: 'API', entries: [ec2Entry(), ec2Entry(HYPERPOD_ROLE)] }),
    );
    expect(unused.filter((f) => f.subject === HYPERPOD_ROLE).map((f) => f.ruleId)).toEqual([
      'access-entry/orphaned',
    ]);
  });
});
