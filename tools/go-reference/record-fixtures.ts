/**
 * Records the authenticator's result next to every go-yaml quirk fixture:
 * `test/fixtures/aws-auth/go-yaml/<name>.yaml` → `<name>.expected.json`, written from the Go
 * reference's answer (the manifest read as the API server stores it, then ParseMap).
 * Run: `npx tsx tools/go-reference/record-fixtures.ts && npx biome format --write test/fixtures/aws-auth/go-yaml`.
 * The differential fixture test checks the
 * reference still gives these results.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { startReference } from '../../test/support/go-reference.ts';
import { AUTHENTICATOR, GO_YAML_FIXTURES, recordable } from '../../test/support/go-yaml-fixtures.ts';

const names = readdirSync(GO_YAML_FIXTURES)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.slice(0, -'.yaml'.length))
  .sort();
const ref = startReference();
const answers = await ref.decode(
  names.map((name) => ({ id: name, manifest: readFileSync(`${GO_YAML_FIXTURES}${name}.yaml`, 'utf8') })),
);
await ref.close();
answers.forEach((go, i) => {
  const name = names[i] as string;
  if (go.crash || go.manifestError) throw new Error(`${name}: ${go.crash ?? go.manifestError}`);
  const expected = { authenticator: AUTHENTICATOR, ...recordable(go) };
  writeFileSync(`${GO_YAML_FIXTURES}${name}.expected.json`, `${JSON.stringify(expected, null, 2)}\n`);
});
console.log(`recorded ${names.length} fixtures in ${GO_YAML_FIXTURES}`);
