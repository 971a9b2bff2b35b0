import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  awsAuthFastPathAccepts,
  configMapDataFromManifest,
  encodeAwsAuth,
  parseAwsAuth,
  parseAwsAuthSlow,
} from '../../shared/core/aws-auth/index.ts';

/** Both paths on `mapRoles` (and the same text as `mapUsers`): the results must be identical. */
function expectSameAsSlow(text: string): void {
  for (const key of ['mapRoles', 'mapUsers'] as const) {
    const data = { [key]: text };
    expect(parseAwsAuth(data)).toStrictEqual(parseAwsAuthSlow(data));
  }
}

const NODE = 'arn:aws:iam::111122223333:role/node';
const ADMIN = 'arn:aws:iam::111122223333:role/admin';

const BRIEF_EXAMPLE = `- rolearn: ${NODE}
  username: system:node:{{EC2PrivateDNSName}}
  groups:
    - system:bootstrappers
    - system:nodes
- groups:
  - system:masters
  rolearn: ${ADMIN}
  username: "admin"
`;

describe('aws-auth fast path: inputs inside the subset', () => {
  const inside: Array<[string, string]> = [
    ['groups indented under the key and at the key', BRIEF_EXAMPLE],
    [
      'encoder output',
      encodeAwsAuth({
        roles: [
          { rolearn: NODE, username: 'system:node:{{EC2PrivateDNSName}}', groups: ['system:nodes'] },
          { rolearn: ADMIN, username: '{{SessionName}}', groups: [], userid: 'AROA123' },
        ],
        users: [],
        accounts: [],
      }).mapRoles ?? '',
    ],
    [
      'quoted values',
      `- rolearn: '${NODE}'\n  username: '{{SessionName}}'\n  groups:\n  - "system:masters"\n`,
    ],
    ['empty flow list', `- rolearn: ${NODE}\n  username: x\n  groups: []\n`],
    [
      'no final newline, blank lines, root indent 2',
      `\n  - rolearn: ${NODE}\n\n    username: x\n   \n  - rolearn: ${ADMIN}`,
    ],
    [
      'wider dash and odd list indent',
      `-   rolearn: ${NODE}\n    groups:\n       -  a\n       - b\n    username: u\n`,
    ],
    ['Go case folding of field names', `- rOlEaRn: ${NODE}\n  UserName: u\n  GROUPS:\n  - a\n`],
    [
      'duplicate keys (the last wins)',
      `- rolearn: ${NODE}\n  rolearn: ${ADMIN}\n  username: a\n  username: b\n`,
    ],
    ['unknown fields and userarn in mapRoles', `- rolearn: ${NODE}\n  userarn: ${NODE}\n  usrname: x\n`],
    ['groups as a string (type mismatch)', `- rolearn: ${NODE}\n  groups: system:nodes\n`],
    ['rolearn as a list (type mismatch)', `- rolearn:\n  - ${NODE}\n  username: x\n`],
    ['entries that fail validation', `- username: x\n  groups: []\n- rolearn: ''\n  username: w\n`],
    ['trailing spaces', `- rolearn: ${NODE}   \n  groups:  \n  - a  \n  username: 'u'  \n`],
  ];

  it.each(inside)('%s', (_name, text) => {
    expect(awsAuthFastPathAccepts(text)).toBe(true);
    expectSameAsSlow(text);
  });

  it('keeps line and column of entries and issues (1-based, within the value)', () => {
    const text = `- rolearn: ${NODE}\n  username: x\n\n- username: z\n  groups: system:nodes\n`;
    expect(awsAuthFastPathAccepts(text)).toBe(true);
    const parsed = parseAwsAuth({ mapRoles: text });
    expect(parsed.roles[0]?.location).toEqual({ dataKey: 'mapRoles', index: 0, line: 1, column: 3 });
    expect(parsed.issues.map((i) => [i.kind, i.line, i.column])).toEqual([
      ['type-mismatch', 5, 11],
      ['invalid-entry', 4, 3],
    ]);
    expect(parsed).toStrictEqual(parseAwsAuthSlow({ mapRoles: text }));
  });

  it('reads a 2,000-entry list the way the library does', () => {
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++) {
      lines.push(
        `- rolearn: arn:aws:iam::111122223333:role/r-${i}`,
        `  username: u-${i}`,
        '  groups:',
        `    - g-${i % 7}`,
      );
    }
    const text = `${lines.join('\n')}\n`;
    expect(awsAuthFastPathAccepts(text)).toBe(true);
    expectSameAsSlow(text);
  });
});

describe('aws-auth fast path: inputs outside the subset take the library path', () => {
  const outside: Array<[string, string]> = [
    ['a comment line', `# nodes\n- rolearn: ${NODE}\n`],
    ['a trailing comment', `- rolearn: ${NODE} # node\n`],
    ['an anchor and alias', `- rolearn: ${NODE}\n  groups: &g\n  - a\n- rolearn: ${ADMIN}\n  groups: *g\n`],
    ['a tag', `- rolearn: !!str ${NODE}\n`],
    ['{{SessionName}} unquoted at value start', `- rolearn: ${NODE}\n  username: {{SessionName}}\n`],
    ['yes', `- rolearn: ${NODE}\n  username: yes\n`],
    ['YES in a group', `- rolearn: ${NODE}\n  groups:\n  - YES\n`],
    ['null and ~', `- rolearn: ${NODE}\n  username: ~\n`],
    ['a number', `- rolearn: ${NODE}\n  userid: 12345\n`],
    ['a float', `- rolearn: ${NODE}\n  username: 1.5\n`],
    ['a timestamp', `- rolearn: ${NODE}\n  username: 2001-12-14\n`],
    ['a key YAML 1.1 reads as a boolean', `- rolearn: ${NODE}\n  y: x\n`],
    ['a tab', `- rolearn: ${NODE}\n\tusername: x\n`],
    ['CRLF line ends', `- rolearn: ${NODE}\r\n  username: x\r\n`],
    ['a BOM', `\ufeff- rolearn: ${NODE}\n`],
    ['non-ASCII text', `- rolearn: ${NODE}\n  username: jürgen\n`],
    ['a flow mapping entry', `- {rolearn: ${NODE}, username: x}\n`],
    ['a non-empty flow list', `- rolearn: ${NODE}\n  groups: [a, b]\n`],
    ['a JSON value', `[{"rolearn": "${NODE}"}]`],
    ['a document marker', `---\n- rolearn: ${NODE}\n`],
    ['a key with no value', `- rolearn: ${NODE}\n  username:\n`],
    [
      'an sso mapping',
      '- sso:\n    permissionSetName: Admin\n    accountID: "111122223333"\n  username: x\n',
    ],
    ['a block scalar', `- rolearn: ${NODE}\n  username: |\n    x\n`],
    ['a multi-line plain scalar', `- rolearn: ${NODE}\n  username: a\n    b\n`],
    [
      'a mis-indented list item (folded into the previous group)',
      `- rolearn: ${NODE}\n  groups:\n    - system:bootstrappers\n     - system:nodes\n`,
    ],
    ['two groups on one line', `- rolearn: ${NODE}\n  groups:\n    - system:bootstrappers - system:nodes\n`],
    ['a value with ": " inside', `- rolearn: ${NODE}\n  username: a: b\n`],
    ['a list item that is a mapping', `- rolearn: ${NODE}\n  groups:\n  - a: b\n`],
    ['a nested list', `- rolearn: ${NODE}\n  groups:\n  - - a\n`],
    ['a backslash in double quotes', `- rolearn: ${NODE}\n  username: "a\\\\b"\n`],
    ['a quote in single quotes', `- rolearn: ${NODE}\n  username: 'it''s'\n`],
    ['a key at the wrong indent', `- rolearn: ${NODE}\n   username: x\n`],
    ['list items at two indents', `- rolearn: ${NODE}\n  groups:\n    - a\n  - b\n`],
    ['a scalar list item at the root', `- ${NODE}\n`],
    ['a mapping at the root', `rolearn: ${NODE}\n`],
    ['a merge key', `- <<: {rolearn: ${NODE}}\n`],
  ];

  it.each(outside)('%s', (_name, text) => {
    expect(awsAuthFastPathAccepts(text)).toBe(false);
    expectSameAsSlow(text);
  });
});

describe('aws-auth fast path on the reference fixtures', () => {
  const dir = new URL('../fixtures/aws-auth/', import.meta.url);
  const names = readdirSync(dir).filter((n) => n.endsWith('.yaml'));

  it.each(names)('%s parses the same with and without the fast path', (name) => {
    const read = configMapDataFromManifest(readFileSync(new URL(name, dir), 'utf8'));
    if (!read.ok) return; // a manifest the API server would refuse (aws-auth-missing-bar.yaml)
    expect(parseAwsAuth(read.data)).toStrictEqual(parseAwsAuthSlow(read.data));
  });

  it('takes the fast path for the upstream fixture written the common way', () => {
    const read = configMapDataFromManifest(readFileSync(new URL('aws-auth.yaml', dir), 'utf8'));
    if (!read.ok) throw new Error(read.error);
    expect(awsAuthFastPathAccepts(read.data.mapRoles ?? '')).toBe(true);
    expect(awsAuthFastPathAccepts(read.data.mapUsers ?? '')).toBe(true);
  });
});
