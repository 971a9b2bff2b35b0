import { describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/core/model.ts';
import {
  renderFindings,
  renderJson,
  renderMarkdown,
  renderText,
  sortFindings,
  toJsonReport,
} from '../../shared/core/render/index.ts';
import {
  codeBlocksOf,
  createBlastRadius,
  createFinding,
  createRemediation,
  hasOpenFence,
  TEST_CLUSTER,
} from '../support/findings.ts';

const FORMATS = ['text', 'markdown'] as const;

function mixedFindings(): Finding[] {
  return [
    createFinding({ severity: 'low', ruleId: 'access-entry/orphaned', subject: 'arn:aws:iam::1:role/z' }),
    createFinding({
      severity: 'critical',
      ruleId: 'nodes/role-unauthorized',
      subject: 'arn:aws:iam::1:role/b',
    }),
    createFinding({
      severity: 'high',
      ruleId: 'aws-auth/role-arn-has-path',
      subject: 'arn:aws:iam::1:role/a',
    }),
    createFinding({ severity: 'critical', ruleId: 'aws-auth/parse-failure', subject: 'mapRoles' }),
    createFinding({
      severity: 'critical',
      ruleId: 'nodes/role-unauthorized',
      subject: 'arn:aws:iam::1:role/a',
    }),
  ];
}

const EXPECTED_ORDER = [
  'aws-auth/parse-failure mapRoles',
  'nodes/role-unauthorized arn:aws:iam::1:role/a',
  'nodes/role-unauthorized arn:aws:iam::1:role/b',
  'aws-auth/role-arn-has-path arn:aws:iam::1:role/a',
  'access-entry/orphaned arn:aws:iam::1:role/z',
];

describe('sortFindings', () => {
  it('orders by severity, then rule ID, then subject', () => {
    const sorted = sortFindings(mixedFindings()).map((f) => `${f.ruleId} ${f.subject}`);
    expect(sorted).toEqual(EXPECTED_ORDER);
  });

  it('does not depend on the input order', () => {
    const findings = mixedFindings();
    expect(sortFindings([...findings].reverse())).toEqual(sortFindings(findings));
  });
});

describe('renderText and renderMarkdown', () => {
  it.each(FORMATS)('%s prints findings most severe first', (format) => {
    const findings = mixedFindings().map((f) => ({ ...f, title: `title of ${f.ruleId} on ${f.subject}` }));
    const out = renderFindings(format, findings);
    const at = EXPECTED_ORDER.map((key) => out.indexOf(`title of ${key.replace(' ', ' on ')}`));
    expect(at.every((p) => p >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it.each(FORMATS)('%s shows every part of a finding', (format) => {
    const out = renderFindings(format, [createFinding()]);
    for (const part of [
      'CRITICAL',
      'nodegroup/deletion-orphans-role',
      'Deleting node group general removes a role Karpenter nodes still need',
      'prod',
      '111122223333',
      'eu-west-1',
      'arn:aws:iam::111122223333:role/KarpenterNodeRole-prod',
      'general',
      'ip-10-0-1-17.eu-west-1.compute.internal',
      '(+10 more)',
      'new nodes at once; running nodes NotReady within minutes',
      'whatif',
    ]) {
      expect(out).toContain(part);
    }
    expect(out).toMatch(/Create an EC2.LINUX access entry/);
  });

  it.each(FORMATS)('%s prints the AWS CLI, Terraform and YAML fixes as exact code blocks', (format) => {
    const long = `aws eks create-access-entry --cluster-name prod ${'--tags k=v '.repeat(30)}--type EC2_LINUX`;
    const remediation = createRemediation({ awsCli: long });
    const out = renderFindings(format, [createFinding({ remediation })]);
    expect(codeBlocksOf(out)).toEqual([long, remediation.terraform, remediation.awsAuthYaml]);
    expect(hasOpenFence(out)).toBe(false);
  });

  it.each(FORMATS)('%s lengthens the fence when the code itself holds backticks', (format) => {
    const awsCli = 'echo ```\n```\necho `date`';
    const out = renderFindings(format, [createFinding({ remediation: createRemediation({ awsCli }) })]);
    if (format === 'markdown') expect(out).toContain('````sh\n');
    else expect(out).not.toMatch(/^`{3,}sh$/m);
    expect(codeBlocksOf(out)[0]).toBe(awsCli);
    expect(hasOpenFence(out)).toBe(false);
  });

  it.each(FORMATS)('%s keeps prose that looks like a fence from opening a code block', (format) => {
    const out = renderFindings(format, [
      createFinding({ detail: 'before\n```\nafter', title: '``` title', remediation: undefined }),
    ]);
    expect(codeBlocksOf(out)).toEqual([]);
    expect(hasOpenFence(out)).toBe(false);
  });

  it.each(FORMATS)('%s says plainly there are no findings, naming the cluster', (format) => {
    const out = renderFindings(format, [], { cluster: TEST_CLUSTER });
    expect(out).toContain('No findings for cluster');
    expect(out).toMatch(/prod.*111122223333.*eu-west-1/);
  });

  it.each(FORMATS)(
    '%s keeps the most severe findings whole and counts the rest when over maxChars',
    (format) => {
      const criticals = [1, 2, 3].map((i) =>
        createFinding({ severity: 'critical', subject: `arn:aws:iam::1:role/critical-${i}` }),
      );
      const rest = [
        ...Array.from({ length: 40 }, (_, i) =>
          createFinding({ severity: 'low', ruleId: 'access-entry/orphaned', subject: `low-${i}` }),
        ),
        ...Array.from({ length: 7 }, (_, i) =>
          createFinding({ severity: 'high', ruleId: 'aws-auth/role-arn-has-path', subject: `high-${i}` }),
        ),
      ];
      const oneCritical = renderFindings(format, criticals.slice(0, 1)).length;
      const maxChars = oneCritical * 3 + 400;
      const out = renderFindings(format, [...rest, ...criticals], { maxChars });

      expect(out.length).toBeLessThanOrEqual(maxChars);
      for (const c of criticals) expect(out).toContain(c.subject);
      // Every shown finding is whole: one code-block triple per shown finding, none cut.
      const shown = criticals.length + rest.filter((f) => out.includes(f.subject)).length;
      expect(codeBlocksOf(out)).toHaveLength(shown * 3);
      expect(hasOpenFence(out)).toBe(false);
      const notShown = criticals.length + rest.length - shown;
      expect(out.trimEnd().split('\n').at(-1)).toMatch(
        new RegExp(`^… ${notShown} more findings \\((\\d+ high, )?\\d+ low\\) not shown$`),
      );
    },
  );

  it.each(FORMATS)('%s counts omitted findings by severity', (format) => {
    const findings = [
      createFinding({ severity: 'critical', subject: 'c1' }),
      createFinding({ severity: 'critical', subject: 'c2' }),
      createFinding({ severity: 'high', subject: 'h1' }),
    ];
    const head = renderFindings(format, [], { maxChars: 10_000 }).length;
    const out = renderFindings(format, findings, { maxChars: head + 200 });
    expect(out).toContain('… 3 more findings (2 critical, 1 high) not shown');
    expect(out.length).toBeLessThanOrEqual(head + 200);
  });

  it.each(FORMATS)('%s never exceeds a very small maxChars', (format) => {
    for (const maxChars of [0, 1, 10, 50]) {
      expect(renderFindings(format, mixedFindings(), { maxChars }).length).toBeLessThanOrEqual(maxChars);
    }
  });

  it.each(FORMATS)('%s prints the simulated effects above the findings, marking assumed ones', (format) => {
    const out = renderFindings(format, [createFinding()], {
      change: 'delete node group general',
      effects: [
        { summary: 'EKS removes the node role from aws-auth', assumed: false },
        { summary: 'Karpenter keeps using the role', assumed: true },
      ],
    });
    expect(out).toContain('delete node group general');
    expect(out.indexOf('EKS removes the node role from aws-auth')).toBeLessThan(out.indexOf('CRITICAL'));
    expect(out).toMatch(/Karpenter keeps using the role _?\(assumed\)/);
    expect(out).not.toMatch(/from aws-auth _?\(assumed\)/);
  });

  it.each(FORMATS)('%s prints one line per finding in compact mode', (format) => {
    const out = renderFindings(format, mixedFindings(), { compact: true });
    expect(codeBlocksOf(out)).toEqual([]);
    expect(out).toContain('aws-auth/parse-failure');
    expect(out).not.toContain('Blast radius');
  });

  it.each(FORMATS)('%s strips terminal control characters from snapshot data', (format) => {
    const out = renderFindings(format, [createFinding({ subject: 'evil\u001b]0;pwned\u0007-role' })]);
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u0007');
  });
});

describe('renderText', () => {
  it('wraps prose at 80 columns and never wraps code', () => {
    const detail = 'word '.repeat(200);
    const awsCli = `aws eks describe-cluster --name ${'x'.repeat(150)}`;
    const out = renderText([createFinding({ detail, remediation: createRemediation({ awsCli }) })]);
    const proseLines = out.split('\n').filter((l) => l.includes('word'));
    expect(proseLines.length).toBeGreaterThan(5);
    for (const line of proseLines) expect(line.length).toBeLessThanOrEqual(80);
    expect(out).toContain(`\n${awsCli}\n`);
  });

  it('colours severities only when asked', () => {
    expect(renderText([createFinding()], { color: true })).toContain('\u001b[');
    expect(renderText([createFinding()], { color: false })).not.toContain('\u001b[');
  });

  it('keeps code blocks free of colour', () => {
    const out = renderText([createFinding()], { color: true });
    for (const block of codeBlocksOf(out)) expect(block).not.toContain('\u001b');
  });

  it('omits the blast radius and fix sections when the finding has none', () => {
    const f = createFinding();
    delete f.blastRadius;
    delete f.remediation;
    const out = renderText([f]);
    expect(out).not.toContain('Blast radius');
    expect(out).not.toContain('Fix');
  });
});

describe('renderMarkdown', () => {
  it('escapes Markdown in prose so snapshot text cannot format the page', () => {
    const out = renderMarkdown([
      createFinding({ title: '<script>*bold*</script> | x', detail: '# not a heading' }),
    ]);
    expect(out).toContain('\\<script\\>\\*bold\\*\\</script\\> \\| x');
    expect(out).toContain('\\# not a heading');
  });

  it('keeps prose lines from starting a list, escaping only the marker', () => {
    const out = renderMarkdown([
      createFinding({ detail: '1. first\n- second\n+ third', remediation: undefined }),
    ]);
    expect(out).toContain('1\\. first\n\\- second\n\\+ third');
  });

  it('puts identifiers containing backticks into inline code that still closes', () => {
    const out = renderMarkdown([createFinding({ subject: 'odd`name' })]);
    expect(out).toContain('``odd`name``');
  });

  it('uses a level-two heading with the title', () => {
    expect(renderMarkdown([], { title: 'Nightly check' }).startsWith('## Nightly check')).toBe(true);
  });
});

describe('renderJson', () => {
  it('prints pretty JSON that parses, findings most severe first', () => {
    const parsed = JSON.parse(renderJson(mixedFindings())) as {
      findings: Array<{ ruleId: string; subject: string }>;
    };
    expect(parsed.findings.map((f) => `${f.ruleId} ${f.subject}`)).toEqual(EXPECTED_ORDER);
    expect(renderJson(mixedFindings())).toContain('\n  "findings": [\n');
  });

  it('uses a stable key order, whatever the order of keys in the input', () => {
    const a = createFinding({ evidence: { b: 1, a: { y: 2, x: 1 } }, fingerprint: 'same' });
    const b: Finding = {
      fingerprint: 'same',
      trigger: a.trigger,
      evidence: { a: { x: 1, y: 2 }, b: 1 },
      detail: a.detail,
      title: a.title,
      subject: a.subject,
      cluster: { name: 'prod', region: 'eu-west-1', accountId: '111122223333' },
      severity: a.severity,
      ruleId: a.ruleId,
      blastRadius: createBlastRadius(),
      remediation: createRemediation(),
    };
    expect(renderJson([b])).toBe(renderJson([a]));
    const keys = Object.keys((JSON.parse(renderJson([a])) as { findings: object[] }).findings[0] ?? {});
    expect(keys).toEqual([
      'ruleId',
      'severity',
      'title',
      'cluster',
      'subject',
      'detail',
      'blastRadius',
      'remediation',
      'trigger',
      'fingerprint',
      'evidence',
    ]);
  });

  it('summarises counts by severity and includes the cluster and effects when given', () => {
    const report = toJsonReport(mixedFindings(), {
      cluster: TEST_CLUSTER,
      change: 'delete node group general',
      effects: [{ summary: 'EKS removes the role', assumed: true }],
    });
    expect(report.summary).toEqual({
      total: 5,
      bySeverity: { critical: 3, high: 1, medium: 0, low: 1, info: 0 },
    });
    expect(report.cluster).toEqual(TEST_CLUSTER);
    expect(report.effects).toEqual([{ summary: 'EKS removes the role', assumed: true }]);
  });

  it('keeps the most severe findings within maxChars and counts the omitted ones', () => {
    const findings = mixedFindings();
    const maxChars = 6000;
    const out = renderJson(findings, { maxChars });
    const parsed = JSON.parse(out) as { findings: Array<{ severity: string }>; omitted?: { count: number } };
    expect(out.length).toBeLessThanOrEqual(maxChars);
    expect(parsed.findings.length).toBeGreaterThan(0);
    expect(parsed.findings.length + (parsed.omitted?.count ?? 0)).toBe(5);
    expect(parsed.findings.every((f) => f.severity === 'critical')).toBe(true);
  });

  it('survives evidence that plain JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = { n: 10n, nan: Number.NaN, f: () => 1 };
    cyclic.self = cyclic;
    const parsed = JSON.parse(renderJson([createFinding({ evidence: cyclic })])) as {
      findings: Array<{ evidence: unknown }>;
    };
    expect(parsed.findings[0]?.evidence).toEqual({ n: '10', nan: null, self: '[circular]' });
  });

  it('reports an empty result as zero findings', () => {
    const parsed = JSON.parse(renderJson([], { cluster: TEST_CLUSTER })) as { summary: { total: number } };
    expect(parsed.summary.total).toBe(0);
  });
});

describe('what-if summary with plan values unknown until apply', () => {
  const unknown = {
    summary: 'module.x.aws_iam_role.irsa: UNKNOWN until apply — assume_role_policy known only after apply',
    assumed: false,
    unknown: true as const,
  };

  it.each(FORMATS)('%s never says a bare "No findings" above UNKNOWN changes', (format) => {
    const out = renderFindings(format, [], {
      cluster: TEST_CLUSTER,
      change: 'plan.json',
      effects: [unknown],
    });
    expect(out).toMatch(
      /No findings from the known values for cluster .*prod.* — 1 change UNKNOWN until apply, listed below/,
    );
    expect(out).not.toMatch(/No findings for cluster/);
    expect(out.indexOf('from the known values')).toBeLessThan(out.indexOf('module.x.aws_iam_role.irsa'));
  });

  it.each(FORMATS)('%s counts the unknowns next to the findings there are', (format) => {
    const out = renderFindings(format, [createFinding({ severity: 'high' })], {
      change: 'plan.json',
      effects: [unknown, { ...unknown, summary: 'module.y: UNKNOWN until apply — z' }],
    });
    expect(out).toContain('1 finding (1 high) from the known values — 2 changes UNKNOWN until apply');
  });

  it.each(FORMATS)('%s keeps the plain summary when every value is known', (format) => {
    const out = renderFindings(format, [], {
      cluster: TEST_CLUSTER,
      change: 'plan.json',
      effects: [{ summary: 'EKS drains the node group', assumed: false }],
    });
    expect(out).toMatch(/No findings for cluster/);
    expect(out).not.toContain('known values');
  });
});
