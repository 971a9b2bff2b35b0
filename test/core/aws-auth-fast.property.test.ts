import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AwsAuthMappings,
  awsAuthFastPathAccepts,
  encodeAwsAuth,
  formatRoleMappingYaml,
  parseAwsAuth,
  parseAwsAuthSlow,
  type RoleMapping,
  type UserMapping,
} from '../../shared/core/aws-auth/index.ts';

/**
 * The hand-written fast path for `mapRoles`/`mapUsers` (shared/core/aws-auth/fast-path.ts) must give
 * exactly what the `yaml`-package path gives: same mappings, issues (with line/column) and key
 * status, for inputs inside its subset and for near misses that must fall back.
 */

// PROPERTY_RUNS lowers the count for a local run on a busy machine; CI runs the full 10,000.
const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 10_000) };

interface Tally {
  fast: number;
  total: number;
}

/** Compares both paths on every entry-list key; counts how many values the fast path took. */
function assertSame(data: Record<string, string>, tally: Tally): void {
  const fast = parseAwsAuth(data);
  const slow = parseAwsAuthSlow(data);
  if (!isDeepStrictEqual(fast, slow)) {
    throw new Error(
      `fast and slow paths differ on ${JSON.stringify(data)}:\nfast ${JSON.stringify(fast)}\nslow ${JSON.stringify(slow)}`,
    );
  }
  for (const key of ['mapRoles', 'mapUsers'] as const) {
    const v = data[key];
    if (v === undefined) continue;
    tally.total++;
    if (awsAuthFastPathAccepts(v)) tally.fast++;
  }
}

// ---- values ------------------------------------------------------------------------------------

const REALISTIC = [
  'arn:aws:iam::111122223333:role/node',
  'arn:aws:iam::111122223333:role/team/admin',
  'arn:aws:iam::111122223333:role/AWSReservedSSO_Admin_0123456789abcdef',
  'arn:aws:iam::111122223333:user/ops',
  'arn:aws-cn:iam::111122223333:role/x',
  'arn:aws:sts::111122223333:assumed-role/dev/session',
  'system:node:{{EC2PrivateDNSName}}',
  'system:node:{{SessionName}}',
  'admin:{{SessionName}}',
  '{{SessionName}}',
  'system:nodes',
  'system:bootstrappers',
  'system:masters',
  'system:node-proxier',
  'eks:kube-proxy-windows',
  'admin',
  'team-1',
  'Team_2',
  'ops.user@example.com',
  'a=b+c',
  'x(y)$z',
  'a,b',
  'x{y}',
];

const TRICKY = [
  '',
  ' ',
  'a b',
  'a  b',
  'a - b',
  'a -b',
  'a -',
  '- a',
  '-a',
  '-',
  'a:b',
  'a: b',
  'a:',
  'a #b',
  'a#b',
  '#a',
  'yes',
  'Yes',
  'YES',
  'y',
  'N',
  'on',
  'OFF',
  'true',
  'False',
  'null',
  'Null',
  '~',
  '0',
  '012',
  '0o17',
  '0x1F',
  '1_000',
  '1.5',
  '+1',
  '-1',
  '.inf',
  '.5',
  '1e3',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '1:20',
  '[a]',
  '{a}',
  '{{SessionName}',
  'a]',
  'a}',
  "it's",
  'say "hi"',
  'back\\slash',
  'tab\there',
  'ü',
  '<<',
  '!tag',
  '&a',
  '*a',
  '|',
  '>',
  '%x',
  '@x',
  '`x',
  '...',
  '---',
  '..a',
  '?a',
  '? a',
  ':a',
];

const scalarText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...REALISTIC) },
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom(...'abyYnN0189:/-_ #{}\'"\\,.~@!&*[]?|>%`\t'),
      maxLength: 8,
    }),
  },
);

type Quote = 'plain' | 'single' | 'double' | 'double-escaped';
const quote = fc.constantFrom<Quote>('plain', 'plain', 'plain', 'single', 'double', 'double-escaped');

function renderScalar(s: string, q: Quote): string {
  switch (q) {
    case 'plain':
      return s;
    case 'single':
      return `'${s.replaceAll("'", "''")}'`;
    case 'double':
      return `"${s}"`;
    default:
      return JSON.stringify(s);
  }
}

// ---- hand-shaped entry lists -------------------------------------------------------------------

const FIELD_NAMES = [
  'rolearn',
  'rolearn',
  'RoleArn',
  'ROLEARN',
  'rOlEaRn',
  'roleARN',
  'userarn',
  'userarn',
  'userARN',
  'UserArn',
  'username',
  'username',
  'UserName',
  'USERNAME',
  'groups',
  'groups',
  'Groups',
  'GROUPS',
  'userid',
  'UserID',
  'sso',
  'SSO',
  'rolearns',
  'user_name',
  'role-arn',
  'foo',
  'k',
  'y',
  'Y',
  'no',
  'on',
  'true',
  'null',
  'x1',
];

type Value =
  | { kind: 'scalar'; text: string; q: Quote }
  | { kind: 'list'; items: Array<{ text: string; q: Quote; dashSpaces: number }>; offset: number }
  | { kind: 'empty-flow' }
  | { kind: 'null' };

/**
 * Entry lists built from `text` values and `names` keys. `nulls` adds `key:` with nothing after it
 * (outside the subset).
 */
function entryListOf(text: fc.Arbitrary<string>, q: fc.Arbitrary<Quote>, names: string[], nulls: boolean) {
  const value: fc.Arbitrary<Value> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('scalar' as const), text, q }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('list' as const),
        items: fc.array(fc.record({ text, q, dashSpaces: fc.constantFrom(1, 1, 1, 2) }), {
          minLength: 1,
          maxLength: 4,
        }),
        offset: fc.constantFrom(0, 2, 2, 1, 4),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'empty-flow' as const }) },
    { weight: nulls ? 1 : 0, arbitrary: fc.constant({ kind: 'null' as const }) },
  );
  const field = fc.record({
    name: fc.constantFrom(...names),
    value,
    valueSpaces: fc.constantFrom(1, 1, 1, 2),
    trailing: fc.constantFrom('', '', '', ' ', '  '),
  });
  const entry = fc.record({
    fields: fc.array(field, { minLength: 1, maxLength: 5 }),
    dashSpaces: fc.constantFrom(1, 1, 1, 2, 3),
    blankBefore: fc.constantFrom('', '', '', '\n', '   \n'),
  });
  return fc.record({
    entries: fc.array(entry, { minLength: 1, maxLength: 4 }),
    rootIndent: fc.constantFrom(0, 0, 0, 2),
    finalNewline: fc.boolean(),
  });
}

/** Field names EKS and the docs use, in any case; all fold onto RoleMapping/UserMapping fields. */
const GOOD_NAMES = [
  'rolearn',
  'userarn',
  'username',
  'groups',
  'userid',
  'RoleArn',
  'roleARN',
  'UserName',
  'GROUPS',
  'userID',
];

const entryList = fc.oneof(
  entryListOf(
    fc.constantFrom(...REALISTIC),
    fc.constantFrom<Quote>('plain', 'plain', 'single', 'double'),
    GOOD_NAMES,
    false,
  ),
  entryListOf(scalarText, quote, FIELD_NAMES, true),
);

type EntryList = typeof entryList extends fc.Arbitrary<infer T> ? T : never;

function render(list: EntryList): string {
  const lines: string[] = [];
  const root = ' '.repeat(list.rootIndent);
  for (const e of list.entries) {
    if (e.blankBefore !== '') lines.push(e.blankBefore.slice(0, -1));
    const keyCol = list.rootIndent + 1 + e.dashSpaces;
    e.fields.forEach((f, i) => {
      const lead = i === 0 ? `${root}-${' '.repeat(e.dashSpaces)}` : ' '.repeat(keyCol);
      const v = f.value;
      switch (v.kind) {
        case 'scalar':
          lines.push(
            `${lead}${f.name}:${' '.repeat(f.valueSpaces)}${renderScalar(v.text, v.q)}${f.trailing}`,
          );
          break;
        case 'empty-flow':
          lines.push(`${lead}${f.name}:${' '.repeat(f.valueSpaces)}[]${f.trailing}`);
          break;
        case 'null':
          lines.push(`${lead}${f.name}:${f.trailing}`);
          break;
        default:
          lines.push(`${lead}${f.name}:${f.trailing}`);
          for (const item of v.items) {
            lines.push(
              `${' '.repeat(keyCol + v.offset)}-${' '.repeat(item.dashSpaces)}${renderScalar(item.text, item.q)}`,
            );
          }
      }
    });
  }
  return lines.join('\n') + (list.finalNewline ? '\n' : '');
}

// ---- near misses -------------------------------------------------------------------------------

const FRAGMENTS = [
  ' # c',
  '#',
  '\t',
  '\r',
  '\r\n',
  '&a ',
  '*a',
  '!!str ',
  '!!int ',
  '!local ',
  '{',
  '}',
  '[',
  ']',
  '{a: b}',
  '---\n',
  '...\n',
  '%YAML 1.1\n',
  ' ',
  '  ',
  '- ',
  '- - ',
  ':',
  ': ',
  '? ',
  "'",
  '"',
  '\\',
  '\ufeff',
  '\u0085',
  '\u2028',
  '\u00a0',
  'ü',
  '\n',
  '\n\n',
  '|',
  '>',
  '<<: ',
  '~',
  'yes',
  '12',
  '\u0000',
];

type Mutation =
  | { op: 'insert'; at: number; text: string }
  | { op: 'delete'; at: number }
  | { op: 'indent'; line: number; delta: number }
  | { op: 'duplicate'; line: number }
  | { op: 'swap'; a: number; b: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: fc.constantFrom(...FRAGMENTS) }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('indent' as const), line: fc.nat(), delta: fc.constantFrom(-2, -1, 1, 2) }),
  fc.record({ op: fc.constant('duplicate' as const), line: fc.nat() }),
  fc.record({ op: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
);

function mutate(text: string, m: Mutation): string {
  if (m.op === 'insert') {
    const at = m.at % (text.length + 1);
    return text.slice(0, at) + m.text + text.slice(at);
  }
  if (m.op === 'delete') {
    if (text.length === 0) return text;
    const at = m.at % text.length;
    return text.slice(0, at) + text.slice(at + 1);
  }
  const lines = text.split('\n');
  const n = lines.length;
  if (m.op === 'indent') {
    const i = m.line % n;
    const l = lines[i] ?? '';
    lines[i] = m.delta > 0 ? ' '.repeat(m.delta) + l : l.replace(new RegExp(`^ {1,${-m.delta}}`), '');
  } else if (m.op === 'duplicate') {
    const i = m.line % n;
    lines.splice(i, 0, lines[i] ?? '');
  } else {
    const a = m.a % n;
    const b = m.b % n;
    [lines[a], lines[b]] = [lines[b] ?? '', lines[a] ?? ''];
  }
  return lines.join('\n');
}

// ---- canonical encoder output ------------------------------------------------------------------

/** Mostly what EKS and Terraform write, sometimes anything the encoder must quote. */
const mappedText = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...REALISTIC) },
  { weight: 1, arbitrary: scalarText },
);
const accountId = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 12, maxLength: 12 });
const role: fc.Arbitrary<Omit<RoleMapping, 'location'>> = fc
  .record({
    target: fc.oneof(
      { weight: 5, arbitrary: mappedText.map((rolearn) => ({ rolearn })) },
      {
        weight: 1,
        arbitrary: fc
          .record({ permissionSetName: fc.constantFrom('Admin', 'Read_Only', ''), accountID: accountId })
          .map((sso) => ({ sso })),
      },
    ),
    username: mappedText,
    groups: fc.array(mappedText, { maxLength: 3 }),
    userid: fc.option(mappedText, { nil: undefined }),
  })
  .map(({ target, username, groups, userid }) => ({
    ...target,
    username,
    groups,
    ...(userid === undefined ? {} : { userid }),
  }));
const user: fc.Arbitrary<Omit<UserMapping, 'location'>> = fc
  .record({
    userarn: mappedText,
    username: mappedText,
    groups: fc.array(mappedText, { maxLength: 3 }),
    userid: fc.option(mappedText, { nil: undefined }),
  })
  .map(({ userid, ...rest }) => (userid === undefined ? rest : { ...rest, userid }));
const mappings: fc.Arbitrary<AwsAuthMappings> = fc.record({
  roles: fc.array(role, { maxLength: 4 }),
  users: fc.array(user, { maxLength: 3 }),
  accounts: fc.constant([]),
});

describe('aws-auth fast path equals the library path (property)', () => {
  it('on canonical encoder output and pasted role snippets (groups indented under the key)', () => {
    const tally: Tally = { fast: 0, total: 0 };
    fc.assert(
      fc.property(mappings, fc.boolean(), (m, pasted) => {
        const data = encodeAwsAuth(m);
        if (pasted && m.roles.length > 0) data.mapRoles = m.roles.map(formatRoleMappingYaml).join('');
        assertSame(data, tally);
      }),
      RUNS,
    );
    // Not vacuous: a good share of the encoder output is in the subset.
    expect(tally.fast).toBeGreaterThan(tally.total * 0.2);
  });

  it('on hand-shaped lists: quoting, indentation styles, key order and case, empty lists, odd values', () => {
    const tally: Tally = { fast: 0, total: 0 };
    fc.assert(
      fc.property(entryList, entryList, (roles, users) => {
        assertSame({ mapRoles: render(roles), mapUsers: render(users) }, tally);
      }),
      RUNS,
    );
    expect(tally.fast).toBeGreaterThan(tally.total * 0.3);
  });

  it('on near misses: one or two mutations of an in-subset text (most must fall back)', () => {
    const tally: Tally = { fast: 0, total: 0 };
    fc.assert(
      fc.property(entryList, fc.array(mutation, { minLength: 1, maxLength: 2 }), (list, ms) => {
        const text = ms.reduce(mutate, render(list));
        assertSame({ mapRoles: text, mapUsers: text }, tally);
      }),
      RUNS,
    );
    expect(tally.fast).toBeGreaterThan(0);
    expect(tally.fast).toBeLessThan(tally.total);
  });
});
