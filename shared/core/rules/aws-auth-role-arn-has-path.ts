import { roleArnHasPath, roleArnWithoutPath } from '../access/principal.ts';
import type { FindingDraft, Rule } from './types.ts';

export const awsAuthRoleArnHasPath: Rule = {
  id: 'aws-auth/role-arn-has-path',
  severity: 'high',
  kinds: ['state'],
  title: 'An aws-auth rolearn includes an IAM path and can never match',
  meaning:
    'The authenticator compares against the role ARN from STS, which carries no path: `role/team/x` never equals `role/x` (aws-iam-authenticator #268).',
  fix: 'Write the role ARN without its path: arn:aws:iam::<account>:role/<name>.',
  evaluate({ current: a }) {
    if (!a.awsAuth || a.mode === 'API') return [];
    const out: FindingDraft[] = [];
    for (const r of a.awsAuth.roles) {
      // A path needs two slashes (`role/path/name`): skip the ARN parse for the usual `role/name`.
      if (!r.rolearn || r.rolearn.indexOf('/') === r.rolearn.lastIndexOf('/')) continue;
      if (!roleArnHasPath(r.rolearn)) continue;
      const fixed = roleArnWithoutPath(r.rolearn);
      out.push({
        severity: 'high',
        subject: r.rolearn,
        title: `aws-auth maps ${r.rolearn} with an IAM path: it never matches`,
        detail: `mapRoles entry ${r.location.index}${r.location.line ? ` (line ${r.location.line})` : ''} grants "${r.username}" ${JSON.stringify(r.groups)} to an ARN no caller presents. Use ${fixed}.`,
        evidence: { rolearn: r.rolearn, location: r.location },
        remediation: {
          summary: `Replace the rolearn with ${fixed}.`,
          awsAuth: { role: { rolearn: fixed, username: r.username, groups: r.groups } },
        },
      });
    }
    return out;
  },
};
