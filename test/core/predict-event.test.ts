/**
 * `predictEvent` is the event path's whatIf and since-stored diff in one evaluation: its findings
 * are those of `whatIf(before, change)` and `diffSnapshots(stored, now)` computed apart, whether
 * the stored state is reused as the state before (sources unchanged) or evaluated on its own
 * (aws-auth changed, or a CA rotation whose urgency depends on when each state was captured).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { deletionChanges } from '../../shared/core/predict/change.ts';
import { diffSnapshots, predictEvent, whatIf } from '../../shared/core/predict/engine.ts';

const ROOT = join(import.meta.dirname, '..', '..', 'scenarios');
const scenarios = readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ name: f, snapshot: JSON.parse(readFileSync(join(ROOT, f), 'utf8')) as ClusterSnapshot }))
  .filter(({ snapshot }) => typeof snapshot === 'object' && snapshot !== null && 'cluster' in snapshot);

const options = {
  trigger: 'event:DeleteNodegroup' as const,
  monitorPrincipalArn: 'arn:aws:iam::111122223333:role/monitor',
};

/** The fresh state as `refreshVolatile` makes it: the stored sources kept, captured later. */
function refreshed(stored: ClusterSnapshot, capturedAt: string, edit?: (s: ClusterSnapshot) => void) {
  const before: ClusterSnapshot = { ...stored, capturedAt, cluster: { ...stored.cluster } };
  edit?.(before);
  return before;
}

/** Drops the first mapRoles entry: EKS's side effect seen before the event was handled. */
function withoutFirstMapping(s: ClusterSnapshot) {
  if (s.awsAuth.status !== 'ok' || s.awsAuth.data.data.mapRoles === undefined) return;
  const [, ...rest] = s.awsAuth.data.data.mapRoles.split(/\n(?=- )/);
  s.awsAuth = {
    status: 'ok',
    data: { ...s.awsAuth.data, data: { ...s.awsAuth.data.data, mapRoles: rest.join('\n') } },
  };
}

function apart(stored: ClusterSnapshot, before: ClusterSnapshot, change: Parameters<typeof whatIf>[1]) {
  const prediction = whatIf(before, change, options);
  const now = { ...before, nodegroups: prediction.after.nodegroups, compute: prediction.after.compute };
  return { findings: prediction.findings, already: diffSnapshots(stored, now, options) };
}

describe('predictEvent', () => {
  const cases = scenarios.flatMap(({ name, snapshot }) =>
    deletionChanges(snapshot).map((change) => ({ name, snapshot, change })),
  );

  it('has deletions to predict', () => {
    expect(cases.length).toBeGreaterThan(10);
  });

  for (const later of ['2026-11-20T10:00:00Z', '2027-06-01T00:00:00Z']) {
    it.each(cases)(
      `equals whatIf and the since-stored diff apart: $name, $change.kind (captured ${later})`,
      ({ snapshot, change }) => {
        for (const edit of [undefined, withoutFirstMapping]) {
          const stored = structuredClone(snapshot);
          const before = refreshed(stored, later, edit);
          const together = predictEvent(stored, before, change, options);
          const expected = apart(stored, before, change);
          expect(together.findings).toEqual(expected.findings);
          expect(together.already).toEqual(expected.already);
        }
      },
    );
  }

  it('only the CA rotation rule reads when a state was captured (the reuse of the stored state relies on it)', () => {
    const rules = join(import.meta.dirname, '..', '..', 'shared', 'core', 'rules');
    const readers = readdirSync(rules)
      .filter((f) => f.endsWith('.ts') && readFileSync(join(rules, f), 'utf8').includes('capturedAt'))
      .sort();
    expect(readers).toEqual(['cluster-ca-rotation-unmanaged-nodes.ts']);
  });

  it('without a stored snapshot there is nothing already changed', () => {
    const [first] = cases;
    if (first === undefined) throw new Error('no case');
    const result = predictEvent(undefined, first.snapshot, first.change, options);
    expect(result.already).toEqual([]);
    expect(result.findings).toEqual(whatIf(first.snapshot, first.change, options).findings);
  });
});
