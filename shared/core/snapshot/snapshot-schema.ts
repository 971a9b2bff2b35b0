/**
 * The zod schema of `ClusterSnapshot` (schemaVersion 1), the validation entry points, and the
 * published JSON Schema. The schema mirrors `model.ts` exactly: objects are strict (an unknown key
 * is a typo or a newer writer, and is rejected), optional fields are exact-optional (a key that is
 * present must hold a value), timestamps are ISO 8601 date-times. Compile-time checks below keep
 * the schema's type identical to the model's.
 *
 * Pure: no I/O, no clock. `parseSnapshotJson` never throws and never echoes its input.
 */

import {
  ACCESS_ENTRY_TYPES,
  AUTHENTICATION_MODES,
  CA_SIGNING_STATUSES,
  type ClusterSnapshot,
  COMPUTE_KINDS,
  REGION_CODE,
} from '../model.ts';
import * as z from '../zod-mini.ts';
import { describeJsonError } from './json-fault.ts';

// ---------------------------------------------------------------------------------------------
// Schema

interface SchemaMeta {
  id?: string;
  title?: string;
  description?: string;
}

/**
 * `$defs` names and descriptions for the JSON Schema. Only recorded while the schema is built;
 * the (private) zod registry is filled from them when the JSON Schema is generated, so that a
 * validation does not pay for it.
 */
const schemaMeta: Array<[z.core.$ZodType, SchemaMeta]> = [];

function meta<T extends z.core.$ZodType>(schema: T, data: SchemaMeta): T {
  schemaMeta.push([schema, data]);
  return schema;
}

const PARTITION = 'arn:aws(?:-[a-z]+)*';

/**
 * Builds the schema (zod builds its parsers as the schemas are made): on the first validation or
 * JSON Schema generation, not at import, so that a start which validates nothing pays nothing.
 */
function buildSchema() {
  const timestampSchema = meta(z.iso.datetime({ offset: true }), {
    id: 'Timestamp',
    description: 'ISO 8601 date-time with `Z` or a UTC offset, e.g. 2026-11-20T10:00:00Z.',
  });

  const roleArnSchema = meta(
    z.string().check(z.regex(new RegExp(`^${PARTITION}:iam::\\d{12}:role/.+$`), 'expected an IAM role ARN')),
    {
      id: 'RoleArn',
      description:
        'An IAM role ARN (arn:aws:iam::<account>:role/<path/><name>), never an instance-profile ARN.',
    },
  );

  const principalArnSchema = meta(
    z
      .string()
      .check(z.regex(new RegExp(`^${PARTITION}:(?:iam|sts)::\\d{12}:.+$`), 'expected an IAM principal ARN')),
    { id: 'PrincipalArn', description: 'An IAM principal ARN (role or user).' },
  );

  const accessPolicyArnSchema = z
    .string()
    .check(
      z.regex(
        new RegExp(`^${PARTITION}:eks::aws:cluster-access-policy/.+$`),
        'expected an EKS access policy ARN (arn:aws:eks::aws:cluster-access-policy/<name>)',
      ),
    );

  const nonEmpty = () => z.string().check(z.minLength(1, 'must not be empty'));
  const count = () => z.int().check(z.nonnegative());

  const clusterInfoSchema = z.strictObject({
    status: nonEmpty(),
    version: z.exactOptional(z.string()),
    platformVersion: z.exactOptional(z.string()),
    authenticationMode: z.enum(AUTHENTICATION_MODES),
    bootstrapClusterCreatorAdminPermissions: z.exactOptional(z.boolean()),
    endpointPublicAccess: z.exactOptional(z.boolean()),
    endpointPrivateAccess: z.exactOptional(z.boolean()),
    publicAccessCidrs: z.exactOptional(z.array(z.string())),
    oidcIssuer: z.exactOptional(z.string()),
    roleArn: z.exactOptional(z.string()),
    auditLogging: z.exactOptional(z.boolean()),
    computeConfig: z.exactOptional(
      z.strictObject({
        enabled: z.boolean(),
        nodePools: z.array(z.string()),
        nodeRoleArn: z.exactOptional(z.string()),
      }),
    ),
  });

  const managedFieldSchema = z.strictObject({
    manager: nonEmpty(),
    operation: nonEmpty(),
    time: z.exactOptional(timestampSchema),
    dataKeys: z.array(z.string()),
  });

  const awsAuthConfigMapSchema = meta(
    z.strictObject({
      data: meta(z.record(z.string(), z.string()), {
        description:
          'The ConfigMap `data`: raw strings exactly as stored (mapRoles, mapUsers, mapAccounts, …).',
      }),
      resourceVersion: z.exactOptional(z.string()),
      managedFields: z.array(managedFieldSchema),
    }),
    { id: 'AwsAuthConfigMap', description: 'kube-system/aws-auth as read from the Kubernetes API.' },
  );

  const accessScopeSchema = z.strictObject({
    type: z.enum(['cluster', 'namespace']),
    namespaces: z.exactOptional(z.array(z.string())),
  });

  const associatedAccessPolicySchema = z.strictObject({
    policyArn: accessPolicyArnSchema,
    accessScope: accessScopeSchema,
    associatedAt: z.exactOptional(timestampSchema),
  });

  const accessEntrySchema = meta(
    z.strictObject({
      principalArn: principalArnSchema,
      type: z.enum(ACCESS_ENTRY_TYPES),
      username: z.exactOptional(z.string()),
      kubernetesGroups: z.array(z.string()),
      createdAt: z.exactOptional(timestampSchema),
      modifiedAt: z.exactOptional(timestampSchema),
      accessPolicies: z.array(associatedAccessPolicySchema),
    }),
    { id: 'AccessEntry', description: 'An EKS access entry with its associated access policies.' },
  );

  const healthIssueSchema = z.strictObject({
    code: nonEmpty(),
    message: z.exactOptional(z.string()),
  });

  const nodegroupSchema = meta(
    z.strictObject({
      name: nonEmpty(),
      status: nonEmpty(),
      nodeRole: roleArnSchema,
      amiType: z.exactOptional(z.string()),
      desiredSize: z.exactOptional(count()),
      minSize: z.exactOptional(count()),
      maxSize: z.exactOptional(count()),
      healthIssues: z.array(healthIssueSchema),
    }),
    { id: 'Nodegroup', description: 'A managed node group.' },
  );

  const fargateSelectorSchema = z.strictObject({
    namespace: nonEmpty(),
    labels: z.exactOptional(z.record(z.string(), z.string())),
  });

  const fargateProfileSchema = meta(
    z.strictObject({
      name: nonEmpty(),
      status: nonEmpty(),
      podExecutionRoleArn: roleArnSchema,
      selectors: z.array(fargateSelectorSchema),
      createdAt: z.exactOptional(timestampSchema),
    }),
    { id: 'FargateProfile', description: 'A Fargate profile.' },
  );

  const computeNodeSchema = meta(
    z.strictObject({
      kind: z.enum(COMPUTE_KINDS),
      id: meta(nonEmpty(), {
        description: 'EC2 instance ID, or the node name where there is no instance (Fargate, hybrid).',
      }),
      nodeName: z.exactOptional(z.string()),
      roleArn: z.exactOptional(roleArnSchema),
      nodegroup: z.exactOptional(z.string()),
      nodePool: z.exactOptional(z.string()),
      nodeClass: z.exactOptional(z.string()),
      fargateProfile: z.exactOptional(z.string()),
      os: z.exactOptional(z.enum(['linux', 'windows'])),
      ready: z.exactOptional(z.enum(['True', 'False', 'Unknown'])),
      readySince: z.exactOptional(timestampSchema),
    }),
    {
      id: 'ComputeNode',
      description: 'A node or instance that authenticates to the cluster with an IAM role.',
    },
  );

  const karpenterNodeClassSchema = meta(
    z.strictObject({
      name: nonEmpty(),
      roleArn: z.exactOptional(roleArnSchema),
      role: z.exactOptional(z.string()),
      instanceProfile: z.exactOptional(z.string()),
    }),
    { id: 'KarpenterNodeClass', description: 'A Karpenter EC2NodeClass and the role its nodes use.' },
  );

  const iamRoleSchema = meta(
    z.strictObject({
      arn: roleArnSchema,
      state: z.enum(['exists', 'missing']),
      path: z.exactOptional(
        z.string().check(z.regex(/^(?:\/|\/[\x21-\x7E]+\/)$/, 'expected an IAM path (/ or /a/b/)')),
      ),
      roleId: z.exactOptional(z.string()),
      createDate: z.exactOptional(timestampSchema),
      trustPolicy: z.exactOptional(z.string()),
    }),
    {
      id: 'IamRole',
      description:
        'An IAM role in use, with its IAM path, unique ID, creation date and, for workload identity, its trust policy as JSON text (GetRole).',
    },
  );

  const podIdentityAssociationSchema = meta(
    z.strictObject({
      associationId: nonEmpty(),
      associationArn: z.exactOptional(z.string()),
      namespace: z.string(),
      serviceAccount: z.string(),
      roleArn: z.string(),
      targetRoleArn: z.exactOptional(z.string()),
      externalId: z.exactOptional(z.string()),
      disableSessionTags: z.exactOptional(z.boolean()),
      createdAt: z.exactOptional(timestampSchema),
      modifiedAt: z.exactOptional(timestampSchema),
    }),
    {
      id: 'PodIdentityAssociation',
      description: 'An EKS Pod Identity association: namespace and service account to an IAM role.',
    },
  );

  const addonSchema = meta(
    z.strictObject({
      name: nonEmpty(),
      status: z.exactOptional(z.string()),
      version: z.exactOptional(z.string()),
      healthIssues: z.array(healthIssueSchema),
    }),
    { id: 'Addon', description: 'An EKS add-on; described (status, health) where the rules need it.' },
  );

  const certificateAuthoritySchema = meta(
    z.strictObject({
      id: nonEmpty(),
      signingStatus: z.enum(CA_SIGNING_STATUSES),
      distributionStatus: z.exactOptional(z.string()),
      createdBy: z.exactOptional(z.string()),
      createdAt: z.exactOptional(timestampSchema),
      activatedBy: z.exactOptional(z.string()),
      activatedAt: z.exactOptional(timestampSchema),
      firstAutoActivation: z.exactOptional(timestampSchema),
      finalAutoActivation: z.exactOptional(timestampSchema),
      notAfter: z.exactOptional(timestampSchema),
      rollbackAvailable: z.exactOptional(z.boolean()),
    }),
    {
      id: 'ClusterCertificateAuthority',
      description:
        'A certificate authority of the cluster (ListCertificateAuthorities + DescribeCertificateAuthority): signing (IN_USE), a successor (NOT_USED, ACTIVATING), or a predecessor kept for rollback.',
    },
  );

  const oidcProviderSchema = meta(
    z.strictObject({
      arn: nonEmpty(),
      url: z.string(),
      clientIds: z.exactOptional(z.array(z.string())),
    }),
    { id: 'OidcProvider', description: "An IAM OIDC identity provider of the cluster's account." },
  );

  const serviceAccountSchema = meta(
    z.strictObject({
      namespace: z.string(),
      name: z.string(),
      roleArnAnnotation: z.exactOptional(z.string()),
    }),
    {
      id: 'ServiceAccount',
      description:
        'A Kubernetes service account (metadata only) and its eks.amazonaws.com/role-arn annotation.',
    },
  );

  const roleActionPermissionSchema = meta(
    z.strictObject({
      roleArn: z.string(),
      action: nonEmpty(),
      decision: z.enum(['allowed', 'implicitDeny', 'explicitDeny']),
    }),
    {
      id: 'RoleActionPermission',
      description: "IAM's decision (SimulatePrincipalPolicy) on whether a node role may call an action.",
    },
  );

  const sourceAbsentSchema = meta(
    z.strictObject({ status: z.literal('absent'), reason: z.exactOptional(z.string()) }),
    {
      id: 'SourceAbsent',
      description: 'The source does not exist (a real 404), e.g. no aws-auth in an API cluster.',
    },
  );

  const sourceErrorSchema = meta(z.strictObject({ status: z.literal('error'), error: nonEmpty() }), {
    id: 'SourceError',
    description: 'The source could not be read. Never to be read as empty.',
  });

  /** `Source<T>`: a discriminated union on `status` (ok with data, absent, error). */
  function sourceSchema<T extends z.core.$ZodType>(data: T) {
    return z.discriminatedUnion('status', [
      z.strictObject({ status: z.literal('ok'), data }),
      sourceAbsentSchema,
      sourceErrorSchema,
    ]);
  }

  return z.strictObject({
    schemaVersion: z.literal(1),
    capturedAt: timestampSchema,
    accountId: z.string().check(z.regex(/^\d{12}$/, 'expected a 12-digit AWS account ID')),
    region: z.string().check(z.regex(REGION_CODE, 'expected an AWS Region code such as eu-west-1')),
    clusterName: z
      .string()
      .check(
        z.regex(
          /^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/,
          'expected an EKS cluster name (1-100 letters, digits, - and _)',
        ),
      ),
    clusterArn: z
      .string()
      .check(
        z.regex(
          new RegExp(`^${PARTITION}:eks:[a-z0-9-]+:\\d{12}:cluster/.+$`),
          'expected an EKS cluster ARN',
        ),
      ),
    cluster: clusterInfoSchema,
    awsAuth: sourceSchema(awsAuthConfigMapSchema),
    accessEntries: sourceSchema(z.array(accessEntrySchema)),
    nodegroups: sourceSchema(z.array(nodegroupSchema)),
    fargateProfiles: sourceSchema(z.array(fargateProfileSchema)),
    compute: sourceSchema(z.array(computeNodeSchema)),
    karpenterNodeClasses: z.exactOptional(sourceSchema(z.array(karpenterNodeClassSchema))),
    autoModeNodeClasses: z.exactOptional(
      sourceSchema(
        z.array(
          z.strictObject({
            name: nonEmpty(),
            role: z.exactOptional(z.string()),
            roleArn: z.exactOptional(roleArnSchema),
          }),
        ),
      ),
    ),
    iamRoles: sourceSchema(z.array(iamRoleSchema)),
    podIdentityAssociations: z.exactOptional(sourceSchema(z.array(podIdentityAssociationSchema))),
    addons: z.exactOptional(sourceSchema(z.array(addonSchema))),
    oidcProviders: z.exactOptional(sourceSchema(z.array(oidcProviderSchema))),
    serviceAccounts: z.exactOptional(sourceSchema(z.array(serviceAccountSchema))),
    nodeRolePermissions: z.exactOptional(sourceSchema(z.array(roleActionPermissionSchema))),
    certificateAuthorities: z.exactOptional(sourceSchema(z.array(certificateAuthoritySchema))),
    auditSubscription: z.exactOptional(sourceSchema(z.strictObject({ filterNames: z.array(z.string()) }))),
  });
}

type SnapshotSchema = ReturnType<typeof buildSchema>;
let builtSchema: SnapshotSchema | undefined;

/** The zod schema of `ClusterSnapshot`, built once. */
export function clusterSnapshotSchema(): SnapshotSchema {
  builtSchema ??= buildSchema();
  return builtSchema;
}

// Compile-time guards: the schema's output type and the model are mutually assignable (with
// exactOptionalPropertyTypes, `x?: T | undefined` is not assignable to `x?: T`) and, stricter,
// identical (mutual assignability alone would let the schema drop an optional key). A mismatch
// fails `tsc` right here.
type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Identical<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
type SchemaSnapshot = z.infer<SnapshotSchema>;
export type SnapshotSchemaMatchesModel = [
  Assert<MutuallyAssignable<SchemaSnapshot, ClusterSnapshot>>,
  Assert<Identical<SchemaSnapshot, ClusterSnapshot>>,
];

// ---------------------------------------------------------------------------------------------
// JSON Schema

export const SNAPSHOT_JSON_SCHEMA_ID = 'urn:eks-auth-sentinel:schema:cluster-snapshot:1';

/** The published JSON Schema (draft 2020-12) of `ClusterSnapshot`, as written to `schema/`. */
export function buildSnapshotJsonSchema(): Record<string, unknown> {
  const schema = clusterSnapshotSchema();
  const registry = z.registry<SchemaMeta>();
  for (const [member, data] of schemaMeta) registry.add(member, data);
  const { $schema, ...body } = z.toJSONSchema(schema, {
    metadata: registry,
    target: 'draft-2020-12',
  }) as Record<string, unknown>;
  return {
    $schema,
    $id: SNAPSHOT_JSON_SCHEMA_ID,
    title: 'eks-auth-sentinel ClusterSnapshot',
    description:
      'One EKS cluster captured by eks-auth-sentinel: cluster settings, kube-system/aws-auth, access entries, ' +
      'node groups, Fargate profiles, compute and IAM roles. Every source carries a status: ok (with data), ' +
      'absent (a real 404) or error (could not read; never to be read as empty).',
    ...body,
  };
}

// ---------------------------------------------------------------------------------------------
// Validation

export interface SnapshotError {
  /** JSON path of the offending value, e.g. `$.nodegroups.data[3].nodeRole`. */
  path: string;
  message: string;
}

export type SnapshotValidation =
  | { ok: true; snapshot: ClusterSnapshot }
  | {
      ok: false;
      /** Sorted by path, at most `MAX_REPORTED_ERRORS`. */
      errors: SnapshotError[];
      /** How many further errors were found and not reported. */
      omitted: number;
    };

export const MAX_REPORTED_ERRORS = 20;

type PathSegment = PropertyKey;

/** `$`, `.name`, `[3]`, `["odd key"]`: a JSONPath-style rendering of a zod issue path. */
export function formatJsonPath(segments: readonly PathSegment[]): string {
  let out = '$';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

function compareSegments(a: readonly PathSegment[], b: readonly PathSegment[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/** `text` cut to `max` characters, control characters (C0, DEL, C1) replaced by spaces: safe for one log line. */
export function toOneLine(text: string, max: number): string {
  const cut = text.length > max ? `${text.slice(0, max - 3)}...` : text;
  let out = '';
  for (const ch of cut) {
    const code = ch.charCodeAt(0);
    out += code < 0x20 || (code >= 0x7f && code <= 0x9f) ? ' ' : ch;
  }
  return out;
}

/** A short, single-line rendering of an offending value (never the whole input). */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = typeof value;
  }
  return toOneLine(text, 60);
}

interface RawError {
  segments: PathSegment[];
  message: string;
}

function toRawErrors(issue: z.core.$ZodIssue): RawError[] {
  const segments = [...issue.path];
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        segments: [...segments, key],
        message: 'unknown key (not in ClusterSnapshot schema version 1; check the spelling)',
      }));
    case 'invalid_type':
      if (issue.input === undefined) {
        return [{ segments, message: `required ${issue.expected} is missing` }];
      }
      return [{ segments, message: issue.message }];
    case 'invalid_value':
    case 'invalid_format':
      return [{ segments, message: `${issue.message} (got ${preview(issue.input)})` }];
    case 'invalid_union':
      // A discriminated union reports at the discriminator (`….status`) already.
      return [{ segments, message: issue.message }];
    default:
      return [{ segments, message: issue.message }];
  }
}

function failure(raw: RawError[]): SnapshotValidation {
  raw.sort((a, b) => compareSegments(a.segments, b.segments) || (a.message < b.message ? -1 : 1));
  const errors = raw
    .slice(0, MAX_REPORTED_ERRORS)
    .map(({ segments, message }) => ({ path: formatJsonPath(segments), message }));
  return { ok: false, errors, omitted: Math.max(0, raw.length - MAX_REPORTED_ERRORS) };
}

/** Validate a parsed value as a `ClusterSnapshot`. Never throws. */
export function validateSnapshot(input: unknown): SnapshotValidation {
  const result = clusterSnapshotSchema().safeParse(input, { reportInput: true });
  if (result.success) return { ok: true, snapshot: result.data };
  return failure(result.error.issues.flatMap(toRawErrors));
}

/** Parse and validate a snapshot document. Never throws; JSON errors give line and column. */
export function parseSnapshotJson(text: string, sourceName: string): SnapshotValidation {
  if (typeof text !== 'string') {
    return failure([{ segments: [], message: `${sourceName}: expected text, got ${typeof text}` }]);
  }
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!/\S/.test(body)) {
    return failure([
      { segments: [], message: `${sourceName} is empty: expected a ClusterSnapshot JSON document` },
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return failure([{ segments: [], message: `${sourceName}: ${describeJsonError(body, error)}` }]);
  }
  return validateSnapshot(value);
}

/** Render a failed validation for people: one line per error, plus the count left out. */
export function formatSnapshotErrors(sourceName: string, result: SnapshotValidation): string {
  if (result.ok) return `${sourceName}: valid ClusterSnapshot`;
  // Document-level errors of parseSnapshotJson already name the source.
  const lines = result.errors.map((e) =>
    e.message.startsWith(sourceName) ? e.message : `${sourceName}: ${e.path}: ${e.message}`,
  );
  if (result.omitted > 0) lines.push(`${sourceName}: … and ${result.omitted} more errors`);
  return lines.join('\n');
}
