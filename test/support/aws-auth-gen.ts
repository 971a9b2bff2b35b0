/**
 * fast-check generator of aws-auth ConfigMap `data` for the differential test against the
 * authenticator's own decoder (test/core/aws-auth.differential.test.ts). Mostly realistic mapRoles / mapUsers /
 * mapAccounts, rendered in block or flow style, then mutated at the text level so that every
 * libyaml corner listed in issue 9 shows up: tabs anywhere, every line-break kind (LF, CRLF, CR,
 * NEL, LS, PS), BOM, escapes (`\/`, `\x`, `\u`, `\U`, invalid), directives, document markers and
 * several documents, quoted and flow continuation lines (indented or not), anchors and aliases
 * (valid and broken), comments in odd places, field-name case folding (ASCII case variants and
 * non-ASCII spellings: `ı`, `İ`, `ſ`, Kelvin `K`, `ß`/`ẞ`, Greek sigmas, combining marks,
 * look-alikes), wrong types, duplicates (exact and case-variant), empty and skippable values, block
 * scalars with every chomping indicator and with or without the final newline.
 *
 * Everything is built from shrinkable fast-check values, so a disagreement can be minimised.
 */
import fc from 'fast-check';
import { nonAsciiSpellings } from './go-field-fold.ts';

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

type ScalarStyle = 'plain' | 'single' | 'double' | 'literal' | 'folded';
type Escape = 'none' | 'slash' | 'x' | 'u' | 'U' | 'tab' | 'invalid' | 'nel';

export type Val =
  | {
      k: 'scalar';
      text: string;
      style: ScalarStyle;
      esc: Escape;
      /** Block scalar header: chomping / indentation indicator. */
      chomp: '' | '-' | '+' | '2' | '-2';
      /** Quoted scalars: break the line at the first space, continuation indented by this. */
      cont: number | null;
      anchor: string | null;
      tag: string | null;
    }
  /** An alias to the last anchor rendered before it, or to `name` when broken or none was. */
  | { k: 'alias'; name: string; broken: boolean }
  | { k: 'list'; items: Val[]; flow: boolean; cont: number | null; anchor: string | null; dashIndent: 0 | 2 }
  | { k: 'map'; fields: Field[]; flow: boolean; anchor: string | null }
  | { k: 'raw'; text: string };

export interface Field {
  name: string;
  value: Val;
}

export type Mutation =
  | { m: 'linebreaks'; kind: string; all: boolean; at: number }
  | { m: 'insert'; text: string; at: number }
  | { m: 'delete'; at: number; len: number }
  | { m: 'indent'; line: number; delta: -1 | 1 | 2 }
  | { m: 'tabIndent'; line: number }
  | { m: 'prefix'; text: string }
  | { m: 'suffix'; text: string }
  | { m: 'comment'; line: number; text: string }
  | { m: 'dropFinalNewline' }
  | { m: 'duplicateLine'; line: number }
  | { m: 'uniformIndent'; n: number };

// ---------------------------------------------------------------------------------------------
// Realistic pieces
// ---------------------------------------------------------------------------------------------

const ACCOUNTS = ['111122223333', '444455556666', '000000000000', '012345678901'];
const ROLE_NAMES = [
  'eks-node-a',
  'eks-node-b',
  'fargate-pod-execution',
  'admin',
  'team/dev/deployer',
  'KarpenterNodeRole-prod',
  'AWSReservedSSO_Admin_0123456789abcdef',
];
const GROUPS = [
  'system:bootstrappers',
  'system:nodes',
  'system:masters',
  'system:node-proxier',
  'view',
  'team-a',
];
const USERNAMES = [
  'system:node:{{EC2PrivateDNSName}}',
  'system:node:{{SessionName}}',
  'admin',
  'ops:{{SessionName}}',
  'deployer-{{AccountID}}',
  'é-ops',
];

/**
 * Field-name spellings: ASCII case variants (which Go matches), and non-ASCII ones from
 * go-field-fold.ts: one letter replaced by a character whose case mappings make it look like that
 * letter (`ı`, `İ`, `ſ`, Kelvin `K`, `ß`/`ẞ` for ss, Greek sigmas, combining marks, Cyrillic and
 * full-width look-alikes, ligatures), which Go matches only for `ſ` and `K`. Unknown names include
 * Kelvin and ligature spellings of names that are no field.
 */
const ASCII_VARIANTS: Record<string, string[]> = {
  rolearn: ['roleARN', 'RoleArn', 'ROLEARN', 'rOlEaRn'],
  userarn: ['userARN', 'UserArn', 'USERARN'],
  username: ['userName', 'UserName', 'USERNAME'],
  groups: ['Groups', 'GROUPS', 'gRoUpS'],
  userid: ['userID', 'USERID', 'UserId'],
  sso: ['SSO', 'Sso', 'sSo'],
  permissionSetName: ['permissionsetname', 'PermissionSetName', 'PERMISSIONSETNAME'],
  accountID: ['accountId', 'AccountID', 'ACCOUNTID', 'accountid'],
  partition: ['Partition', 'PARTITION', 'pArTiTiOn'],
  unknown: ['rolearns', 'role_arn', 'Kind', 'arn', 'userid2', 'extra'],
};

/** The issue's own examples, mixed case and a stand-in together. */
const MIXED: Record<string, string[]> = {
  permissionSetName: ['permİSsionSetName', 'PermıssionſetName'],
  partition: ['partİtion', 'PARTıTION'],
  accountID: ['accountİD', 'ACCOUNTıd'],
  userid: ['userİd', 'USERıD'],
  unknown: ['\u212aelvin', '\u212aind', 'ﬁeld', 'userıd2'],
};

const NON_ASCII_VARIANTS: Record<string, string[]> = Object.fromEntries(
  Object.keys(ASCII_VARIANTS).map((name) => [
    name,
    name === 'unknown'
      ? (MIXED.unknown as string[])
      : [...nonAsciiSpellings(name), ...nonAsciiSpellings(name.toUpperCase()), ...(MIXED[name] ?? [])],
  ]),
);

/** Finds a generated non-ASCII field-name spelling in a document's text (no value contains one). */
export const NON_ASCII_NAME_RE = new RegExp(
  [...new Set(Object.values(NON_ASCII_VARIANTS).flat())]
    .sort((a, b) => b.length - a.length)
    .map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|'),
  'u',
);

/** Mostly the canonical name, as people write it; about one time in twelve an ASCII case variant, one in twenty-four a non-ASCII spelling. */
const fieldName = (canonical: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 20, arbitrary: fc.constant(canonical === 'unknown' ? 'rolearns' : canonical) },
    { weight: 2, arbitrary: fc.constantFrom(...(ASCII_VARIANTS[canonical] ?? [canonical])) },
    { weight: 1, arbitrary: fc.constantFrom(...(NON_ASCII_VARIANTS[canonical] ?? [canonical])) },
  );

/** `a` once in `oneIn` draws, else null (shrinks to null). */
const rarely = <T>(a: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: a });

const anchorName = fc.constantFrom('a', 'b', 'node', 'x1');

const scalarStyle: fc.Arbitrary<ScalarStyle> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('plain' as const) },
  { weight: 3, arbitrary: fc.constant('double' as const) },
  { weight: 3, arbitrary: fc.constant('single' as const) },
  { weight: 1, arbitrary: fc.constant('literal' as const) },
  { weight: 1, arbitrary: fc.constant('folded' as const) },
);

const escapeKind: fc.Arbitrary<Escape> = fc.oneof(
  { weight: 8, arbitrary: fc.constant('none' as const) },
  { weight: 1, arbitrary: fc.constantFrom<Escape>('slash', 'x', 'u', 'U', 'tab', 'invalid', 'nel') },
);

function scalar(text: fc.Arbitrary<string>): fc.Arbitrary<Val> {
  return fc
    .record({
      text,
      style: scalarStyle,
      esc: escapeKind,
      chomp: fc.constantFrom<'' | '-' | '+' | '2' | '-2'>('', '', '', '-', '+', '2', '-2'),
      cont: rarely(fc.constantFrom(0, 1, 2, 4, 4, 6), 25),
      anchor: rarely(anchorName, 12),
      tag: rarely(fc.constantFrom('!!str', '!!str', '!!int', '!', '!foo', '!<tag:yaml.org,2002:str>'), 150),
    })
    .map((r) => ({ k: 'scalar' as const, ...r }));
}

const roleArn = fc
  .tuple(
    fc.constantFrom('aws', 'aws', 'aws', 'aws-cn', 'aws-us-gov'),
    fc.constantFrom(...ACCOUNTS),
    fc.constantFrom(...ROLE_NAMES),
  )
  .map(([p, a, r]) => `arn:${p}:iam::${a}:role/${r}`);
const userArn = fc
  .tuple(fc.constantFrom(...ACCOUNTS), fc.constantFrom('ops', 'alice', 'bob.smith', 'ci@corp'))
  .map(([a, u]) => `arn:aws:iam::${a}:user/${u}`);

/** Values of the wrong type, or skippable ones, for any field. */
const wrongValue: fc.Arbitrary<Val> = fc.oneof(
  fc
    .constantFrom(
      '123',
      '012',
      '0x1F',
      '1e3',
      '1_000',
      '.inf',
      'true',
      'yes',
      'on',
      'No',
      'off',
      '~',
      'null',
      '',
      '{}',
      '[]',
      '{a: b}',
      '[a, b]',
      '2001-12-14',
      '!!binary aGVsbG8=',
      '*missing',
      '&a x',
      '<<: *a',
      '"unterminated',
      '{{SessionName}}',
    )
    .map((text) => ({ k: 'raw' as const, text })),
  fc
    .record({
      name: anchorName,
      broken: fc.oneof(
        { weight: 4, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
    })
    .map((r) => ({ k: 'alias' as const, ...r })),
);

function groupsValue(): fc.Arbitrary<Val> {
  const item = fc.oneof(
    { weight: 25, arbitrary: scalar(fc.constantFrom(...GROUPS)) },
    { weight: 1, arbitrary: wrongValue },
  );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc
        .record({
          items: fc.array(item, { minLength: 0, maxLength: 3 }),
          flow: fc.boolean(),
          cont: rarely(fc.constantFrom(0, 1, 2, 4, 4), 15),
          anchor: rarely(anchorName, 10),
          dashIndent: fc.constantFrom<0 | 2>(2, 2, 0),
        })
        .map((r) => ({ k: 'list' as const, ...r })),
    },
    { weight: 1, arbitrary: scalar(fc.constantFrom(...GROUPS)) },
    { weight: 1, arbitrary: wrongValue },
  );
}

function ssoValue(): fc.Arbitrary<Val> {
  const fields = fc.tuple(
    fc.record({
      name: fieldName('permissionSetName'),
      value: scalar(fc.constantFrom('AdminAccess', 'ReadOnly', 'a b', 'x'.repeat(33), 'Power+User@=,.-')),
    }),
    fc.record({
      name: fieldName('accountID'),
      value: fc.oneof(
        scalar(fc.constantFrom(...ACCOUNTS, '12345', '1111222233334')),
        fc.constant<Val>({ k: 'raw', text: '"111122223333"' }),
      ),
    }),
    fc.option(
      fc.record({
        name: fieldName('partition'),
        value: scalar(fc.constantFrom('aws', 'aws-cn', 'aws-us-gov', 'aws-iso-f', 'aws-eusc', 'aws-foo', '')),
      }),
      { freq: 2 },
    ),
  );
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc
        .record({ fields, flow: fc.boolean(), anchor: rarely(anchorName, 15) })
        .map(({ fields: [a, b, c], flow, anchor }) => ({
          k: 'map' as const,
          fields: c ? [a, b, c] : [a, b],
          flow,
          anchor,
        })),
    },
    { weight: 1, arbitrary: scalar(fc.constantFrom('AdminAccess', '111122223333')) },
    { weight: 1, arbitrary: fc.constantFrom<Val>({ k: 'raw', text: '[a, b]' }, { k: 'raw', text: '~' }) },
  );
}

const maybeWrong = (v: fc.Arbitrary<Val>): fc.Arbitrary<Val> =>
  fc.oneof({ weight: 30, arbitrary: v }, { weight: 1, arbitrary: wrongValue });

function entryFields(kind: 'role' | 'user'): fc.Arbitrary<Field[]> {
  const arnField =
    kind === 'role'
      ? fc.oneof(
          {
            weight: 8,
            arbitrary: fc.record({ name: fieldName('rolearn'), value: maybeWrong(scalar(roleArn)) }),
          },
          { weight: 2, arbitrary: fc.record({ name: fieldName('sso'), value: ssoValue() }) },
          { weight: 1, arbitrary: fc.record({ name: fieldName('userarn'), value: scalar(userArn) }) },
        )
      : fc.record({ name: fieldName('userarn'), value: maybeWrong(scalar(userArn)) });
  const base = fc.tuple(
    arnField,
    fc.option(
      fc.record({ name: fieldName('username'), value: maybeWrong(scalar(fc.constantFrom(...USERNAMES))) }),
      {
        freq: 12,
      },
    ),
    fc.option(fc.record({ name: fieldName('groups'), value: groupsValue() }), { freq: 12 }),
    rarely(
      fc.record({ name: fieldName('userid'), value: scalar(fc.constantFrom('AROAEXAMPLE', 'AIDAEXAMPLE')) }),
      4,
    ),
    rarely(
      fc.record({ name: fieldName('unknown'), value: scalar(fc.constantFrom('x', 'arn:aws:iam::1:role/y')) }),
      10,
    ),
    // A second value for some field: exact or case-variant duplicate, or both rolearn and sso.
    rarely(
      fc.oneof(
        fc.record({ name: fieldName('groups'), value: groupsValue() }),
        fc.record({ name: fieldName('rolearn'), value: scalar(roleArn) }),
        fc.record({ name: fieldName('username'), value: maybeWrong(scalar(fc.constantFrom(...USERNAMES))) }),
        fc.record({ name: fieldName('sso'), value: ssoValue() }),
      ),
      8,
    ),
    fc.nat(),
  );
  return base.map(([arn, username, groups, userid, unknown, dup, order]) => {
    const fields = [arn, username, groups, userid, unknown].filter((f): f is Field => f !== null);
    if (dup) fields.splice(order % (fields.length + 1), 0, dup);
    // Mostly keep the arn first, as people write it; sometimes rotate.
    if (order % 7 === 3 && fields.length > 1) fields.push(fields.shift() as Field);
    return fields;
  });
}

const entry = (kind: 'role' | 'user'): fc.Arbitrary<Val> =>
  fc.oneof(
    {
      weight: 40,
      arbitrary: fc
        .record({
          fields: entryFields(kind),
          flow: fc.oneof(
            { weight: 8, arbitrary: fc.constant(false) },
            { weight: 1, arbitrary: fc.constant(true) },
          ),
          anchor: rarely(anchorName, 15),
        })
        .map((r) => ({ k: 'map' as const, ...r })),
    },
    { weight: 1, arbitrary: wrongValue },
  );

function entriesList(kind: 'role' | 'user'): fc.Arbitrary<Val> {
  return fc
    .record({
      items: fc.array(entry(kind), { minLength: 1, maxLength: 4 }),
      flow: fc.oneof(
        { weight: 12, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      cont: rarely(fc.constantFrom(0, 1, 2, 2), 15),
    })
    .map((r) => ({ k: 'list' as const, ...r, anchor: null, dashIndent: 0 as const }));
}

const accountsList: fc.Arbitrary<Val> = fc
  .record({
    items: fc.array(
      fc.oneof(
        { weight: 10, arbitrary: scalar(fc.constantFrom(...ACCOUNTS)) },
        { weight: 1, arbitrary: wrongValue },
      ),
      { minLength: 0, maxLength: 3 },
    ),
    flow: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    cont: rarely(fc.constantFrom(0, 1, 2, 2), 15),
  })
  .map((r) => ({ k: 'list' as const, ...r, anchor: null, dashIndent: 0 as const }));

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

const sp = (n: number): string => ' '.repeat(n);

function escapeDouble(text: string, esc: Escape): string {
  let s = text.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  switch (esc) {
    case 'slash':
      s = s.replace(/\//g, '\\/');
      break;
    case 'x':
      s = s.replace(/:/, '\\x3a');
      break;
    case 'u':
      s = s.replace(/:/, '\\u003A');
      break;
    case 'U':
      s = s.replace(/:/, '\\U0000003a');
      break;
    case 'tab':
      s = s.replace(/:/, ':\\t');
      break;
    case 'invalid':
      s = s.replace(/:/, '\\q:');
      break;
    case 'nel':
      s = s.replace(/:/, '\\N:');
      break;
    case 'none':
      break;
  }
  return s;
}

/** Anchors rendered so far in the current value, in text order (for valid aliases). */
let anchorsSeen: string[] = [];

function props(anchor: string | null, tag: string | null = null): string {
  if (anchor) anchorsSeen.push(anchor);
  return `${tag ? `${tag} ` : ''}${anchor ? `&${anchor} ` : ''}`;
}

/** Inline text of a value (no line breaks unless `cont`); `inFlow`: inside `[]` or `{}`. */
function renderFlow(v: Val, ind: number, inFlow = false): string {
  switch (v.k) {
    case 'scalar': {
      if (v.style === 'literal' || v.style === 'folded' || v.style === 'plain') {
        // As a person would write it: quoted inside a flow collection when it holds flow indicators.
        const text = inFlow && /[{}[\],]/.test(v.text) ? `'${v.text}'` : v.text;
        return `${props(v.anchor, v.tag)}${text}`;
      }
      return `${props(v.anchor, v.tag)}${quoted(v, ind)}`;
    }
    case 'alias': {
      const target = v.broken ? v.name : anchorsSeen.at(-1);
      return target ? `*${target}` : 'system:nodes';
    }
    case 'raw':
      return v.text;
    case 'list': {
      const sep = v.cont !== null ? `,\n${sp(v.cont)}` : ', ';
      return `${props(v.anchor)}[${v.items.map((i) => renderFlow(i, ind, true)).join(sep)}]`;
    }
    case 'map':
      return `${props(v.anchor)}{${v.fields.map((f) => `${f.name}: ${renderFlow(f.value, ind, true)}`).join(', ')}}`;
  }
}

function quoted(v: Val & { k: 'scalar' }, ind: number): string {
  let body = v.style === 'single' ? v.text.replace(/'/g, "''") : escapeDouble(v.text, v.esc);
  if (v.cont !== null) {
    const at = body.search(/[ :/]/);
    if (at > 0)
      body = `${body.slice(0, at + 1)}\n${sp(v.cont === 0 ? 0 : Math.max(0, ind + v.cont - 2))}${body.slice(at + 1)}`;
  }
  return v.style === 'single' ? `'${body}'` : `"${body}"`;
}

/** The text after `key:` for a value whose key sits at column `ind`; always ends with a line break. */
function renderAfterKey(v: Val, ind: number): string {
  switch (v.k) {
    case 'scalar':
      if (v.style === 'literal' || v.style === 'folded') {
        const header = v.style === 'literal' ? '|' : '>';
        return ` ${props(v.anchor, v.tag)}${header}${v.chomp}\n${sp(ind + 2)}${v.text}\n`;
      }
      return ` ${renderFlow(v, ind + 2)}\n`;
    case 'alias':
    case 'raw':
      return ` ${renderFlow(v, ind)}\n`;
    case 'list':
      if (v.flow) return ` ${renderFlow(v, ind + 2)}\n`;
      if (v.items.length === 0) return ` ${props(v.anchor)}[]\n`;
      return `${props(v.anchor).replace(/^(.+) $/, ' $1')}\n${renderBlockList(v.items, ind + v.dashIndent)}`;
    case 'map':
      if (v.flow) return ` ${renderFlow(v, ind + 2)}\n`;
      return `${props(v.anchor).replace(/^(.+) $/, ' $1')}\n${renderBlockMapFields(v.fields, ind + 2)}`;
  }
}

function renderBlockMapFields(fields: Field[], ind: number, firstInline = false): string {
  return fields
    .map((f, i) => `${i === 0 && firstInline ? '' : sp(ind)}${f.name}:${renderAfterKey(f.value, ind)}`)
    .join('');
}

function renderBlockList(items: Val[], ind: number): string {
  return items
    .map((item) => {
      if (item.k === 'map' && !item.flow && item.fields.length > 0) {
        const anchor = props(item.anchor);
        return `${sp(ind)}- ${anchor}${renderBlockMapFields(item.fields, ind + 2, true)}`;
      }
      if (item.k === 'scalar' && (item.style === 'literal' || item.style === 'folded')) {
        return `${sp(ind)}-${renderAfterKey(item, ind)}`;
      }
      return `${sp(ind)}- ${renderFlow(item, ind + 2)}\n`;
    })
    .join('');
}

function renderTop(v: Val): string {
  anchorsSeen = [];
  if (v.k === 'list' && !v.flow) return v.items.length ? renderBlockList(v.items, 0) : '[]\n';
  return `${renderFlow(v, 0)}\n`;
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

const BREAKS = ['\r\n', '\r', '\u0085', '\u2028', '\u2029'];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      m: fc.constant('linebreaks' as const),
      kind: fc.constantFrom(...BREAKS),
      all: fc.boolean(),
      at: fc.nat(),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      m: fc.constant('insert' as const),
      text: fc.constantFrom(
        '\t',
        ' \t',
        '\t\n',
        '\n\t\n',
        ' ',
        '#',
        ' #',
        ':',
        '-',
        '[',
        ']',
        '{',
        '}',
        '"',
        "'",
        '&',
        '*',
        '!',
        '|',
        '>',
        '%',
        '@',
        '`',
        ',',
        '?',
        '\\',
        '\ufeff',
        '\u00a0',
        'ı',
      ),
      at: fc.nat(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      m: fc.constant('delete' as const),
      at: fc.nat(),
      len: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      m: fc.constant('indent' as const),
      line: fc.nat(),
      delta: fc.constantFrom<-1 | 1 | 2>(-1, 1, 2),
    }),
  },
  { weight: 1, arbitrary: fc.record({ m: fc.constant('tabIndent' as const), line: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      m: fc.constant('prefix' as const),
      text: fc.constantFrom(
        '\ufeff',
        '---\n',
        '--- ',
        '...\n',
        '%YAML 1.1\n---\n',
        '%YAML 1.2\n---\n',
        '%YAML 1.1\n',
        '%TAG !e! tag:example.com,2000:\n---\n',
        '%FOO bar\n---\n',
        '# comment\n',
        '\n\n',
        '\t\n',
        ' \n',
        '  ',
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      m: fc.constant('suffix' as const),
      text: fc.constantFrom(
        '\t\n',
        '\t',
        '...\n',
        '---\n',
        '---\n- rolearn: arn:aws:iam::111122223333:role/second-document\n  username: x\n',
        '...\n- rolearn: arn:aws:iam::111122223333:role/after-end\n',
        'foo: bar\n',
        '# trailing comment',
        '\n\n\n',
        ' \n',
        '- \n',
        '-\n',
        '[-]\n',
      ),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      m: fc.constant('comment' as const),
      line: fc.nat(),
      text: fc.constantFrom(' # note', '# note', '#note', '\t# note', ' #'),
    }),
  },
  { weight: 3, arbitrary: fc.constant<Mutation>({ m: 'dropFinalNewline' }) },
  { weight: 2, arbitrary: fc.record({ m: fc.constant('duplicateLine' as const), line: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({ m: fc.constant('uniformIndent' as const), n: fc.integer({ min: 1, max: 4 }) }),
  },
);

function applyMutation(text: string, mu: Mutation): string {
  const lines = text.split('\n');
  const pick = (n: number) => n % Math.max(1, lines.length);
  switch (mu.m) {
    case 'linebreaks': {
      if (mu.all) return text.replace(/\n/g, mu.kind);
      const positions = [...text.matchAll(/\n/g)].map((m) => m.index);
      if (positions.length === 0) return text;
      const at = positions[mu.at % positions.length] as number;
      return `${text.slice(0, at)}${mu.kind}${text.slice(at + 1)}`;
    }
    case 'insert': {
      const at = mu.at % (text.length + 1);
      return `${text.slice(0, at)}${mu.text}${text.slice(at)}`;
    }
    case 'delete': {
      if (text.length === 0) return text;
      const at = mu.at % text.length;
      return `${text.slice(0, at)}${text.slice(at + mu.len)}`;
    }
    case 'indent': {
      const i = pick(mu.line);
      const line = lines[i] ?? '';
      lines[i] = mu.delta < 0 ? line.replace(/^ /, '') : `${sp(mu.delta)}${line}`;
      return lines.join('\n');
    }
    case 'tabIndent': {
      const i = pick(mu.line);
      lines[i] = (lines[i] ?? '').replace(/^( +)/, (s) => `\t${s.slice(1)}`);
      return lines.join('\n');
    }
    case 'prefix':
      return `${mu.text}${text}`;
    case 'suffix':
      return `${text}${mu.text}`;
    case 'comment': {
      const i = pick(mu.line);
      const line = lines[i] ?? '';
      // Odd places: right after an opening bracket or a quote when the line has one, else at the end.
      const bracket = line.search(/[[{]/);
      const quote = line.search(/["'](?=\s*$)/);
      if (bracket >= 0 && mu.text !== ' #')
        lines[i] = `${line.slice(0, bracket + 1)}${mu.text}\n${line.slice(bracket + 1)}`;
      else if (quote >= 0) lines[i] = `${line}${mu.text.trimStart()}`;
      else lines[i] = `${line}${mu.text}`;
      return lines.join('\n');
    }
    case 'dropFinalNewline':
      return text.replace(/\n+$/, '');
    case 'duplicateLine': {
      const i = pick(mu.line);
      lines.splice(i, 0, lines[i] ?? '');
      return lines.join('\n');
    }
    case 'uniformIndent':
      return lines.map((l) => (l === '' ? l : `${sp(mu.n)}${l}`)).join('\n');
  }
}

const SKIPPABLE = [
  '',
  "''",
  '""',
  '``',
  '  ',
  '\n',
  '~',
  'null',
  '# only a comment\n',
  '[]',
  '{}',
  '---\n',
  '"',
  ' `` ',
];

/** One data value: a rendered list with mutations, or (rarely) an empty / skippable one. */
function valueText(list: fc.Arbitrary<Val>, mutationFreq: number): fc.Arbitrary<string> {
  const rendered = fc
    .record({
      v: list,
      mutations: fc.array(mutation, { minLength: 1, maxLength: 2 }),
      mutate: fc.integer({ min: 0, max: 99 }),
    })
    .map(({ v, mutations, mutate }) => {
      const text = renderTop(v);
      return mutate < mutationFreq ? mutations.reduce(applyMutation, text) : text;
    });
  return fc.oneof(
    { weight: 24, arbitrary: rendered },
    { weight: 1, arbitrary: fc.constantFrom(...SKIPPABLE) },
  );
}

export interface GenOptions {
  /** Percentage of values that get text mutations (default 30). */
  mutationPercent?: number;
}

/** aws-auth ConfigMap `data`: mapRoles / mapUsers / mapAccounts, each usually present. */
export function awsAuthData(options: GenOptions = {}): fc.Arbitrary<Record<string, string>> {
  const freq = options.mutationPercent ?? 30;
  return fc
    .record({
      mapRoles: fc.option(valueText(entriesList('role'), freq), { freq: 12 }),
      mapUsers: fc.option(valueText(entriesList('user'), freq), { freq: 3 }),
      mapAccounts: fc.option(valueText(accountsList, freq), { freq: 2 }),
    })
    .map((r) => {
      const data: Record<string, string> = {};
      if (r.mapRoles !== null) data.mapRoles = r.mapRoles;
      if (r.mapUsers !== null) data.mapUsers = r.mapUsers;
      if (r.mapAccounts !== null) data.mapAccounts = r.mapAccounts;
      return data;
    });
}
