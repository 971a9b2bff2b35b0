/**
 * The aws-auth parser and encoder's public API: the only module code outside
 * `shared/core/aws-auth/` imports. The files next to it hold one stage each (see their headers).
 */

/**
 * aws-auth ConfigMap parser and encoder.
 *
 * Re-implements what kubernetes-sigs/aws-iam-authenticator does with `kube-system/aws-auth`
 * (`pkg/mapper/configmap/configmap.go` ParseMap/EncodeMap, `pkg/config/types.go`,
 * `pkg/config/mapper.go` Validate), so that "what the authenticator effectively maps" can be
 * computed from a snapshot:
 *
 * - Only the exact keys `mapRoles`, `mapUsers`, `mapAccounts` are read; each one on its own.
 * - Values that trim (Go `strings.TrimSpace`) to "", `""`, `''` or two backticks are skipped.
 * - `mapRoles`/`mapUsers`: `utilyaml.ToJSON` (JSON passthrough when the value starts with `{`,
 *   else sigs.k8s.io/yaml `YAMLToJSON` = go-yaml v2 into `interface{}` + JSON conversion), then
 *   `encoding/json` into `[]RoleMapping`/`[]UserMapping` (field names case-insensitive, type
 *   mismatches recorded and skipped), then `Validate()` per entry. A conversion error keeps
 *   zero mappings of that key.
 * - `mapAccounts`: go-yaml v2 `Unmarshal` straight into `[]string` (scalars keep their source text).
 *
 * YAML is read by `goyaml/`, a TypeScript port of gopkg.in/yaml.v2 2.4.0 (reader, scanner, parser,
 * resolver, decoder) and of sigs.k8s.io/yaml's JSON conversion, except for the common shape, which
 * the hand-written scanner of `fast-path.ts` reads with the same result. A `yaml`-package
 * reader in `bench/legacy-aws-auth/` serves the benchmark's comparison only (the `yaml` package
 * is a dev dependency). Pure: no I/O, no clock; never throws.
 */

export { encodeAwsAuth, encodeMapRoles, formatRoleMappingYaml } from './encode.ts';
export { type ConfigMapManifestResult, configMapDataFromManifest } from './manifest.ts';
export {
  type AwsAuthMappingChanges,
  type AwsAuthMappingEntry,
  type AwsAuthMappingEntryChange,
  awsAuthMappingChanges,
} from './mapping-changes.ts';
export { parseAwsAuthShared, withAwsAuthMemo } from './memo.ts';
export { awsAuthFastPathAccepts, parseAwsAuth, parseAwsAuthSlow } from './parse.ts';
export {
  AWS_AUTH_KEYS,
  type AwsAuthIssue,
  type AwsAuthIssueKind,
  type AwsAuthKey,
  type AwsAuthMappings,
  type EntryLocation,
  issueCount,
  type KeyStatus,
  type ParsedAwsAuth,
  type RoleMapping,
  repeatsText,
  type SsoMatcher,
  type UserMapping,
} from './parse-result.ts';
export {
  CONFIG_MAP_MAX_BYTES,
  configMapOverLimit,
  type OverLimit,
  overLimitText,
  utf8Length,
} from './size-limit.ts';
export { SSO_PARTITIONS } from './upstream.ts';
