/**
 * The recorded field-name matches (test/fixtures/aws-auth/go-field-fold.json) are still what the Go
 * reference's encoding/json answers, so test/core/aws-auth-field-fold.test.ts pins the
 * authenticator's rule, not a stale copy. The 80-million-key substitution sweep is left to the
 * recorder (tools/go-reference/record-fold-fixtures.ts); the rune sweep and every key run here.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FOLD_FIXTURE, type FoldFixtures, foldFixtureKeys } from '../support/go-field-fold.ts';
import { ensureReference } from '../support/go-reference.ts';

describe('go-field-fold.json: the recorded answers are the Go reference’s', () => {
  it('gives the recorded ASCII folds and the recorded field for every key', () => {
    const fixture = JSON.parse(readFileSync(FOLD_FIXTURE, 'utf8')) as FoldFixtures;
    const keys = fixture.keys.map((k) => k.key);
    expect(keys).toEqual(foldFixtureKeys());
    const go = JSON.parse(
      execFileSync(ensureReference(), ['-fold-fixtures'], { input: JSON.stringify(keys), encoding: 'utf8' }),
    ) as FoldFixtures;
    expect(go.go).toBe(fixture.go);
    expect(go.asciiFolds).toEqual(fixture.asciiFolds);
    expect(go.keys).toEqual(fixture.keys.map(({ nonAscii: _, ...answer }) => answer));
  }, 120_000);
});
