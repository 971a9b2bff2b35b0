/**
 * go-yaml v2 (gopkg.in/yaml.v2 2.4.0) front end, ported file by file so that its behaviour is
 * go-yaml's by construction rather than by patches: `reader.ts` (readerc.go), `scanner*.ts`
 * (scannerc.go), `parser.ts` (parserc.go), `resolve.ts` (resolve.go), `decode.ts` (decode.go +
 * yaml.go `Unmarshal`), `yaml-to-json.ts` (sigs.k8s.io/yaml `yamlToJSON` /
 * `convertToJSONableObject` + `encoding/json` `Marshal`), `go-json.ts` (`encoding/json`
 * `Unmarshal` into the authenticator's `[]RoleMapping` / `[]UserMapping`).
 *
 * Contract (engineer E2's differential harness codes against this):
 *
 * - `unmarshalGoYaml(text)`: `yaml.Unmarshal([]byte(text), &interface{})`. `text` is the
 *   ConfigMap value as a JS string; it is encoded to UTF-8 (a lone surrogate becomes U+FFFD, as
 *   Go's JSON decoder of the API response does) and read byte by byte like go-yaml. Only the first
 *   document is decoded. Returns the value tree or go-yaml's error text (`yaml: line 3: found
 *   character that cannot start any token`).
 * - `yamlToJson(value)`: sigs.k8s.io/yaml's conversion of that tree to the JSON value
 *   `json.Marshal` would write (object keys sorted bytewise, non-string keys formatted the Go way).
 *   `target` is the optional jsonTarget (only `Unmarshal` passes one; `YAMLToJSON` does not).
 * - `decodeAwsAuthKey(key, text)`: the authenticator's whole `ParseMap` for one data key:
 *   isSkippable → `utilyaml.ToJSON` → `json.Unmarshal` into the structs → `Validate()` per entry
 *   (`mapAccounts`: go-yaml `Unmarshal` into `[]string`). `ok` is false when the key's value could
 *   not be converted at all (zero mappings kept); `errors` holds every Go error text in order.
 *
 * Positions: `pos`/`end` are UTF-16 offsets into `text` (what `String.prototype.slice` takes);
 * `line`/`column` are go-yaml's 0-based mark fields.
 */

export {
  type StringListDetail,
  type StringListResult,
  unmarshalGoYaml,
  unmarshalGoYamlStrings,
} from './decode.ts';
export { decodeAwsAuthKey } from './go-json.ts';
export type {
  AwsAuthDataKey,
  AwsAuthKeyDecode,
  GoMapEntry,
  GoMark,
  GoRoleMapping,
  GoUserMapping,
  GoValue,
  GoYamlResult,
  JsonEntry,
  JsonResult,
  JsonValue,
  ScalarStyle,
} from './go-values.ts';
export { yamlToJson } from './yaml-to-json.ts';
