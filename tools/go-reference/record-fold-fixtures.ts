/**
 * Records how the authenticator's encoding/json matches field names (Go 1.26's folding, see
 * build.sh) into test/fixtures/aws-auth/go-field-fold.json: the runes whose fold is an ASCII
 * letter (a sweep of every rune), the sweep of every field name with one letter replaced by any
 * rune, and the field each of the keys below sets in RoleMapping, UserMapping and SSOARNMatcher.
 * test/core/aws-auth/field-fold.test.ts checks the product against it without Go;
 * test/core/go-field-fold.differential.test.ts checks the reference still answers the same.
 * Run: `npx tsx tools/go-reference/record-fold-fixtures.ts && npx biome format --write test/fixtures/aws-auth`.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import {
  FOLD_FIXTURE,
  type FoldFixtures,
  foldFixtureKeys,
  nonAsciiCodes,
} from '../../test/support/go-field-fold.ts';
import { ensureReference } from '../../test/support/go-reference.ts';

const keys = foldFixtureKeys();
const out = execFileSync(ensureReference(), ['-fold-fixtures', '-sweep'], {
  input: JSON.stringify(keys),
  encoding: 'utf8',
  maxBuffer: 64 << 20,
});
// One line per key, so that the table reads as a table.
const { keys: answers, ...rest } = JSON.parse(out) as FoldFixtures;
const head = JSON.stringify(rest, null, 2).slice(0, -2);
const rows = answers
  .map(({ key, ...fields }) => {
    const codes = nonAsciiCodes(key);
    return `    ${JSON.stringify({ key, ...(codes ? { nonAscii: codes } : {}), ...fields })}`;
  })
  .join(',\n');
writeFileSync(FOLD_FIXTURE, `${head},\n  "keys": [\n${rows}\n  ]\n}\n`);
console.log(`recorded ${keys.length} keys in ${FOLD_FIXTURE}`);
