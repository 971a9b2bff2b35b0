/**
 * Field-name matching as the authenticator's encoding/json does it (Go 1.26: exact name first,
 * then the first field whose fold equals the key's fold, a rune folding to the smallest rune of its
 * unicode.SimpleFold orbit), pinned by answers recorded from the Go reference
 * (test/fixtures/aws-auth/go-field-fold.json, tools/go-reference/record-fold-fixtures.ts), so no Go
 * toolchain is needed here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { goFold, matchField } from '../../shared/core/aws-auth/go-text.ts';
import { parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { ROLE_FIELDS, SSO_FIELDS, USER_FIELDS } from '../../shared/core/aws-auth/upstream.ts';
import { FIELD_NAMES, FOLD_FIXTURE, type FoldFixtures } from '../support/go-field-fold.ts';

const codePoint = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
const fixture = JSON.parse(readFileSync(FOLD_FIXTURE, 'utf8')) as FoldFixtures;

describe('field names matched as Go encoding/json matches them (recorded from the Go reference)', () => {
  it('records the Go 1.26 rule: Go 1.19 foldFunc agrees on all 80 million one-rune substitutions', () => {
    expect(fixture.go).toContain('Go 1.26 field folding');
    expect(fixture.substitutions?.tried).toBeGreaterThan(80_000_000);
    expect(fixture.substitutions?.stockGo119Differs).toBe(0);
  });

  it.each([
    ['RoleMapping', ROLE_FIELDS],
    ['UserMapping', USER_FIELDS],
    ['SSOARNMatcher', SSO_FIELDS],
  ] as const)('matches every recorded key to the field %s decodes it into', (struct, fields) => {
    const got = fixture.keys.map(({ key }) => ({ key, field: matchField<string>(key, fields) ?? null }));
    const want = fixture.keys.map((k) => ({ key: k.key, field: k[struct] ?? null }));
    expect(got).toEqual(want);
    expect(fixture.keys.length).toBeGreaterThan(500);
  });

  it('folds into ASCII exactly the runes Go does (every code point above U+007F)', () => {
    const toAscii: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const f = goFold(String.fromCodePoint(cp));
      if (f.length === 1 && f.charCodeAt(0) < 0x80) toAscii.push(`${codePoint(cp)}→${f}`);
    }
    expect(toAscii).toEqual(fixture.asciiFolds.map((a) => `${a.rune}→${a.fold}`));
  });

  it('matches every one-rune substitution of a field name that Go matches', () => {
    const all = [...ROLE_FIELDS, ...USER_FIELDS, ...SSO_FIELDS];
    expect([...new Set(all)].sort()).toEqual([...FIELD_NAMES].sort());
    for (const key of fixture.substitutions?.matching ?? []) {
      expect(matchField<string>(key, all), key).toBeDefined();
    }
  });

  it('leaves İ and ı unmatched: partİtion sets no partition, the SSO matcher keeps the default one', () => {
    const parsed = parseAwsAuth({
      mapRoles:
        '- sso:\n    permissionSetName: Admin\n    accountID: "012345678912"\n    partİtion: aws-cn\n  username: u\n',
    });
    expect(parsed.roles.map((r) => r.sso)).toEqual([
      { permissionSetName: 'Admin', accountID: '012345678912', partition: undefined },
    ]);
    expect(parsed.issues.map((i) => i.kind)).toEqual(['unknown-field']);
    expect(parsed.issues[0]?.message).toContain('İ (U+0130)');
  });

  it('leaves permİSsionSetName unmatched: the entry has no permission set and is dropped', () => {
    const parsed = parseAwsAuth({
      mapRoles: '- sso:\n    permİSsionSetName: Admin\n    accountID: "012345678912"\n  username: u\n',
    });
    expect(parsed.roles).toEqual([]);
    expect(parsed.issues.map((i) => i.kind)).toEqual(['unknown-field', 'invalid-entry']);
    expect(parsed.issues[1]?.message).toContain(
      "PermissionSetName '' is not a valid AWS SSO PermissionSet Name",
    );
  });
});
