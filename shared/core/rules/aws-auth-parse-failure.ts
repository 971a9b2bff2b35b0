import type { AwsAuthIssue } from '../aws-auth/index.ts';
import type { Severity } from '../model.ts';
import type { FindingDraft, Rule } from './types.ts';

const KNOWN_KEYS = ['mapRoles', 'mapUsers', 'mapAccounts'];

function where(i: AwsAuthIssue): string {
  const at = i.line !== undefined ? ` line ${i.line}${i.column !== undefined ? `:${i.column}` : ''}` : '';
  const entry = i.entryIndex !== undefined ? ` entry ${i.entryIndex}` : '';
  return `${i.dataKey}${entry}${at}`;
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
    const out: FindingDraft[] = [];
    for (const [dataKey, issues] of [...byKey].sort(([x], [y]) => x.localeCompare(y))) {
      const onlyHints = issues.every((i) => i.kind === 'unknown-field');
      const severity: Severity = onlyHints ? 'medium' : 'critical';
      const failed = issues.find((i) => i.kind === 'key-parse-failure');
      out.push({
        severity,
        subject: dataKey,
        fingerprintKey: issues.map((i) => `${i.kind}:${i.entryIndex ?? ''}`).join(','),
        title: failed
          ? `aws-auth ${dataKey} does not parse: the authenticator keeps none of its mappings`
          : onlyHints
            ? `aws-auth ${dataKey} has fields the authenticator ignores`
            : `aws-auth ${dataKey}: ${issues.length} problem(s), entries dropped`,
        detail: issues.map((i) => `${where(i)}: ${i.message} — lost: ${i.lost}`).join('\n'),
        evidence: { dataKey, issues },
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
