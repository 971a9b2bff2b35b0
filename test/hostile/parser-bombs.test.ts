/**
 * Issue 8, cases 2 and 3: the parser cannot be stalled and does not give a false "all clear".
 * An alias bomb, depth bombs (flow and block), multi-document aws-auth, a 1 MiB ConfigMap of
 * realistic entries and control/bidi characters go into `awsAuth.data.mapRoles` of a scenario with
 * nodes, then through `assess` and `whatif --auth-mode API` in every format. Each run must end
 * with exit 0 or 1 (never a crash), and every input the authenticator would drop must yield a
 * finding. No timing is asserted (speed lives in `npm run bench -- parser-bombs`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGolden } from '../../scripts/gen-cli-golden.ts';
import { issueCount, parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { planMigration } from '../../shared/core/migrate/migration-plan.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import {
  billionLaughs,
  blockNest,
  flatAliases,
  flowNest,
  NODE_ENTRY,
  NODE_ROLE,
  realistic,
  scenarioWithMapRoles,
} from './bombs.ts';

const dir = mkdtempSync(join(tmpdir(), 'hostile-bombs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The node-role scenario with `mapRoles` replaced; written to a file for the CLI. */
function scenarioWith(name: string, mapRoles: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(scenarioWithMapRoles(mapRoles)));
  return path;
}

type Finding = { ruleId: string; severity?: string; title?: string; message?: string };

/** `assess` and `whatif --auth-mode API` in json, text and markdown; the rule ids of each JSON run. */
async function runEverywhere(file: string): Promise<{ assess: Finding[]; whatif: Finding[] }> {
  const result: Record<string, Finding[]> = {};
  for (const [label, argv] of [
    ['assess', ['assess', '--snapshot', file]],
    ['whatif', ['whatif', '--snapshot', file, '--auth-mode', 'API']],
  ] as const) {
    for (const format of ['json', 'text', 'markdown']) {
      const out = await runGolden([...argv, '--format', format]);
      expect({ format, argv, code: [0, 1].includes(out.code), stderr: out.stderr }).toEqual({
        format,
        argv,
        code: true,
        stderr: '',
      });
      expect(out.stdout.length).toBeGreaterThan(0);
      if (format === 'json') result[label] = (JSON.parse(out.stdout) as { findings: Finding[] }).findings;
    }
  }
  return { assess: result.assess ?? [], whatif: result.whatif ?? [] };
}

const ids = (fs: Finding[]) => [...new Set(fs.map((f) => f.ruleId))].sort();

describe('parser bombs through the CLI (issue 8, case 2)', () => {
  it.each([20_000, 40_000])(
    'an alias bomb of %i aliases completes; the node role is gone and a finding says so',
    async (n) => {
      const { assess } = await runEverywhere(scenarioWith(`alias-${n}`, flatAliases(n)));
      expect(ids(assess)).toContain('nodes/role-unauthorized');
      // The parse-failure finding counts every dropped entry but lists only a few.
      const failure = assess.find((f) => f.ruleId === 'aws-auth/parse-failure');
      expect(failure?.title).toContain(`${2 * (n + 1)} problem(s)`);
    },
  );

  it('an alias bomb gives one issue per cause, with the same finding as the list written out', () => {
    const n = 5_000;
    const aliased = flatAliases(n);
    const written = `- x\n${'- x\n'.repeat(n)}`;
    const parsed = parseAwsAuth({ mapRoles: aliased });
    // The anchor's own entry, then one issue per cause for the n aliases of the same node.
    expect(parsed.issues.map((i) => [i.kind, i.entryIndex, i.line, i.repeats?.length])).toEqual([
      ['type-mismatch', 0, 1, undefined],
      ['invalid-entry', 0, 1, undefined],
      ['type-mismatch', 1, 1, n - 1],
      ['invalid-entry', 1, 1, n - 1],
    ]);
    expect(parsed.issues[2]?.repeats?.slice(0, 3)).toEqual([2, 3, 4]);
    const expanded = parseAwsAuth({ mapRoles: written });
    expect(expanded.issues.length).toBe(2 * (n + 1));
    expect(parsed.issues.reduce((t, i) => t + issueCount(i), 0)).toBe(expanded.issues.length);
    const finding = (text: string) =>
      assessSnapshot(scenarioWithMapRoles(text)).find((f) => f.ruleId === 'aws-auth/parse-failure');
    const [a, w] = [finding(aliased), finding(written)];
    expect(a?.title).toBe(w?.title);
    expect(a?.severity).toBe(w?.severity);
    expect(a?.fingerprint).toBe(w?.fingerprint);
    expect(a?.detail).toContain(`the same problem at ${n - 1} more entries, aliases of the same YAML node`);
    // The migration plan blocks on the dropped entries once per cause, naming the aliases.
    const blockers = planMigration(scenarioWithMapRoles(aliased)).blockers.filter((b) =>
      b.subject.startsWith('mapRoles['),
    );
    expect(blockers.map((b) => b.subject)).toEqual(['mapRoles[0]', 'mapRoles[1]']);
    expect(blockers[1]?.reason).toContain(`and the same problem at ${n - 1} more entries`);
    // A mapping anchor: every alias is a role the authenticator keeps, each with its own index.
    const roles = parseAwsAuth({
      mapRoles: `- &a {rolearn: arn:aws:iam::1:role/r, username: u}\n${'- *a\n'.repeat(n)}`,
    }).roles;
    expect(roles.map((r) => r.location.index)).toEqual(Array.from({ length: n + 1 }, (_, i) => i));
  });

  it('a billion-laughs bomb fails the key (go-yaml alias ratio): a parse-failure finding', async () => {
    expect(parseAwsAuth({ mapRoles: billionLaughs() }).keyStatus.mapRoles).toBe('failed');
    const { assess } = await runEverywhere(scenarioWith('laughs', billionLaughs()));
    expect(ids(assess)).toContain('aws-auth/parse-failure');
  });

  it.each([1_000, 10_000, 100_000])(
    'flow and block depth bombs of %i levels end in a finding, not a stack overflow',
    async (n) => {
      for (const [form, text] of [
        ['flow', flowNest(n)],
        ['block', blockNest(Math.min(n, 2_000))],
      ] as const) {
        const parsed = parseAwsAuth({ mapRoles: text });
        expect(parsed.roles).toEqual([]);
        const { assess } = await runEverywhere(scenarioWith(`${form}-${n}`, text));
        // go-yaml fails the key past its depth limit; below it the key holds no entry.
        expect(ids(assess), `${form} ${n}`).toContain(
          parsed.keyStatus.mapRoles === 'failed' ? 'aws-auth/parse-failure' : 'nodes/role-unauthorized',
        );
      }
    },
  );

  it('a 1 MiB ConfigMap of realistic entries keeps every entry and reports nothing lost', async () => {
    const text = realistic(1 << 20);
    const parsed = parseAwsAuth({ mapRoles: text });
    expect(parsed.keyStatus.mapRoles).toBe('ok');
    expect(parsed.roles.length).toBe((text.match(/rolearn:/g) ?? []).length);
    const { assess } = await runEverywhere(scenarioWith('mib', text));
    expect(ids(assess)).not.toContain('nodes/role-unauthorized');
  });
});

describe('multi-document aws-auth (issue 8, case 3)', () => {
  const ignoredIssue = (text: string) =>
    parseAwsAuth({ mapRoles: text }).issues.filter((i) => i.kind === 'ignored-after-first-document');

  it('a leading empty document hides the entries from the authenticator: the node role is unauthorized', async () => {
    const text = `---\n...\n---\n${NODE_ENTRY}`;
    expect(parseAwsAuth({ mapRoles: text }).roles).toEqual([]);
    expect(ignoredIssue(text).map((i) => i.line)).toEqual([3]);
    const { assess } = await runEverywhere(scenarioWith('leading-doc', text));
    expect(ids(assess)).toContain('nodes/role-unauthorized');
    expect(ids(assess)).toContain('aws-auth/parse-failure');
  });

  it('mappings in a second document do not exist for EKS: the node role is unauthorized', async () => {
    const text = `[]\n---\n${NODE_ENTRY}`;
    expect(parseAwsAuth({ mapRoles: text }).roles).toEqual([]);
    const [issue] = ignoredIssue(text);
    expect(issue?.line).toBe(2);
    expect(issue?.lost).toContain(NODE_ROLE);
    expect(issue?.lost).toContain('node roles that the first document does not map');
    const { assess } = await runEverywhere(scenarioWith('second-doc', text));
    expect(ids(assess)).toContain('nodes/role-unauthorized');
    const failure = assess.find((f) => f.ruleId === 'aws-auth/parse-failure');
    expect(failure).toMatchObject({ severity: 'critical' });
  });

  it('entries after the first document are reported with their line; the first document keeps its status and mappings', async () => {
    const dev = '- rolearn: arn:aws:iam::111122223333:role/dev\n  username: dev\n  groups: [devs]\n';
    const text = `${NODE_ENTRY}---\n${dev}---\n${dev}`;
    const parsed = parseAwsAuth({ mapRoles: text });
    const firstOnly = parseAwsAuth({ mapRoles: NODE_ENTRY });
    expect({ status: parsed.keyStatus, roles: parsed.roles }).toEqual({
      status: firstOnly.keyStatus,
      roles: firstOnly.roles,
    });
    const [issue] = ignoredIssue(text);
    expect(issue).toMatchObject({ line: 6, column: 1 });
    expect(issue?.message).toContain('2 documents with content follow it');
    expect(issue?.lost).toContain('arn:aws:iam::111122223333:role/dev');
    const { assess } = await runEverywhere(scenarioWith('third-doc', text));
    const failure = assess.find((f) => f.ruleId === 'aws-auth/parse-failure');
    expect(failure?.title).toBe(
      'aws-auth mapRoles: content after the first YAML document is ignored by the authenticator',
    );
    expect(ids(assess)).not.toContain('nodes/role-unauthorized');
  });

  it('only comments or a bare marker after the document ignore nothing; content that maps nothing is a medium hint', () => {
    for (const tail of ['---\n', '---\n# end\n\n', '...\n'])
      expect(ignoredIssue(`${NODE_ENTRY}${tail}`)).toEqual([]);
    expect(ignoredIssue(`---\n${NODE_ENTRY}...\n`)).toEqual([]);
    const [hint] = ignoredIssue(`${NODE_ENTRY}---\nfoo: bar\n`);
    expect(hint?.lost).toMatch(/^nothing the authenticator would map/);
  });
});

describe('control and bidi characters in aws-auth (issue 8, case 10)', () => {
  it('usernames and groups with C0 controls, U+202E and zero-width characters complete everywhere', async () => {
    const text = `${NODE_ENTRY}- rolearn: arn:aws:iam::111122223333:role/developers\n  username: "dev\\u202Egnp.exe\\u0007\\u200B"\n  groups:\n  - "dev\\u0000team\\u001B[31m"\n`;
    const parsed = parseAwsAuth({ mapRoles: text });
    expect(parsed.roles.map((r) => r.username)).toContain('dev\u202Egnp.exe\u0007\u200B');
    const { assess, whatif } = await runEverywhere(scenarioWith('bidi', text));
    expect(ids(assess)).not.toContain('nodes/role-unauthorized');
    expect(whatif.length).toBeGreaterThan(0);
  });
});
