/** The go-yaml quirk fixtures (issue 9 item 3) and the shape of their recorded results. */
import { fileURLToPath } from 'node:url';
import type { GoResult } from './go-reference.ts';

export const GO_YAML_FIXTURES = fileURLToPath(new URL('../fixtures/aws-auth/go-yaml/', import.meta.url));

/** The decoder the recorded results come from (tools/go-reference/main.go names the files copied). */
export const AUTHENTICATOR =
  'kubernetes-sigs/aws-iam-authenticator@81b1daba00d194c00d3cdd8b0a0fece5ba648d4e (v0.7.18-11-g81b1dab) ParseMap: ' +
  'k8s.io/apimachinery util/yaml.ToJSON → sigs.k8s.io/yaml.YAMLToJSON (gopkg.in/yaml.v2) → encoding/json → Validate; ' +
  'mapAccounts: gopkg.in/yaml.v2 Unmarshal';

/** What a fixture records: the stored data and ParseMap's outcome (no request id). */
export function recordable(go: GoResult): Omit<GoResult, 'id' | 'crash' | 'manifestError'> {
  return { data: go.data ?? {}, keys: go.keys, roles: go.roles, users: go.users, accounts: go.accounts };
}
