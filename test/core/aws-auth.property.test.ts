import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  type AwsAuthMappings,
  encodeAwsAuth,
  encodeMapRoles,
  type ParsedAwsAuth,
  parseAwsAuth,
  type RoleMapping,
  SSO_PARTITIONS,
  type UserMapping,
} from '../../shared/core/aws-auth/index.ts';

// PROPERTY_RUNS lowers the count for a local run on a busy machine; CI runs the full 10,000.
const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 10_000) };

const STATUSES = new Set(['missing', 'empty', 'ok', 'failed']);

/**
 * Parses and checks the result is well formed and the parser's own safety net never fired.
 * Plain throws instead of `expect`: this runs 10 000 times per property.
 */
function parseChecked(data: Record<string, string>): ParsedAwsAuth {
  const parsed = parseAwsAuth(data);
  for (const issue of parsed.issues) {
    if (/internal error/.test(issue.message) || typeof issue.lost !== 'string' || issue.lost === '') {
      throw new Error(`malformed issue ${JSON.stringify(issue)}`);
    }
  }
  for (const key of ['mapRoles', 'mapUsers', 'mapAccounts'] as const) {
    if (!STATUSES.has(parsed.keyStatus[key])) throw new Error(`bad keyStatus ${parsed.keyStatus[key]}`);
  }
  return parsed;
}

function assertEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`${what} differ:\n${JSON.stringify(actual)}\n${JSON.stringify(expected)}`);
  }
}

// Any UTF-16 code unit, lone surrogates included (a string from outside need not be valid UTF-8).
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const arbitraryString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: anyCodeUnit, maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
);

const FRAGMENTS = [
  '- ',
  '-',
  '  ',
  '    ',
  ' ',
  '\n',
  '\r\n',
  '\t',
  'rolearn: ',
  'rOlEaRn: ',
  'userarn: ',
  'username: ',
  'groups:',
  'groups: ',
  'sso:',
  'permissionSetName: ',
  'accountID: ',
  'partition: ',
  'userid: ',
  'arn:aws:iam::111122223333:role/node',
  'arn:aws:iam::111122223333:user/ops',
  'system:node:{{EC2PrivateDNSName}}',
  '{{SessionName}}',
  'system:nodes',
  'system:bootstrappers',
  '012345678912',
  '111122223333',
  'aws-cn',
  '{',
  '}',
  '[',
  ']',
  ',',
  ':',
  '? ',
  '&a ',
  '*a',
  '*b',
  '<<: ',
  '!!int ',
  '!!str ',
  '!!binary ',
  '!!float ',
  '!local ',
  '"',
  "'",
  '""',
  "''",
  '``',
  '\\u00e9',
  '\\ud800',
  '|',
  '|-',
  '>',
  '#',
  ' # c',
  '~',
  'null',
  'yes',
  'on',
  '.nan',
  '.inf',
  '0x1F',
  '0o17',
  '1_000',
  '2001-12-14',
  '9223372036854775808',
  '1e400',
  '1:20',
  '---\n',
  '...\n',
  '%YAML 1.1\n',
  '\u00e9',
  '\u2028',
  '\u0085',
  '\ufeff',
  '\u0000',
];

const yamlish = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((parts) => parts.join(''));

describe('parseAwsAuth (property)', () => {
  // mapUsers goes through the same code as mapRoles; mapAccounts has its own decoder.
  it('never throws on arbitrary strings in mapRoles and mapAccounts', () => {
    fc.assert(
      fc.property(arbitraryString, (text) => {
        parseChecked({ mapRoles: text, mapAccounts: text });
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary records, with arbitrary keys, unicode and non-string values', () => {
    const key = fc.oneof(
      fc.constantFrom(
        'mapRoles',
        'mapUsers',
        'mapAccounts',
        'maproles',
        'MapRoles',
        '__proto__',
        'constructor',
      ),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    const value = fc.oneof(
      { weight: 4, arbitrary: arbitraryString },
      { weight: 4, arbitrary: yamlish },
      { weight: 1, arbitrary: fc.anything() },
    );
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), (record) => {
        parseChecked(record as Record<string, string>);
      }),
      RUNS,
    );
  });

  it('never throws on YAML-ish strings built from aws-auth fragments', () => {
    fc.assert(
      fc.property(yamlish, (text) => {
        parseChecked({ mapRoles: text, mapAccounts: text });
      }),
      RUNS,
    );
  });
});

// ---- valid mappings ----------------------------------------------------------------------------

// Character-set strings rather than fc.stringMatching, which is several times slower.
const chars = (set: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...set), minLength, maxLength });
const WORD = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';
const accountId = chars('0123456789', 12, 12);
const roleName = chars(`${WORD}+=,.@-`, 1, 32);
const partition = fc.constantFrom('aws', 'aws-cn', 'aws-us-gov', 'aws-iso-b');
const roleArn = fc.oneof(
  fc
    .tuple(partition, accountId, fc.constantFrom('', 'teams/', 'a/b/'), roleName)
    .map(([p, a, path, name]) => `arn:${p}:iam::${a}:role/${path}${name}`),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }),
);
const userArn = fc.oneof(
  fc.tuple(partition, accountId, roleName).map(([p, a, name]) => `arn:${p}:iam::${a}:user/${name}`),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }),
);
const text = fc.oneof(
  fc.constantFrom(
    'system:node:{{EC2PrivateDNSName}}',
    '{{SessionName}}',
    '{{SessionNameRaw}}',
    'admin:{{AccountID}}:{{SessionName}}',
    '{{AccessKeyID}}',
    'system:nodes',
    'system:bootstrappers',
    'system:node-proxier',
    'system:masters',
    '',
    'yes',
    '012345678912',
    '1:20',
    '- a',
    'a - b',
    '<<',
    '~',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 16 }),
);
const nonEmptyText = text.filter((s) => s !== '');
const groups = fc.array(text, { maxLength: 3 });

const ssoMatcher = fc
  .record({
    permissionSetName: chars(`${WORD}+=,.@-`, 1, 32),
    accountID: accountId,
    partition: fc.option(fc.constantFrom(...SSO_PARTITIONS), { nil: undefined }),
  })
  .map(({ partition: p, ...rest }) => (p === undefined ? rest : { ...rest, partition: p }));

const role: fc.Arbitrary<Omit<RoleMapping, 'location'>> = fc
  .record({
    target: fc.oneof(
      roleArn.map((rolearn) => ({ rolearn })),
      ssoMatcher.map((sso) => ({ sso })),
    ),
    username: text,
    groups,
    userid: fc.option(nonEmptyText, { nil: undefined }),
  })
  .map(({ target, username, groups: g, userid }) => ({
    ...target,
    username,
    groups: g,
    ...(userid === undefined ? {} : { userid }),
  }));

const user: fc.Arbitrary<Omit<UserMapping, 'location'>> = fc
  .record({ userarn: userArn, username: text, groups, userid: fc.option(nonEmptyText, { nil: undefined }) })
  .map(({ userid, ...rest }) => (userid === undefined ? rest : { ...rest, userid }));

const mappings: fc.Arbitrary<AwsAuthMappings> = fc.record({
  roles: fc.array(role, { maxLength: 3 }),
  users: fc.array(user, { maxLength: 2 }),
  accounts: fc.array(fc.oneof(accountId, text), { maxLength: 3 }),
});

describe('encodeAwsAuth then parseAwsAuth (property)', () => {
  it('gives back the same mappings, in order, for any valid mappings', () => {
    fc.assert(
      fc.property(mappings, (m) => {
        const parsed = parseChecked(encodeAwsAuth(m));
        assertEqual(
          parsed.roles.map(({ location: _l, ...r }) => r),
          m.roles,
          'roles',
        );
        assertEqual(
          parsed.users.map(({ location: _l, ...u }) => u),
          m.users,
          'users',
        );
        assertEqual(parsed.accounts, m.accounts, 'accounts');
        // Only mapAccounts items that are not 12-digit account IDs are worth a remark.
        const unexpected = parsed.issues.filter(
          (i) => i.kind !== 'suspicious-value' || i.dataKey !== 'mapAccounts',
        );
        assertEqual(unexpected, [], 'issues');
      }),
      RUNS,
    );
  });

  it('encodeMapRoles hands over exactly the mapRoles a parse of its text gives (locations included)', () => {
    // An EKS-written role whose ARN is empty (a plan's `""`) is the one invalid role a simulation makes.
    const anyRole = fc.oneof(
      role,
      role.map(({ sso: _s, ...r }) => ({ ...r, rolearn: '' })),
    );
    fc.assert(
      fc.property(fc.array(anyRole, { maxLength: 4 }), (roles) => {
        const { text, mappings } = encodeMapRoles(roles);
        const parsed = parseChecked(text === undefined ? {} : { mapRoles: text });
        if (mappings === undefined) {
          // Only when the parser drops a role: then the caller parses the text.
          if (parsed.roles.length === roles.length) throw new Error('mappings withheld for valid roles');
          return;
        }
        assertEqual(mappings, parsed.roles, 'mappings');
        assertEqual(
          parsed.issues.filter((i) => i.dataKey === 'mapRoles'),
          [],
          'mapRoles issues',
        );
        assertEqual(parsed.keyStatus.mapRoles, text === undefined ? 'missing' : 'ok', 'status');
      }),
      RUNS,
    );
  });
});
