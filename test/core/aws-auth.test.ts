import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type AwsAuthIssue,
  configMapDataFromManifest,
  encodeAwsAuth,
  formatRoleMappingYaml,
  type ParsedAwsAuth,
  parseAwsAuth,
  type RoleMapping,
  type UserMapping,
} from '../../shared/core/aws-auth/index.ts';

function manifest(name: string): string {
  return readFileSync(new URL(`../fixtures/aws-auth/${name}`, import.meta.url), 'utf8');
}

/** The ConfigMap `data` of a fixture manifest, as the API server would store it. */
function fixtureData(name: string): Record<string, string> {
  const read = configMapDataFromManifest(manifest(name));
  if (!read.ok) throw new Error(`fixture ${name} is not a valid ConfigMap: ${read.error}`);
  return read.data;
}

function parseFixture(name: string): ParsedAwsAuth {
  return parseAwsAuth(fixtureData(name));
}

function stripRole({ location: _location, ...rest }: RoleMapping): Omit<RoleMapping, 'location'> {
  return rest;
}

function stripUser({ location: _location, ...rest }: UserMapping): Omit<UserMapping, 'location'> {
  return rest;
}

function kinds(issues: AwsAuthIssue[]): string[] {
  return issues.map((i) => `${i.dataKey}:${i.kind}${i.entryIndex === undefined ? '' : `#${i.entryIndex}`}`);
}

// Expectations shared by upstream's TestConfigMap cases (pkg/mapper/configmap/yaml_test.go).
const NODE_ROLE_ARN = 'arn:aws:iam::555555555555:role/devel-worker-nodes-NodeInstanceRole-74RF4UBDUKL6';
const VALID_ROLES = [
  {
    rolearn: NODE_ROLE_ARN,
    username: 'system:node:{{EC2PrivateDNSName}}',
    groups: ['system:bootstrappers', 'system:nodes'],
  },
];
const VALID_USERS = [
  { userarn: 'arn:aws:iam::555555555555:user/admin', username: 'admin', groups: ['system:masters'] },
];
const VALID_ACCOUNTS = ['555555555555'];

describe('parseAwsAuth on upstream TestConfigMap fixtures', () => {
  it.each(['aws-auth.yaml', 'aws-auth-crazy-case-keys.yaml', 'aws-auth-open-source-case-keys.yaml'])(
    'loads 1 node role, 1 user and 1 account from %s, matching entry field names case-insensitively',
    (name) => {
      const parsed = parseFixture(name);
      expect(parsed.roles.map(stripRole)).toEqual(VALID_ROLES);
      expect(parsed.users.map(stripUser)).toEqual(VALID_USERS);
      expect(parsed.accounts).toEqual(VALID_ACCOUNTS);
      expect(parsed.issues).toEqual([]);
      expect(parsed.keyStatus).toEqual({ mapRoles: 'ok', mapUsers: 'ok', mapAccounts: 'ok' });
    },
  );

  it('loads nothing from lower-case top-level keys and names each near miss (aws-auth-lower-case-top-keys.yaml)', () => {
    const parsed = parseFixture('aws-auth-lower-case-top-keys.yaml');
    expect([parsed.roles, parsed.users, parsed.accounts]).toEqual([[], [], []]);
    expect(parsed.keyStatus).toEqual({ mapRoles: 'missing', mapUsers: 'missing', mapAccounts: 'missing' });
    expect(parsed.issues.map((i) => [i.kind, i.dataKey])).toEqual([
      ['ignored-key', 'mapaccounts'],
      ['ignored-key', 'maproles'],
      ['ignored-key', 'mapusers'],
    ]);
    const maproles = parsed.issues.find((i) => i.dataKey === 'maproles');
    expect(maproles?.message).toContain('did you mean "mapRoles"?');
    expect(maproles?.lost).toContain(NODE_ROLE_ARN);
    expect(maproles?.lost).toContain('node roles');
  });

  it('loads nothing from crazy-case top-level keys, including the misspelled MaPrCcOuNtS (aws-auth-crazy-case-top-keys.yaml)', () => {
    const parsed = parseFixture('aws-auth-crazy-case-top-keys.yaml');
    expect([parsed.roles, parsed.users, parsed.accounts]).toEqual([[], [], []]);
    expect(parsed.issues.map((i) => [i.dataKey, /did you mean "(\w+)"/.exec(i.message)?.[1]])).toEqual([
      ['MaPrCcOuNtS', 'mapAccounts'],
      ['MaPrOlEs', 'mapRoles'],
      ['mApUsErS', 'mapUsers'],
    ]);
    expect(parsed.issues.find((i) => i.dataKey === 'MaPrCcOuNtS')?.lost).toContain('555555555555');
  });

  it('folds a list item indented one space too far into the previous group and flags it (aws-auth-space-out-of-place.yaml)', () => {
    const parsed = parseFixture('aws-auth-space-out-of-place.yaml');
    expect(parsed.roles.map(stripRole)).toEqual([
      {
        rolearn: NODE_ROLE_ARN,
        username: 'system:node:{{EC2PrivateDNSName}}',
        groups: ['system:bootstrappers - system:nodes'],
      },
    ]);
    expect(parsed.users.map(stripUser)).toEqual(VALID_USERS);
    expect(parsed.accounts).toEqual(VALID_ACCOUNTS);
    expect(parsed.issues).toHaveLength(1);
    expect(parsed.issues[0]).toMatchObject({
      kind: 'suspicious-value',
      dataKey: 'mapRoles',
      entryIndex: 0,
      line: 4,
      column: 7,
    });
    expect(parsed.issues[0]?.lost).toContain('group system:nodes of mapRoles entry 0');
  });

  it('refuses the manifest with a missing "|" after mapRoles, as creating the ConfigMap fails (aws-auth-missing-bar.yaml)', () => {
    const read = configMapDataFromManifest(manifest('aws-auth-missing-bar.yaml'));
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error).toContain('creating the ConfigMap object fails');
    expect(read.error).toContain('data.mapRoles is a list');
    expect(read.line).toBe(7);
  });
});

describe('parseAwsAuth and encodeAwsAuth on upstream configmap_test.go cases', () => {
  it('parses a node role, an SSO matcher and two users, and re-encodes them byte for byte (TestParseMap)', () => {
    const data = fixtureData('test-parse-map.yaml');
    const parsed = parseAwsAuth(data);
    expect(parsed.issues).toEqual([]);
    expect(parsed.roles.map(stripRole)).toEqual([
      {
        rolearn: 'arn:aws:iam::123456789101:role/test-NodeInstanceRole-1VWRHZ3GKZ1T4',
        username: 'system:node:{{EC2PrivateDNSName}}',
        groups: ['system:bootstrappers', 'system:nodes'],
      },
      {
        sso: { permissionSetName: 'ViewOnlyAccess', accountID: '012345678912', partition: 'aws-cn' },
        username: 'user1',
        groups: ['system:basic-users'],
      },
    ]);
    expect(parsed.users.map(stripUser)).toEqual([
      { userarn: 'arn:aws:iam::123456789101:user/Hello', username: 'Hello', groups: ['system:masters'] },
      { userarn: 'arn:aws:iam::123456789101:user/World', username: 'World', groups: ['system:masters'] },
    ]);
    expect(parsed.accounts).toEqual([]);
    const encoded = encodeAwsAuth({
      roles: parsed.roles.map(stripRole),
      users: parsed.users.map(stripUser),
      accounts: parsed.accounts,
    });
    expect(encoded).toEqual(data);
    expect(encoded.mapRoles).toContain('accountID: "012345678912"');
  });

  it('skips "", a quoted empty string and two backticks without error, and re-encodes to nothing (TestBadParseMap)', () => {
    const data = fixtureData('test-bad-parse-map.yaml');
    expect(data).toEqual({ mapAccounts: '', mapRoles: '""', mapUsers: '``' });
    const parsed = parseAwsAuth(data);
    expect(parsed.issues).toEqual([]);
    expect(parsed.keyStatus).toEqual({ mapRoles: 'empty', mapUsers: 'empty', mapAccounts: 'empty' });
    expect(encodeAwsAuth({ roles: [], users: [], accounts: parsed.accounts })).toEqual({});
  });

  it("skips '' in every key without error (TestBadParseMapSingleQuote)", () => {
    const parsed = parseFixture('test-bad-parse-map-single-quote.yaml');
    expect(parsed.issues).toEqual([]);
    expect([parsed.roles, parsed.users, parsed.accounts]).toEqual([[], [], []]);
    expect(parsed.keyStatus).toEqual({ mapRoles: 'empty', mapUsers: 'empty', mapAccounts: 'empty' });
  });
});

describe('parseAwsAuth on aws-auth quirks', () => {
  it('unmaps every role, node roles included, when one line of mapRoles is broken, while mapUsers and mapAccounts survive', () => {
    const parsed = parseFixture('one-bad-line-unmaps-every-role.yaml');
    expect(parsed.roles).toEqual([]);
    expect(parsed.keyStatus).toEqual({ mapRoles: 'failed', mapUsers: 'ok', mapAccounts: 'ok' });
    expect(parsed.users.map((u) => u.userarn)).toEqual(['arn:aws:iam::111122223333:user/ops']);
    expect(parsed.accounts).toEqual(['111122223333']);
    expect(kinds(parsed.issues)).toEqual(['mapRoles:key-parse-failure']);
    const [issue] = parsed.issues;
    expect(issue?.lost).toMatch(/^all 3 role mappings in mapRoles/);
    expect(issue?.lost).toContain('arn:aws:iam::111122223333:role/eks-node-a');
    expect(issue?.lost).toContain('including node roles');
    // go-yaml: "line 12: mapping values are not allowed in this context", the mis-indented line.
    expect(issue?.line).toBe(12);
  });

  it('fails the whole mapRoles key on an unquoted {{SessionName}}, like go-yaml v2 ("invalid map key"), and says how to quote it', () => {
    const data = fixtureData('unquoted-session-name.yaml');
    const parsed = parseAwsAuth(data);
    expect(parsed.roles).toEqual([]);
    expect(parsed.keyStatus.mapRoles).toBe('failed');
    expect(parsed.users).toHaveLength(1);
    expect(parsed.issues).toHaveLength(1);
    expect(parsed.issues[0]).toMatchObject({
      kind: 'key-parse-failure',
      dataKey: 'mapRoles',
      line: 7,
      column: 13,
    });
    expect(parsed.issues[0]?.message).toContain('invalid map key');
    expect(parsed.issues[0]?.message).toContain('username: "{{SessionName}}"');
    expect(parsed.issues[0]?.lost).toContain('all 2 role mappings');

    const quoted = parseAwsAuth({
      ...data,
      mapRoles: (data.mapRoles ?? '').replace('{{SessionName}}', '"{{SessionName}}"'),
    });
    expect(quoted.issues).toEqual([]);
    expect(quoted.roles.map((r) => r.username)).toEqual([
      'system:node:{{EC2PrivateDNSName}}',
      '{{SessionName}}',
    ]);
  });

  it('keeps an entry whose groups is a string, with groups empty, and reports the type mismatch where it is', () => {
    const parsed = parseFixture('groups-as-string.yaml');
    expect(parsed.roles.map(stripRole)).toEqual([
      {
        rolearn: 'arn:aws:iam::111122223333:role/eks-node',
        username: 'system:node:{{EC2PrivateDNSName}}',
        groups: [],
      },
      { rolearn: 'arn:aws:iam::111122223333:role/admin', username: '', groups: ['system:masters'] },
    ]);
    expect(parsed.issues.map((i) => [i.kind, i.entryIndex, i.line, i.column])).toEqual([
      ['type-mismatch', 0, 3, 11],
      ['type-mismatch', 1, 5, 13],
    ]);
    expect(parsed.issues[0]?.lost).toContain('no groups');
    expect(parsed.issues[0]?.lost).toContain('system:nodes');
    expect(parsed.issues[1]?.message).toContain('the boolean true'); // `username: yes` in YAML 1.1
  });

  it('drops invalid entries one by one and keeps the valid ones around them', () => {
    const parsed = parseFixture('invalid-entry-among-valid.yaml');
    expect(parsed.roles.map((r) => [r.rolearn, r.location.index])).toEqual([
      ['arn:aws:iam::111122223333:role/first', 0],
      ['arn:aws:iam::111122223333:role/last', 4],
    ]);
    expect(parsed.users.map((u) => u.userarn)).toEqual(['arn:aws:iam::111122223333:user/ops']);
    expect(kinds(parsed.issues)).toEqual([
      'mapRoles:unknown-field#1',
      'mapRoles:invalid-entry#1',
      'mapRoles:invalid-entry#2',
      'mapRoles:type-mismatch#3',
      'mapRoles:invalid-entry#3',
      'mapUsers:invalid-entry#0',
    ]);
    const messages = parsed.issues.map((i) => i.message);
    expect(messages[0]).toContain('did you mean "rolearn"?');
    expect(messages[1]).toContain('one of rolearn or SSO must be supplied');
    expect(messages[2]).toContain('only one of rolearn or SSO can be supplied');
    expect(messages[3]).toContain('quote the account ID');
    expect(messages[4]).toContain("AccountID '' is not a valid AWS Account ID");
    expect(messages[5]).toContain('value for userarn must be supplied');
    expect(parsed.issues[2]?.lost).toBe('mapRoles entry 2 (rolearn arn:aws:iam::111122223333:role/both)');
  });

  it('keeps duplicate entries in file order, so that resolution can take the last one', () => {
    const parsed = parseFixture('duplicate-role-entries.yaml');
    expect(parsed.roles.map((r) => [r.rolearn, r.username, r.location.index])).toEqual([
      ['arn:aws:iam::111122223333:role/eks-node', 'system:node:{{EC2PrivateDNSName}}', 0],
      ['arn:aws:iam::111122223333:role/other', 'other', 1],
      ['arn:aws:iam::111122223333:role/EKS-Node', 'shadow', 2],
    ]);
    expect(parsed.issues).toEqual([]);
  });

  it('keeps a rolearn with an IAM path verbatim', () => {
    const parsed = parseFixture('rolearn-with-path.yaml');
    expect(parsed.roles.map((r) => r.rolearn)).toEqual([
      'arn:aws:iam::111122223333:role/teams/platform/EKSNodeRole',
    ]);
    expect(parsed.issues).toEqual([]);
  });

  it('locates entries by data key, index and 1-based line/column inside the value', () => {
    const parsed = parseFixture('test-parse-map.yaml');
    expect(parsed.roles.map((r) => r.location)).toEqual([
      { dataKey: 'mapRoles', index: 0, line: 1, column: 3 },
      { dataKey: 'mapRoles', index: 1, line: 6, column: 3 },
    ]);
    expect(parsed.users.map((u) => u.location)).toEqual([
      { dataKey: 'mapUsers', index: 0, line: 1, column: 3 },
      { dataKey: 'mapUsers', index: 1, line: 5, column: 3 },
    ]);
    const flow = parseAwsAuth({ mapRoles: '\n\n  [ {rolearn: a}, {rolearn: b, groups: x} ]' });
    expect(flow.roles.map((r) => [r.location.line, r.location.column])).toEqual([
      [3, 5],
      [3, 19],
    ]);
    expect(flow.issues.map((i) => [i.line, i.column])).toEqual([[3, 40]]);
  });

  it('reads YAML 1.1 scalars as go-yaml v2 does: yes/on are booleans, 0x10 a number, ~ null, dates stay text', () => {
    const parsed = parseFixture('yaml-1-1-scalars.yaml');
    expect(parsed.roles.map(stripRole)).toEqual([
      { rolearn: 'arn:aws:iam::111122223333:role/a', username: '', groups: ['', '', 'yes', '2024-01-02'] },
    ]);
    expect(parsed.issues.map((i) => [i.kind, i.dataKey, /is (the \w+ \w+)/.exec(i.message)?.[1]])).toEqual([
      ['type-mismatch', 'mapRoles', 'the boolean true'],
      ['type-mismatch', 'mapRoles', 'the number 16'],
      ['suspicious-value', 'mapAccounts', undefined],
    ]);
    expect(parsed.accounts).toEqual(['111122223333', '012345678912', '1_1']);
  });

  it('expands anchors, aliases and << merge keys like go-yaml v2', () => {
    const parsed = parseFixture('anchors-and-merge-keys.yaml');
    expect(parsed.issues).toEqual([]);
    expect(parsed.roles.map((r) => [r.rolearn, r.username, r.groups])).toEqual(
      ['node-a', 'node-b', 'node-c'].map((n) => [
        `arn:aws:iam::111122223333:role/${n}`,
        'system:node:{{EC2PrivateDNSName}}',
        ['system:bootstrappers', 'system:nodes'],
      ]),
    );
  });

  it('fails a value that starts with "{" as JSON, while a JSON array is read as a YAML flow list', () => {
    const parsed = parseFixture('value-starts-with-brace.yaml');
    expect(parsed.keyStatus).toEqual({ mapRoles: 'failed', mapUsers: 'ok', mapAccounts: 'missing' });
    expect(parsed.issues.map((i) => [i.kind, i.dataKey, i.line, i.column])).toEqual([
      ['key-parse-failure', 'mapRoles', 1, 1],
    ]);
    expect(parsed.users.map((u) => u.username)).toEqual(['ops']);
  });

  it('ignores userarn under mapRoles with a pointer to mapUsers, and drops the entry', () => {
    const parsed = parseFixture('user-entry-in-map-roles.yaml');
    expect(parsed.roles).toEqual([]);
    expect(kinds(parsed.issues)).toEqual(['mapRoles:unknown-field#0', 'mapRoles:invalid-entry#0']);
    expect(parsed.issues[0]?.message).toContain('"userarn" belongs in mapUsers');
  });

  it('applies duplicate case-folded fields in Go json.Marshal key order, so "rolearn" beats "RoleArn"', () => {
    const parsed = parseAwsAuth({ mapRoles: '- rolearn: arn:second\n  RoleArn: arn:first\n  username: u\n' });
    expect(parsed.roles.map((r) => r.rolearn)).toEqual(['arn:second']);
  });

  it('matches field names with Go case folding, including the long s and Kelvin sign', () => {
    const parsed = parseAwsAuth({ mapRoles: '- ROLEARN: arn:a\n  uſername: u\n  groupſ: [g]\n' });
    expect(parsed.roles.map(stripRole)).toEqual([{ rolearn: 'arn:a', username: 'u', groups: ['g'] }]);
  });

  it('validates SSO matchers: permission-set name pattern and known partitions', () => {
    const entry = (psn: string, partition: string) =>
      `- sso:\n    permissionSetName: "${psn}"\n    accountID: "012345678912"\n    partition: ${partition}\n  username: u\n`;
    const ok = parseAwsAuth({ mapRoles: entry('Admin+=,.@-_1', 'aws-iso-f') });
    expect(ok.roles).toHaveLength(1);
    expect(ok.issues).toEqual([]);
    const badName = parseAwsAuth({ mapRoles: entry('ViewOnlyAccess*', 'aws') });
    expect(badName.issues.map((i) => i.message)).toEqual([
      "mapRoles entry 0 (sso ViewOnlyAccess* in 012345678912) is dropped by the authenticator: PermissionSetName 'ViewOnlyAccess*' is not a valid AWS SSO PermissionSet Name",
    ]);
    const badPartition = parseAwsAuth({ mapRoles: entry('ViewOnlyAccess', 'aws-nk') });
    expect(badPartition.issues[0]?.message).toContain("partition 'aws-nk' is not a valid AWS partition");
    expect(badPartition.roles).toEqual([]);
  });

  it('fails the whole key on values JSON cannot carry (.nan) or keys it cannot (null), even in an unknown field', () => {
    const nan = parseAwsAuth({
      mapRoles: '- rolearn: arn:a\n  weight: .nan\n',
      mapUsers: '- userarn: u\n  ~: x\n',
    });
    expect(nan.keyStatus).toEqual({ mapRoles: 'failed', mapUsers: 'failed', mapAccounts: 'missing' });
    expect(nan.issues.map((i) => i.message)).toEqual([
      expect.stringContaining('json: unsupported value: NaN'),
      expect.stringContaining('Unsupported map key of type: %!s(<nil>), key: <nil>, value: "x"'),
    ]);
  });

  it('treats null and comment-only values as empty, and a scalar or mapping as a failed key', () => {
    const parsed = parseAwsAuth({ mapRoles: '# nothing yet\n', mapUsers: '~', mapAccounts: 'accounts: [1]' });
    expect(parsed.keyStatus).toEqual({ mapRoles: 'empty', mapUsers: 'empty', mapAccounts: 'failed' });
    expect(kinds(parsed.issues)).toEqual(['mapAccounts:key-parse-failure']);
    expect(parseAwsAuth({ mapRoles: 'arn:aws:iam::1:role/x' }).issues[0]?.message).toContain('not a list');
  });

  it('reads mapAccounts like go-yaml into []string: source text kept, non-scalars skipped with a type mismatch', () => {
    const parsed = parseAwsAuth({ mapAccounts: '- 0x10\n- "111122223333"\n- [nested]\n- 111122223334\n' });
    expect(parsed.accounts).toEqual(['0x10', '111122223333', '111122223334']);
    expect(kinds(parsed.issues)).toEqual(['mapAccounts:suspicious-value#0', 'mapAccounts:type-mismatch#2']);
  });

  it('reports a non-string value and any input shape without throwing', () => {
    const weird = parseAwsAuth({ mapRoles: 42 } as unknown as Record<string, string>);
    expect(weird.keyStatus.mapRoles).toBe('failed');
    expect(parseAwsAuth(null as unknown as Record<string, string>).issues).toEqual([]);
    expect(parseAwsAuth({ mapRoles: '- a: *nope\n' }).issues[0]?.message).toContain('nope');
    expect(parseAwsAuth({ mapRoles: '- &a [*a]\n' }).keyStatus.mapRoles).toBe('failed');
  });

  it('rejects control characters the way libyaml does', () => {
    const parsed = parseAwsAuth({ mapRoles: '- rolearn: arn:a\u0007\n' });
    expect(parsed.keyStatus.mapRoles).toBe('failed');
    expect(parsed.issues[0]).toMatchObject({ line: 1, column: 17 });
  });
});

describe('encodeAwsAuth', () => {
  it('omits empty keys and quotes strings the way go-yaml v2 does', () => {
    const encoded = encodeAwsAuth({
      roles: [
        { rolearn: 'arn:aws:iam::1:role/a', username: '{{SessionName}}', groups: [] },
        { rolearn: 'arn:aws:iam::1:role/b', username: 'true', groups: ['', 'a: b', 'x #y'], userid: 'AROA1' },
      ],
      users: [],
      accounts: ['111122223333'],
    });
    expect(encoded).toEqual({
      mapRoles: [
        '- rolearn: arn:aws:iam::1:role/a',
        "  username: '{{SessionName}}'",
        '  groups: []',
        '- rolearn: arn:aws:iam::1:role/b',
        '  username: "true"',
        '  groups:',
        '  - ""',
        "  - 'a: b'",
        "  - 'x #y'",
        '  userid: AROA1',
        '',
      ].join('\n'),
      mapAccounts: '- "111122223333"\n',
    });
  });

  it('round-trips strings that need escapes', () => {
    const roles = [
      {
        rolearn: 'arn:a',
        username: 'tab\there "q" \\ \u00e9\u{1F600}',
        groups: ['line\nbreak', ' lead', "it's"],
      },
    ];
    const parsed = parseAwsAuth(encodeAwsAuth({ roles, users: [], accounts: [] }));
    expect(parsed.issues).toEqual([]);
    expect(parsed.roles.map(stripRole)).toEqual(roles);
  });
});

describe('formatRoleMappingYaml', () => {
  it('renders a node role as a paste-ready mapRoles item', () => {
    expect(
      formatRoleMappingYaml({
        rolearn: 'arn:aws:iam::111122223333:role/eks-node',
        username: 'system:node:{{EC2PrivateDNSName}}',
        groups: ['system:bootstrappers', 'system:nodes'],
      }),
    ).toBe(
      '- rolearn: arn:aws:iam::111122223333:role/eks-node\n' +
        '  username: system:node:{{EC2PrivateDNSName}}\n' +
        '  groups:\n' +
        '    - system:bootstrappers\n' +
        '    - system:nodes\n',
    );
  });

  it('quotes a value that starts with "{" and renders an SSO matcher that parses back', () => {
    const mapping = {
      sso: { permissionSetName: 'Dev', accountID: '012345678912' },
      username: '{{SessionName}}',
      groups: ['dev'],
    };
    const text = formatRoleMappingYaml(mapping);
    expect(text).toContain("username: '{{SessionName}}'");
    expect(text).toContain('accountID: "012345678912"');
    expect(parseAwsAuth({ mapRoles: text }).roles.map(stripRole)).toEqual([mapping]);
  });
});

describe('configMapDataFromManifest', () => {
  it('returns the data and the resourceVersion of a kubectl-style manifest', () => {
    const read = configMapDataFromManifest(manifest('one-bad-line-unmaps-every-role.yaml'));
    expect(read.ok && read.resourceVersion).toBe('48213');
    expect(read.ok && Object.keys(read.data).sort()).toEqual(['mapAccounts', 'mapRoles', 'mapUsers']);
  });

  it('rejects what the API server would not store: numbers as data values, bad keys, other kinds, broken YAML', () => {
    const result = (text: string) => {
      const r = configMapDataFromManifest(text);
      return r.ok ? 'ok' : `${r.line}: ${r.error}`;
    };
    expect(result('kind: ConfigMap\ndata:\n  mapAccounts: 555555555555\n')).toMatch(/^3: .*must be strings/);
    expect(result('kind: ConfigMap\ndata:\n  "map roles": |\n    - x\n')).toMatch(
      /^3: .*not a valid ConfigMap key/,
    );
    expect(result('kind: Secret\ndata: {}\n')).toMatch(/not a ConfigMap/);
    expect(result('kind: ConfigMap\ndata: [\n')).toMatch(/not valid YAML/);
    expect(result('kind: ConfigMap\ndata:\n  mapRoles:\n')).toBe('ok');
  });
});
