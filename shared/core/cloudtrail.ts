/**
 * CloudTrail record (bare, or inside the EventBridge envelope `AWS API Call via CloudTrail`) →
 * `Change`. Handles the EKS write calls of docs/design.md#cloudtrail-events-handled; everything
 * else is `ignored` with a reason, and a record that lacks what the change needs is `invalid` with
 * the JSON path of what is missing. Never throws.
 *
 * Record shapes: docs/eks-auth-semantics.md#cloudtrail-records-delivered-by-eventbridge (real
 * CreateAccessEntry/AssociateAccessPolicy records; the others inferred from the API model).
 * Tolerances, after traps 11–13 of docs/eks-auth-semantics.md#traps:
 * - the cluster name is `requestParameters.name`, older records `clusterName`, else any
 *   `responseElements.*.clusterName`;
 * - path parameters (`principalArn`, `policyArn`) arrive URL-encoded: decoded when they hold `%`;
 * - calls that failed (`errorCode`) are ignored;
 * - response timestamps arrive as epoch seconds (or ISO strings) and are normalised to ISO 8601.
 */

import type { Change } from './change.ts';
import { actorOfRecord } from './cloudtrail-actor.ts';
import { eventSchemas } from './cloudtrail-schemas.ts';
import {
  ACCESS_ENTRY_TYPES,
  type AccessEntry,
  type AccessEntryType,
  type AccessScope,
  type Actor,
  AUTHENTICATION_MODES,
  type AuthenticationMode,
  type ClusterId,
} from './model.ts';
import { formatJsonPath, toOneLine } from './snapshot-schema.ts';
import * as z from './zod-mini.ts';

export const HANDLED_EKS_EVENTS = [
  'DeleteNodegroup',
  'CreateNodegroup',
  'CreateFargateProfile',
  'DeleteFargateProfile',
  'CreateAccessEntry',
  'DeleteAccessEntry',
  'UpdateAccessEntry',
  'AssociateAccessPolicy',
  'DisassociateAccessPolicy',
  'UpdateClusterConfig',
] as const;
export type HandledEksEventName = (typeof HANDLED_EKS_EVENTS)[number];

export const CLOUDTRAIL_DETAIL_TYPE = 'AWS API Call via CloudTrail';
export const EKS_EVENT_SOURCE = 'aws.eks';

export type EksEventParse =
  | (ClusterId & {
      kind: 'change';
      change: Change;
      eventId: string;
      eventName: HandledEksEventName;
      eventTime: string;
      /** `userIdentity.arn` of the caller, when the record has one. */
      actor?: string;
      /** Who made the call: identity, source IP and user agent, when the record names them. */
      by?: Actor;
    })
  | { kind: 'ignored'; reason: string; eventId?: string; eventName?: string }
  | { kind: 'invalid'; reason: string };

// ---------------------------------------------------------------------------------------------
// Helpers

type Segments = Array<PropertyKey>;

/** A problem with the record: where (path below the record) and what. */
class RecordProblem {
  constructor(
    readonly segments: Segments,
    readonly message: string,
  ) {}
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Quote a value from the record for a reason, short and on one line. Only strings and primitives
 * are written out: an object is named by its kind, never stringified (a hostile
 * `{"toString": false}` makes `String(value)` throw; a long array would fill the reason).
 */
function quote(value: unknown): string {
  if (typeof value === 'string') return toOneLine(JSON.stringify(value), 80);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'function') return 'a function';
  return toOneLine(String(value), 80);
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined)
    return `required ${issue.expected} is missing`;
  if (issue.code === 'invalid_type' && issue.input === null) return `expected ${issue.expected}, got null`;
  return issue.message;
}

const PARTITION = 'arn:aws(?:-[a-z]+)*';
const IAM_NAME = '[\\w+=,.@/-]+';
const ROLE_ARN = new RegExp(`^${PARTITION}:iam::\\d{12}:role/${IAM_NAME}$`);
const PRINCIPAL_ARN = new RegExp(`^${PARTITION}:iam::\\d{12}:(?:(?:role|user)/${IAM_NAME}|root)$`);
const POLICY_ARN = new RegExp(`^${PARTITION}:eks::aws:cluster-access-policy/[\\w+=,.@-]+$`);

/**
 * Decode a URL-encoded path parameter. Only values holding `%` are touched (an ARN never contains
 * one), up to three rounds for double encoding; a malformed escape is a problem, never a throw.
 */
function decodePathParameter(value: string, segments: Segments): string {
  let out = value;
  for (let round = 0; round < 3 && out.includes('%'); round++) {
    try {
      out = decodeURIComponent(out);
    } catch {
      throw new RecordProblem(segments, `${quote(value)} is not valid URL encoding`);
    }
  }
  return out;
}

function checkArn(value: string, pattern: RegExp, what: string, segments: Segments): string {
  if (!pattern.test(value)) throw new RecordProblem(segments, `expected ${what}, got ${quote(value)}`);
  return value;
}

/** Epoch seconds (CloudTrail), epoch milliseconds or an ISO 8601 string → ISO 8601; else undefined. */
export function toIsoTimestamp(value: unknown): string | undefined {
  let date: Date | undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    date = new Date(value > 1e11 ? value : value * 1000);
  } else if (typeof value === 'string' && z.iso.datetime({ offset: true }).safeParse(value).success) {
    date = new Date(value);
  }
  if (date === undefined || Number.isNaN(date.getTime())) return undefined;
  return date.toISOString();
}

function pick<T>(...candidates: Array<T | undefined>): T | undefined {
  return candidates.find((candidate) => candidate !== undefined);
}

function required<T>(value: T | undefined, segments: Segments, message: string): T {
  if (value === undefined) throw new RecordProblem(segments, message);
  return value;
}

function clusterNameOf(
  request: { name?: string | undefined; clusterName?: string | undefined },
  response: unknown,
) {
  const fromResponse = (): string | undefined => {
    if (!isRecord(response)) return undefined;
    if (typeof response.clusterName === 'string' && response.clusterName !== '') return response.clusterName;
    for (const value of Object.values(response)) {
      if (isRecord(value) && typeof value.clusterName === 'string' && value.clusterName !== '') {
        return value.clusterName;
      }
    }
    return undefined;
  };
  return required(
    pick(request.name, request.clusterName, fromResponse()),
    ['requestParameters', 'name'],
    'no cluster name (looked at requestParameters.name, requestParameters.clusterName, responseElements.*.clusterName)',
  );
}

const REQ = 'requestParameters';
const RES = 'responseElements';

// ---------------------------------------------------------------------------------------------
// One builder per event: parsed record → Change (throws RecordProblem)

/** What every handled record has once its schema passed. */
interface RecordHeader {
  eventID: string;
  eventTime: string;
  awsRegion?: string | undefined;
  recipientAccountId?: string | undefined;
  userIdentity?: { arn?: string | undefined } | undefined;
  requestParameters: { name?: string | undefined; clusterName?: string | undefined };
  responseElements?: unknown;
}

type Built = Change | 'no-auth-change';
type Handled = { ok: true; header: RecordHeader; change: Built } | { ok: false; issues: z.core.$ZodIssue[] };

/** Pair an event's schema with its builder: parse, then build (a builder throws RecordProblem). */
function handler<S extends z.ZodMiniType<RecordHeader>>(schema: S, build: (record: z.output<S>) => Built) {
  return (record: unknown): Handled => {
    const parsed = schema.safeParse(record, { reportInput: true });
    if (!parsed.success) return { ok: false, issues: parsed.error.issues };
    return { ok: true, header: parsed.data, change: build(parsed.data) };
  };
}

const handlers: Record<HandledEksEventName, (record: unknown) => Handled> = {
  DeleteNodegroup: handler(
    eventSchemas.DeleteNodegroup,
    ({ requestParameters: req, responseElements: res }) => {
      const nodegroup = res?.nodegroup;
      const nodegroupName = required(
        pick(req.nodegroupName, nodegroup?.nodegroupName),
        [REQ, 'nodegroupName'],
        'required string is missing',
      );
      const nodeRole = nodegroup?.nodeRole;
      return {
        kind: 'delete-nodegroup',
        nodegroupName,
        ...(nodeRole === undefined
          ? {}
          : { nodeRole: checkArn(nodeRole, ROLE_ARN, 'an IAM role ARN', [RES, 'nodegroup', 'nodeRole']) }),
      };
    },
  ),

  CreateNodegroup: handler(
    eventSchemas.CreateNodegroup,
    ({ requestParameters: req, responseElements: res }) => {
      const nodegroup = res?.nodegroup;
      const nodegroupName = required(
        pick(req.nodegroupName, nodegroup?.nodegroupName),
        [REQ, 'nodegroupName'],
        'required string is missing',
      );
      const nodeRole = required(
        pick(req.nodeRole, nodegroup?.nodeRole),
        [REQ, 'nodeRole'],
        'required string is missing',
      );
      const amiType = pick(nodegroup?.amiType, req.amiType);
      return {
        kind: 'create-nodegroup',
        nodegroupName,
        nodeRole: checkArn(nodeRole, ROLE_ARN, 'an IAM role ARN', [REQ, 'nodeRole']),
        ...(amiType === undefined ? {} : { amiType }),
      };
    },
  ),

  CreateFargateProfile: handler(
    eventSchemas.CreateFargateProfile,
    ({ requestParameters: req, responseElements: res }) => {
      const profile = res?.fargateProfile;
      const fargateProfileName = required(
        pick(req.fargateProfileName, profile?.fargateProfileName),
        [REQ, 'fargateProfileName'],
        'required string is missing',
      );
      const role = required(
        pick(req.podExecutionRoleArn, profile?.podExecutionRoleArn),
        [REQ, 'podExecutionRoleArn'],
        'required string is missing',
      );
      return {
        kind: 'create-fargate-profile',
        fargateProfileName,
        podExecutionRoleArn: checkArn(role, ROLE_ARN, 'an IAM role ARN', [REQ, 'podExecutionRoleArn']),
      };
    },
  ),

  DeleteFargateProfile: handler(
    eventSchemas.DeleteFargateProfile,
    ({ requestParameters: req, responseElements: res }) => {
      const profile = res?.fargateProfile;
      const fargateProfileName = required(
        pick(req.fargateProfileName, profile?.fargateProfileName),
        [REQ, 'fargateProfileName'],
        'required string is missing',
      );
      const role = profile?.podExecutionRoleArn;
      return {
        kind: 'delete-fargate-profile',
        fargateProfileName,
        ...(role === undefined
          ? {}
          : {
              podExecutionRoleArn: checkArn(role, ROLE_ARN, 'an IAM role ARN', [
                RES,
                'fargateProfile',
                'podExecutionRoleArn',
              ]),
            }),
      };
    },
  ),

  CreateAccessEntry: handler(
    eventSchemas.CreateAccessEntry,
    ({ requestParameters: req, responseElements: res }) => {
      const created = res?.accessEntry;
      const principalPath =
        created?.principalArn === undefined ? [REQ, 'principalArn'] : [RES, 'accessEntry', 'principalArn'];
      const rawPrincipal = required(
        pick(created?.principalArn, req.principalArn),
        [REQ, 'principalArn'],
        'required string is missing',
      );
      const principalArn = checkArn(
        decodePathParameter(rawPrincipal, principalPath),
        PRINCIPAL_ARN,
        'an IAM principal ARN',
        principalPath,
      );
      const rawType = (pick(created?.type, req.type) ?? 'STANDARD').toUpperCase();
      if (!(ACCESS_ENTRY_TYPES as readonly string[]).includes(rawType)) {
        throw new RecordProblem(
          created?.type === undefined ? [REQ, 'type'] : [RES, 'accessEntry', 'type'],
          `unknown access entry type ${quote(rawType)} (expected one of ${ACCESS_ENTRY_TYPES.join(', ')})`,
        );
      }
      const username = pick(created?.username, req.username);
      const createdAt = toIsoTimestamp(created?.createdAt);
      const modifiedAt = toIsoTimestamp(created?.modifiedAt);
      const entry: AccessEntry = {
        principalArn,
        type: rawType as AccessEntryType,
        ...(username === undefined ? {} : { username }),
        kubernetesGroups: pick(created?.kubernetesGroups, req.kubernetesGroups) ?? [],
        ...(createdAt === undefined ? {} : { createdAt }),
        ...(modifiedAt === undefined ? {} : { modifiedAt }),
        accessPolicies: [],
      };
      return { kind: 'create-access-entry', entry };
    },
  ),

  DeleteAccessEntry: handler(eventSchemas.DeleteAccessEntry, ({ requestParameters: req }) => ({
    kind: 'delete-access-entry',
    principalArn: checkArn(
      decodePathParameter(req.principalArn, [REQ, 'principalArn']),
      PRINCIPAL_ARN,
      'an IAM principal ARN',
      [REQ, 'principalArn'],
    ),
  })),

  UpdateAccessEntry: handler(
    eventSchemas.UpdateAccessEntry,
    ({ requestParameters: req, responseElements: res }) => {
      // The response holds the entry after the update: prefer it, fall back to what was asked.
      const updated = res?.accessEntry;
      const username = pick(updated?.username, req.username);
      const kubernetesGroups = pick(updated?.kubernetesGroups, req.kubernetesGroups);
      return {
        kind: 'update-access-entry',
        principalArn: checkArn(
          decodePathParameter(req.principalArn, [REQ, 'principalArn']),
          PRINCIPAL_ARN,
          'an IAM principal ARN',
          [REQ, 'principalArn'],
        ),
        ...(username === undefined ? {} : { username }),
        ...(kubernetesGroups === undefined ? {} : { kubernetesGroups }),
      };
    },
  ),

  AssociateAccessPolicy: handler(
    eventSchemas.AssociateAccessPolicy,
    ({ requestParameters: req, responseElements: res }) => {
      const scopeType = req.accessScope.type.toLowerCase();
      if (scopeType !== 'cluster' && scopeType !== 'namespace') {
        throw new RecordProblem(
          [REQ, 'accessScope', 'type'],
          `unknown access scope type ${quote(req.accessScope.type)} (expected cluster or namespace)`,
        );
      }
      const namespaces = req.accessScope.namespaces;
      const accessScope: AccessScope = {
        type: scopeType,
        ...(namespaces === undefined ? {} : { namespaces }),
      };
      const associatedAt = toIsoTimestamp(res?.associatedAccessPolicy?.associatedAt);
      return {
        kind: 'associate-access-policy',
        principalArn: checkArn(
          decodePathParameter(req.principalArn, [REQ, 'principalArn']),
          PRINCIPAL_ARN,
          'an IAM principal ARN',
          [REQ, 'principalArn'],
        ),
        policy: {
          policyArn: checkArn(
            decodePathParameter(req.policyArn, [REQ, 'policyArn']),
            POLICY_ARN,
            'an EKS access policy ARN',
            [REQ, 'policyArn'],
          ),
          accessScope,
          ...(associatedAt === undefined ? {} : { associatedAt }),
        },
      };
    },
  ),

  DisassociateAccessPolicy: handler(eventSchemas.DisassociateAccessPolicy, ({ requestParameters: req }) => ({
    kind: 'disassociate-access-policy',
    principalArn: checkArn(
      decodePathParameter(req.principalArn, [REQ, 'principalArn']),
      PRINCIPAL_ARN,
      'an IAM principal ARN',
      [REQ, 'principalArn'],
    ),
    policyArn: checkArn(
      decodePathParameter(req.policyArn, [REQ, 'policyArn']),
      POLICY_ARN,
      'an EKS access policy ARN',
      [REQ, 'policyArn'],
    ),
  })),

  UpdateClusterConfig: handler(eventSchemas.UpdateClusterConfig, ({ requestParameters: req }) => {
    const mode = req.accessConfig?.authenticationMode;
    if (mode === undefined) return 'no-auth-change';
    if (!(AUTHENTICATION_MODES as readonly string[]).includes(mode)) {
      throw new RecordProblem(
        [REQ, 'accessConfig', 'authenticationMode'],
        `unknown authentication mode ${quote(mode)} (expected one of ${AUTHENTICATION_MODES.join(', ')})`,
      );
    }
    return { kind: 'set-auth-mode', mode: mode as AuthenticationMode };
  }),
};

function isHandled(name: string): name is HandledEksEventName {
  return (HANDLED_EKS_EVENTS as readonly string[]).includes(name);
}

// ---------------------------------------------------------------------------------------------
// Entry point

/** Classify one EventBridge event or bare CloudTrail record. Never throws. */
export function parseEksEvent(input: unknown): EksEventParse {
  if (!isRecord(input)) {
    return { kind: 'invalid', reason: '$: expected an object (EventBridge event or CloudTrail record)' };
  }

  // EventBridge envelope, or a bare CloudTrail record.
  let record: Record<string, unknown>;
  let base: Segments = [];
  let envelopeRegion: unknown;
  let envelopeAccount: unknown;
  if ('detail-type' in input || ('detail' in input && 'source' in input)) {
    if (input['detail-type'] !== CLOUDTRAIL_DETAIL_TYPE) {
      return {
        kind: 'ignored',
        reason: `not a CloudTrail API call (detail-type ${quote(input['detail-type'])})`,
      };
    }
    if (input.source !== EKS_EVENT_SOURCE) {
      return { kind: 'ignored', reason: `not an EKS event (source ${quote(input.source)})` };
    }
    if (!isRecord(input.detail)) {
      const what =
        input.detail === undefined
          ? 'required object is missing'
          : 'expected the CloudTrail record (an object)';
      return { kind: 'invalid', reason: `$.detail: ${what}` };
    }
    record = input.detail;
    base = ['detail'];
    envelopeRegion = input.region;
    envelopeAccount = input.account;
  } else {
    record = input;
  }
  const at = (segments: Segments) => formatJsonPath([...base, ...segments]);

  const eventName = record.eventName;
  if (typeof eventName !== 'string' || eventName === '') {
    const what =
      eventName === undefined
        ? 'required string is missing'
        : `expected the API name, got ${quote(eventName)}`;
    return { kind: 'invalid', reason: `${at(['eventName'])}: ${what}` };
  }
  const eventId = typeof record.eventID === 'string' && record.eventID !== '' ? record.eventID : undefined;
  const ignored = (reason: string): EksEventParse => ({
    kind: 'ignored',
    reason,
    eventName,
    ...(eventId === undefined ? {} : { eventId }),
  });

  if (record.eventSource !== undefined && record.eventSource !== 'eks.amazonaws.com') {
    return ignored(`not an EKS call (eventSource ${quote(record.eventSource)})`);
  }
  if (record.errorCode !== undefined && record.errorCode !== null && record.errorCode !== '') {
    return ignored(
      typeof record.errorCode === 'string'
        ? `the call failed: ${toOneLine(record.errorCode, 80)}`
        : `the call failed (errorCode is ${quote(record.errorCode)}, not a string)`,
    );
  }
  if (record.readOnly === true) return ignored(`${eventName} is a read-only call`);
  if (!isHandled(eventName)) return ignored(`${eventName} is not an EKS call the monitor handles`);

  try {
    const handled = handlers[eventName](record);
    if (!handled.ok) {
      const problems = handled.issues.map((issue) => `${at(issue.path)}: ${describeIssue(issue)}`);
      const shown = problems.slice(0, 3).join('; ');
      const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
      return { kind: 'invalid', reason: `${eventName} record: ${shown}${more}` };
    }
    const { header, change } = handled;
    if (change === 'no-auth-change') {
      return ignored(
        'UpdateClusterConfig without accessConfig.authenticationMode: not an authentication change',
      );
    }
    const region = pick(
      header.awsRegion,
      typeof envelopeRegion === 'string' && envelopeRegion !== '' ? envelopeRegion : undefined,
    );
    const accountId = pick(
      header.recipientAccountId,
      typeof envelopeAccount === 'string' && /^\d{12}$/.test(envelopeAccount) ? envelopeAccount : undefined,
    );
    const clusterName = clusterNameOf(header.requestParameters, header.responseElements);
    const checkedRegion = required(region, ['awsRegion'], 'required string is missing');
    const checkedAccount = required(accountId, ['recipientAccountId'], 'required account ID is missing');
    const actor = header.userIdentity?.arn;
    const by = actorOfRecord(record);
    return {
      kind: 'change',
      change,
      eventId: header.eventID,
      eventName,
      eventTime: header.eventTime,
      clusterName,
      region: checkedRegion,
      accountId: checkedAccount,
      ...(typeof actor === 'string' && actor !== '' ? { actor } : {}),
      ...(by === undefined ? {} : { by }),
    };
  } catch (error) {
    if (error instanceof RecordProblem) {
      return { kind: 'invalid', reason: `${eventName} record: ${at(error.segments)}: ${error.message}` };
    }
    const detail = error instanceof Error ? `: ${quote(error.message)}` : '';
    return { kind: 'invalid', reason: `${eventName} record could not be read (internal error${detail})` };
  }
}
