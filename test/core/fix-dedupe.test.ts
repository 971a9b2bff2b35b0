/**
 * One report prints each AWS CLI command once (issue 17): a later finding's copy of a command
 * becomes a comment naming the first finding, and a fix made only of earlier commands says
 * "same fix as …". Read in report order, through the rendered text a user pastes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dedupeFixCommands } from '../../shared/core/fixes/dedupe.ts';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { runWithStubs } from '../hostile/shell-stub.ts';
import { REPO_ROOT } from '../support/fake-io.ts';

const scenario = (name: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'scenarios', `${name}.json`), 'utf8')) as ClusterSnapshot;

describe('dedupeFixCommands', () => {
  it.each(['b-fargate-entry-removed-by-terraform', 'c-yaml-slip-in-maproles'])(
    '%s: the mode switch runs once; the low finding says "same fix as" the critical one',
    (name) => {
      const raw = assessSnapshot(scenario(name));
      const findings = dedupeFixCommands(raw);
      const all = findings.flatMap((f) => runWithStubs('bash', f.remediation?.awsCli ?? '').calls);
      const keys = all.map((c) => JSON.stringify(c));
      expect(new Set(keys).size).toBe(keys.length);
      expect(all.filter((c) => c[2] === 'update-cluster-config')).toHaveLength(1);
      const low = findings.find((f) => f.ruleId === 'cluster/configmap-only-mode');
      expect(low?.remediation?.awsCli).toMatch(/^# same fix as (nodes|fargate)\/[a-z-]+ for arn:aws:iam::/);
      // the raw findings are untouched
      expect(raw.find((f) => f.ruleId === 'cluster/configmap-only-mode')?.remediation?.awsCli).toContain(
        'update-cluster-config',
      );
    },
  );

  it('keeps a hostile subject inside one comment line', () => {
    const s = scenario('c-yaml-slip-in-maproles');
    const findings = assessSnapshot(s).map((f) =>
      f.ruleId === 'nodes/role-unauthorized' ? { ...f, subject: 'x\n$(touch pwned)\u202e' } : f,
    );
    const low = dedupeFixCommands(findings).find((f) => f.ruleId === 'cluster/configmap-only-mode');
    const text = low?.remediation?.awsCli ?? '';
    expect(text.split('\n').every((l) => l.startsWith('#'))).toBe(true);
    expect(runWithStubs('bash', text).calls).toEqual([]);
  });
});
