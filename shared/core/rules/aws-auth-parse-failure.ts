import type { AwsAuthIssue } from '../aws-auth/index.ts';
import type { AwsAuthConfigMap, Severity } from '../model.ts';
import { lastWriterOf, writerActor } from './aws-auth-entry-removed.ts';
import type { FindingDraft, Rule } from './types.ts';

const KNOWN_KEYS = ['mapRoles', 'mapUsers', 'mapAccounts'];

function where(i: AwsAuthIssue): string {
  const at = i.line !== undefined ? ` line ${i.line}${i.column !== undefined ? `:${i.column}` : ''}` : '';
  const entry = i.entryIndex !== undefined ? ` entry ${i.entryIndex}` : '';
  return `${i.dataKey}${entry}${at}`;
}

const MAX_LINE_CHARS = 200;

/**
 * The offending line of a key's raw value (1-based), cut at 200 characters; renderers sanitise
 * it. A parser that reports the end of the value (an unclosed quote) points at a blank line or
 * past the end: the last non-blank line before it is the one to show.
 */
function brokenLine(
  raw: string | undefined,
  line: number | undefined,
): { line: number; text: string } | undefined {
  if (raw === undefined || line === undefined || line < 1) return undefined;
  const all = raw.split(/\r\n?|\n/);
  let n = Math.min(line, all.length);
  while (n > 1 && (all[n - 1] ?? '').trim() === '') n -= 1;
  const text = (all[n - 1] ?? '').trimEnd();
  if (text.trim() === '') return undefined;
  return { line: n, text: text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text };
}

/** Keys the authenticator ignores that were obviously meant as one of its keys (`maproles`). */
function isNearMiss(key: string): boolean {
  return KNOWN_KEYS.some((k) => k.toLowerCase() === key.trim().toLowerCase() && k !== key);
}

export const awsAuthParseFailure: Rule = {
  id: 'aws-auth/parse-failure',
  severity: 'critical',
  kinds: ['state'],
  title: 'aws-auth does not parse: mappings are lost',
  meaning:
    'The authenticator parses mapRoles, mapUsers and mapAccounts each on its own and keeps nothing of a key that fails to parse; invalid entries are dropped one by one. One YAML slip in mapRoles unmaps every role, nodes included.',
  fix: 'Fix the YAML at the line given (quote values starting with "{", indent list items consistently) and re-apply; validate with `eks-auth-sentinel assess` before applying.',
  evaluate({ current: a }) {
    if (!a.awsAuth || a.mode === 'API') return [];
    const byKey = new Map<string, AwsAuthIssue[]>();
    for (const issue of a.awsAuth.issues) {
      const relevant =
        issue.kind === 'key-parse-failure' ||
        issue.kind === 'invalid-entry' ||
        issue.kind === 'type-mismatch' ||
        issue.kind === 'unknown-field' ||
        (issue.kind === 'ignored-key' && isNearMiss(issue.dataKey));
      if (!relevant) continue;
      const list = byKey.get(issue.dataKey) ?? [];
      list.push(issue);
      byKey.set(issue.dataKey, list);
    }
    const configMap: AwsAuthConfigMap | undefined =
      a.snapshot.awsAuth.status === 'ok' ? a.snapshot.awsAuth.data : undefined;
    const out: FindingDraft[] = [];
    for (const [dataKey, issues] of [...byKey].sort(([x], [y]) => x.localeCompare(y))) {
      const onlyHints = issues.every((i) => i.kind === 'unknown-field');
      const severity: Severity = onlyHints ? 'medium' : 'critical';
      const failed = issues.find((i) => i.kind === 'key-parse-failure');
      const raw = configMap?.data[dataKey];
      const lines = issues.flatMap((i) => brokenLine(raw, i.line) ?? []);
      const brokenLines = lines.filter((l, n) => lines.findIndex((m) => m.line === l.line) === n);
      const writer = configMap === undefined ? undefined : lastWriterOf(configMap.managedFields, dataKey);
      out.push({
        severity,
        subject: dataKey,
        fingerprintKey: issues.map((i) => `${i.kind}:${i.entryIndex ?? ''}`).join(','),
        title: failed
          ? `aws-auth ${dataKey} does not parse: the authenticator keeps none of its mappings`
          : onlyHints
            ? `aws-auth ${dataKey} has fields the authenticator ignores`
            : `aws-auth ${dataKey}: ${issues.length} problem(s), entries dropped`,
        detail: [
          ...issues.map((i) => `${where(i)}: ${i.message} — lost: ${i.lost}`),
          ...brokenLines.map(
            (l) => `${dataKey} line ${l.line}: ${l.text.trim() === '' ? '(blank)' : l.text}`,
          ),
          ...(writer === undefined
            ? []
            : [
                `Last writer of ${dataKey}: ${writer.manager} (${writer.operation}${writer.time ? `, ${writer.time}` : ''}).`,
              ]),
        ].join('\n'),
        evidence: { dataKey, issues, brokenLines, writer: writer ?? null },
        ...writerActor(writer),
        remediation: {
          summary: failed
            ? `Fix the YAML of ${dataKey} at ${where(failed)}; until then every mapping in ${dataKey} is ignored.`
            : `Correct or remove the entries listed in ${dataKey}.`,
          notes: [
            'Check a change before applying it: eks-auth-sentinel assess --snapshot <file>.',
            'Move node and Fargate roles to access entries so one YAML slip cannot unmap them.',
          ],
        },
      });
    }
    return out;
  },
};
