/**
 * The values the go-yaml port works with (Go's decoded tree, the JSON it converts to, the
 * authenticator's structs): the types alone, which every stage imports and index.ts re-exports.
 */
export interface GoMark {
  /** UTF-16 offset into the input text. */
  readonly pos: number;
  /** 0-based line, as go-yaml's `yaml_mark_t.line`. */
  readonly line: number;
  /** 0-based column in characters, as go-yaml's `yaml_mark_t.column`. */
  readonly column: number;
}

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal' | 'folded';

/** go-yaml's decode of a node into `interface{}`. */
export type GoValue =
  | { readonly kind: 'null'; readonly mark: GoMark }
  | {
      readonly kind: 'str';
      readonly value: string;
      readonly mark: GoMark;
      /** Where the scalar's source text ends (UTF-16 offset). */
      readonly end: number;
      readonly style: ScalarStyle;
    }
  /** Go `int` (64-bit) when it fits, `uint64` when `unsigned`. */
  | { readonly kind: 'int'; readonly value: bigint; readonly unsigned: boolean; readonly mark: GoMark }
  | { readonly kind: 'float'; readonly value: number; readonly mark: GoMark }
  | { readonly kind: 'bool'; readonly value: boolean; readonly mark: GoMark }
  /** `map[interface{}]interface{}`: one entry per distinct key, in first-insertion order, last value wins. */
  | { readonly kind: 'map'; readonly entries: readonly GoMapEntry[]; readonly mark: GoMark }
  | { readonly kind: 'seq'; readonly items: readonly GoValue[]; readonly mark: GoMark };

export interface GoMapEntry {
  readonly key: GoValue;
  readonly value: GoValue;
}

export type GoYamlResult =
  | { readonly ok: true; readonly value: GoValue | null }
  /** `pos`: where it failed (UTF-16 offset into the text), when known. */
  | { readonly ok: false; readonly error: string; readonly pos?: number };

/** What `json.Marshal` would write for the converted tree. Same shape the aws-auth model decodes. */
export type JsonValue =
  | { readonly t: 'null'; readonly pos: number }
  | {
      readonly t: 'string';
      readonly v: string;
      readonly pos: number;
      readonly end: number;
      readonly style: ScalarStyle;
    }
  /** `text` is Go's JSON number text (`strconv` formatting). */
  | { readonly t: 'number'; readonly text: string; readonly pos: number }
  | { readonly t: 'bool'; readonly v: boolean; readonly pos: number }
  /** Keys unique and sorted bytewise (UTF-8), as `json.Marshal` writes a map. */
  | { readonly t: 'object'; readonly entries: readonly JsonEntry[]; readonly pos: number }
  | { readonly t: 'array'; readonly items: readonly JsonValue[]; readonly pos: number };

export interface JsonEntry {
  readonly key: string;
  readonly keyPos: number;
  readonly value: JsonValue;
}

export type JsonResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly error: string; readonly pos: number };

export type AwsAuthDataKey = 'mapRoles' | 'mapUsers' | 'mapAccounts';

/** The authenticator's structs after `json.Unmarshal` (zero values where Go leaves them). */
export interface GoRoleMapping {
  readonly rolearn: string;
  /** Non-null when Go allocated `*SSOARNMatcher` (even when the value then failed to decode). */
  readonly sso: {
    readonly permissionSetName: string;
    readonly accountID: string;
    readonly partition: string;
  } | null;
  readonly username: string;
  readonly groups: readonly string[];
  readonly userid: string;
}

export interface GoUserMapping {
  readonly userarn: string;
  readonly username: string;
  readonly groups: readonly string[];
  readonly userid: string;
}

export interface AwsAuthKeyDecode {
  /** False: the value could not be converted (YAML/JSON error); nothing of this key is kept. */
  readonly ok: boolean;
  /** Skippable value (empty, `""`, `''`, two backticks): no error, no entries. */
  readonly skipped: boolean;
  /** Entries that passed `Validate()`, in order (mapRoles / mapUsers). */
  readonly roles: readonly GoRoleMapping[];
  readonly users: readonly GoUserMapping[];
  readonly accounts: readonly string[];
  /** Every error ParseMap would append for this key, Go's text, in order. */
  readonly errors: readonly string[];
}
