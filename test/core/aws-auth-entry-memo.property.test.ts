import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  awsAuthFastPathAccepts,
  parseAwsAuth,
  parseAwsAuthShared,
  withAwsAuthMemo,
} from '../../shared/core/aws-auth/index.ts';

/**
 * Inside one evaluation a parse takes the entries it shares with an earlier parse from there
 * (shared/core/aws-auth/entry-memo.ts). Whatever the documents, the result must be exactly a
 * fresh parse's: the second (and third) document is an edit of the first — entries inserted,
 * deleted, changed, reordered, duplicated — with clean entries and entries that have issues or
 * leave the fast path's subset.
 */

const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 2_000) };

const VALUES = [
  'arn:aws:iam::111122223333:role/node',
  'arn:aws:iam::111122223333:role/admin',
  'arn:aws:iam::111122223333:user/ops',
  'system:node:{{EC2PrivateDNSName}}',
  'admin:{{SessionName}}',
  'system:nodes',
  'system:masters',
  "'quoted'",
  '"double"',
  'yes',
  '12',
  '',
  'a: b',
  '- x',
  '# c',
  '---',
  'ü',
];
const NAMES = [
  'rolearn',
  'rolearn',
  'userarn',
  'userarn',
  'username',
  'username',
  'groups',
  'Groups',
  'userid',
  'foo',
  'sso',
];

/** One entry's lines at a root indent (`{R}` stands for it; `{K}` for the data key's ARN field, `{T}` for role or user), any fields and values. */
const messyEntry = fc
  .record({
    fields: fc.array(
      fc.record({
        name: fc.constantFrom(...NAMES),
        value: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...VALUES).map((v) => ` ${v}`) },
          {
            weight: 2,
            arbitrary: fc
              .array(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 3 })
              .map((vs) => vs.map((v) => `\n{R}    - ${v}`).join('')),
          },
          { weight: 1, arbitrary: fc.constantFrom(' []', '', '  ') },
        ),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    blankAfter: fc.constantFrom('', '', '', '\n', '  \n'),
  })
  .map(
    ({ fields, blankAfter }) =>
      `${fields.map((f, i) => `{R}${i === 0 ? '- ' : '  '}${f.name}:${f.value}`).join('\n')}\n${blankAfter}`,
  );

/** An entry as EKS, eksctl or Terraform write it: in the fast path's subset, without an issue. */
const cleanEntry = fc
  .record({
    arn: fc.constantFrom('node', 'admin', 'dev', 'ops', 'a/b'),
    user: fc.constantFrom('system:node:{{EC2PrivateDNSName}}', 'admin', "'quoted'"),
    groups: fc.array(fc.constantFrom('system:nodes', 'system:bootstrappers', 'team'), { maxLength: 2 }),
  })
  .map(
    ({ arn, user, groups }) =>
      `{R}- {K}: arn:aws:iam::111122223333:{T}/${arn}\n{R}  username: ${user}\n${groups.length === 0 ? '' : `{R}  groups:\n${groups.map((g) => `{R}    - ${g}\n`).join('')}`}`,
  );

const entryText = fc.oneof({ weight: 8, arbitrary: cleanEntry }, { weight: 1, arbitrary: messyEntry });

type Edit =
  | { op: 'insert'; at: number; entry: string }
  | { op: 'delete'; at: number }
  | { op: 'change'; at: number; entry: string }
  | { op: 'move'; from: number; to: number }
  | { op: 'duplicate'; at: number };

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), entry: entryText }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('change' as const), at: fc.nat(), entry: entryText }),
  fc.record({ op: fc.constant('move' as const), from: fc.nat(), to: fc.nat() }),
  fc.record({ op: fc.constant('duplicate' as const), at: fc.nat() }),
);

function applyEdits(entries: string[], edits: Edit[]): string[] {
  const out = [...entries];
  for (const e of edits) {
    const n = out.length;
    if (e.op === 'insert') out.splice(e.at % (n + 1), 0, e.entry);
    else if (n === 0) continue;
    else if (e.op === 'delete') out.splice(e.at % n, 1);
    else if (e.op === 'change') out[e.at % n] = e.entry;
    else if (e.op === 'duplicate') out.splice(e.at % n, 0, out[e.at % n] as string);
    else {
      const [moved] = out.splice(e.from % n, 1);
      out.splice(e.to % n, 0, moved as string);
    }
  }
  return out;
}

function documentOf(key: string, entries: string[], indent: string, head: string, trimEnd: boolean): string {
  const roles = key === 'mapRoles';
  const text = (head + entries.join(''))
    .replaceAll('{R}', indent)
    .replaceAll('{K}', roles ? 'rolearn' : 'userarn')
    .replaceAll('{T}', roles ? 'role' : 'user');
  return trimEnd ? text.replace(/\n+$/, '') : text;
}

const scenario = fc.record({
  key: fc.constantFrom('mapRoles', 'mapUsers'),
  entries: fc.array(entryText, { minLength: 0, maxLength: 8 }),
  edits: fc.array(fc.array(edit, { maxLength: 4 }), { minLength: 1, maxLength: 2 }),
  indent: fc.constantFrom('', '', '  '),
  head: fc.constantFrom('', '', '', '', '\n', '# c\n'),
  trimEnd: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
});

describe('aws-auth entries reused between parses of one evaluation', () => {
  it('gives exactly what a fresh parse gives, for every document of the evaluation', () => {
    let reusable = 0;
    fc.assert(
      fc.property(scenario, ({ key, entries, edits, indent, head, trimEnd }) => {
        const lists = [entries];
        for (const e of edits) lists.push(applyEdits(lists[lists.length - 1] as string[], e));
        const docs = lists.map((l, i) => ({ [key]: documentOf(key, l, indent, head, trimEnd[i] ?? false) }));
        const memoised = withAwsAuthMemo(() => docs.map((d) => parseAwsAuthShared(d)));
        docs.forEach((d, i) => {
          const fresh = parseAwsAuth(d);
          if (!isDeepStrictEqual(memoised[i], fresh)) {
            throw new Error(
              `document ${i} differs: ${JSON.stringify(docs)}\nmemo ${JSON.stringify(memoised[i])}\nfresh ${JSON.stringify(fresh)}`,
            );
          }
        });
        const clean =
          (memoised[0]?.issues.length ?? 1) === 0 &&
          (memoised[0]?.roles.length ?? 0) + (memoised[0]?.users.length ?? 0) > 0;
        if (clean && docs.every((d) => awsAuthFastPathAccepts(d[key] as string))) reusable++;
      }),
      RUNS,
    );
    // Not vacuous: many evaluations are all in the fast path's subset, where entries are reused.
    expect(reusable).toBeGreaterThan(RUNS.numRuns / 20);
  });

  it('does not share a mapping object or groups array with the parse it reused entries from', () => {
    const a = '- rolearn: arn:aws:iam::111122223333:role/a\n  username: a\n  groups:\n    - g\n';
    const b = `${a}- rolearn: arn:aws:iam::111122223333:role/b\n  username: b\n`;
    const [first, second] = withAwsAuthMemo(() => [
      parseAwsAuthShared({ mapRoles: a }),
      parseAwsAuthShared({ mapRoles: b }),
    ]);
    expect(second?.roles[0]).toEqual(first?.roles[0]);
    expect(second?.roles[0]).not.toBe(first?.roles[0]);
    expect(second?.roles[0]?.groups).not.toBe(first?.roles[0]?.groups);
    expect(second).toEqual(parseAwsAuth({ mapRoles: b }));
  });
});
