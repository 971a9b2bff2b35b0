/**
 * Result types of the aws-auth parser (`parse.ts`). The parser reproduces
 * kubernetes-sigs/aws-iam-authenticator `pkg/mapper/configmap/configmap.go` ParseMap: it returns
 * every mapping that survives and every issue, and never throws.
 */

export const AWS_AUTH_KEYS = ['mapRoles', 'mapUsers', 'mapAccounts'] as const;
export type AwsAuthKey = (typeof AWS_AUTH_KEYS)[number];

export interface SsoMatcher {
  permissionSetName: string;
  accountID: string;
  partition?: string;
}

/** Where an entry stands in the ConfigMap: data key, 0-based entry index, 1-based line/column inside the key's value. */
export interface EntryLocation {
  dataKey: AwsAuthKey;
  index: number;
  line?: number;
  column?: number;
}

export interface RoleMapping {
  /** As written (case and path preserved) — for display and for the path rule. */
  rolearn?: string;
  sso?: SsoMatcher;
  username: string;
  groups: string[];
  userid?: string;
  location: EntryLocation;
}

export interface UserMapping {
  userarn: string;
  username: string;
  groups: string[];
  userid?: string;
  location: EntryLocation;
}

export type AwsAuthIssueKind =
  /** The key's value is not valid YAML or not a list: the authenticator keeps zero mappings of that key. */
  | 'key-parse-failure'
  /** A field had the wrong type (e.g. `groups: system:nodes`): decoding continued with the field empty. */
  | 'type-mismatch'
  /** An entry failed validation (no rolearn/sso, both, bad SSO fields, no userarn) and was dropped. */
  | 'invalid-entry'
  /** A top-level data key the authenticator ignores (`maproles`, `MapRoles`, typos). */
  | 'ignored-key'
  /** An entry field the authenticator does not know (after case folding): ignored. */
  | 'unknown-field'
  /**
   * Accepted by the authenticator but almost certainly not what was meant: a group that is two
   * list items folded into one string by a mis-indented `- ` line, or a mapAccounts item that is
   * not a 12-digit account ID.
   */
  | 'suspicious-value'
  /**
   * Content after the first YAML document of the key's value (a later `---`): the authenticator
   * (go-yaml) decodes the first document only, so nothing after it exists for EKS. The key's own
   * status and mappings are those of the first document.
   */
  | 'ignored-after-first-document';

export interface AwsAuthIssue {
  kind: AwsAuthIssueKind;
  dataKey: string;
  /** 0-based entry index inside the key's list, when the issue concerns one entry. */
  entryIndex?: number;
  /** 1-based line and column inside the data key's value string. */
  line?: number;
  column?: number;
  message: string;
  /** What the authenticator loses because of this issue, in plain words. */
  lost: string;
  /**
   * The later entries (0-based, ascending) that have this very issue because they are aliases of
   * the same YAML node (`- *a` items): same line and column, same problem, only the entry index
   * differs. One issue per cause, so that the parser's output follows the distinct nodes of the
   * input, not the expanded tree; the issue counts `1 + repeats.length` times (`issueCount`).
   */
  repeats?: number[];
}

/** How many occurrences an issue stands for (itself and its `repeats`). */
export function issueCount(i: { repeats?: readonly number[] }): number {
  return 1 + (i.repeats?.length ?? 0);
}

/**
 * ` (the same problem at 3 more entries, aliases of the same YAML node (entries 2, 3, 4))` (the
 * first 10 named; `open` replaces ` (`) for an issue with repeats; '' without.
 */
export function repeatsText(i: { repeats?: readonly number[] }, open = ' ('): string {
  const r = i.repeats;
  if (r === undefined || r.length === 0) return '';
  const one = r.length === 1;
  return `${open}the same problem at ${r.length} more entr${one ? 'y' : 'ies'}, aliases of the same YAML node (entr${one ? 'y' : 'ies'} ${r.slice(0, 10).join(', ')}${r.length > 10 ? ', …' : ''}))`;
}

/**
 * missing: key absent. empty: skippable (`""`, `''`, two backticks, blank) or YAML null/comment only.
 * ok: a list was decoded (some entries may still have been dropped). failed: the authenticator
 * errors on the key as a whole and keeps nothing of it (for a mapAccounts decode error part-way
 * through the list, only the items before it).
 */
export type KeyStatus = 'missing' | 'empty' | 'ok' | 'failed';

export interface ParsedAwsAuth {
  /** Valid role entries in file order, duplicates included (the last one for an ARN wins). */
  roles: RoleMapping[];
  users: UserMapping[];
  accounts: string[];
  issues: AwsAuthIssue[];
  keyStatus: Record<AwsAuthKey, KeyStatus>;
}

/** What `encodeAwsAuth` takes: mappings without locations. */
export interface AwsAuthMappings {
  roles: Array<Omit<RoleMapping, 'location'>>;
  users: Array<Omit<UserMapping, 'location'>>;
  accounts: string[];
}
