/**
 * Issue 9 item 3: one fixture per libyaml / encoding/json quirk under
 * test/fixtures/aws-auth/go-yaml/, each with the authenticator's result recorded next to it
 * (`<name>.expected.json`, written by tools/go-reference/record-fixtures.ts from the Go reference).
 * First half: the Go reference still gives the recorded results, so the fixtures are provably the
 * authenticator's. Second half: parseAwsAuth gives them too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMapDataFromManifest } from '../../shared/core/aws-auth/index.ts';
import { compareDocument } from '../support/differential-compare.ts';
import { type GoReference, type GoResult, startReference } from '../support/go-reference.ts';
import { AUTHENTICATOR, GO_YAML_FIXTURES, recordable } from '../support/go-yaml-fixtures.ts';

const NAMES = readdirSync(GO_YAML_FIXTURES)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -'.yaml'.length))
  .sort();

const manifest = (name: string) => readFileSync(`${GO_YAML_FIXTURES}${name}.yaml`, 'utf8');
const expected = (name: string) =>
  JSON.parse(readFileSync(`${GO_YAML_FIXTURES}${name}.expected.json`, 'utf8')) as GoResult & {
    authenticator: string;
  };

let ref: GoReference;
let answers: Map<string, GoResult>;

beforeAll(async () => {
  ref = startReference();
  const got = await ref.decode(NAMES.map((name) => ({ id: name, manifest: manifest(name) })));
  answers = new Map(got.map((g, i) => [NAMES[i] as string, g]));
}, 120_000);

afterAll(async () => {
  await ref?.close();
});

describe('go-yaml quirk fixtures: the recorded results are the authenticator’s', () => {
  it('has a fixture and a recorded result for every quirk issue 9 lists', () => {
    expect(NAMES.length).toBeGreaterThanOrEqual(26);
    for (const name of NAMES) expect(expected(name).authenticator, name).toBe(AUTHENTICATOR);
  });

  it.each(NAMES)('the Go reference still decodes %s as recorded', (name) => {
    const { authenticator: _, ...recorded } = expected(name);
    expect(recordable(answers.get(name) as GoResult)).toEqual(recorded);
  });
});

describe('go-yaml quirk fixtures: parseAwsAuth reads them as the authenticator does', () => {
  for (const name of NAMES) {
    it(`${name}: same key statuses and mappings`, () => {
      const recorded = expected(name);
      const read = configMapDataFromManifest(manifest(name));
      if (!read.ok) throw new Error(`the manifest did not read: ${read.error}`);
      expect(read.data).toEqual(recorded.data);
      expect(compareDocument(read.data, recorded)).toEqual([]);
    });
  }
});
