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
 * - calls that failed (`errorCode`) are ignored; a record whose `eventSource`, `errorCode`,
 *   `errorMessage` or `readOnly` is not as CloudTrail writes it is invalid (`standingOf`);
 * - response timestamps arrive as epoch seconds (or ISO strings) and are normalised to ISO 8601.
 */

import {
  ACCESS_ENTRY_TYPES,
  type AccessEntry,
  type AccessEntryType,
  type AccessScope,
  type Actor,
  type ClusterId,
} from '../model.ts';
import type { Change } from '../predict/change.ts';
import { formatJsonPath } from '../snapshot/snapshot-schema.ts';
import { actorOfRecord } from './cloudtrail-actor.ts';
import {
  CERTIFICATE_AUTHORITY_EVENTS,
  certificateAuthorityHandlers,
  updateClusterConfig,
} from './cloudtrail-cluster-config.ts';
import {
  checkArn,
  clusterNameOf,
  decodePathParameter,
  describeIssue,
  type Handled,
  handler,
  isRecord,
  POLICY_ARN,
  PRINCIPAL_ARN,
  pick,
  quote,
  REQ,
  RES,
  RecordProblem,
  ROLE_ARN,
  required,
  type Segments,
  standingOf,
  toIsoTimestamp,
} from './cloudtrail-helpers.ts';
import { eventSchemas } from './cloudtrail-schemas.ts';
import {
  HANDLED_IAM_EVENTS,
  type HandledIamEventName,
  IAM_EVENT_SOURCE,
  iamHandlers,
  WORKLOAD_IDENTITY_EKS_EVENTS,
  workloadIdentityEksHandlers,
} from './cloudtrail-workload-identity.ts';

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
  ...CERTIFICATE_AUTHORITY_EVENTS,
  ...WORKLOAD_IDENTITY_EKS_EVENTS,
] as const;
export type HandledEksEventName = (typeof HANDLED_EKS_EVENTS)[number];
export { clusterNameIn } from './cloudtrail-helpers.ts';
export { HANDLED_IAM_EVENTS, type HandledIamEventName, IAM_EVENT_SOURCE, toIsoTimestamp };

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
  | {
      /**
       * An IAM call (DeleteRole, UpdateAssumeRolePolicy, …): it names no cluster, only the
       * account, and its record arrives in us-east-1 whatever the clusters' Regions.
       */
      kind: 'account-change';
      change: Change;
      eventId: string;
      eventName: HandledIamEventName;
      eventTime: string;
      accountId: string;
      /** The record's Region (us-east-1 for IAM): not a cluster's Region. */
      region: string;
      actor?: string;
      by?: Actor;
    }
  | { kind: 'ignored'; reason: string; eventId?: string; eventName?: string }
  | { kind: 'invalid'; reason: string };

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

  UpdateClusterConfig: updateClusterConfig,
  ...certificateAuthorityHandlers,

  ...workloadIdentityEksHandlers,
};

function isHandled(name: string): name is HandledEksEventName {
  return (HANDLED_EKS_EVENTS as readonly string[]).includes(name);
}

/** IAM builders leave the role's account empty: the record's account fills it. */
function withAccount(change: Change, accountId: string): Change {
  return 'role' in change && change.role.accountId === ''
    ? { ...change, role: { ...change.role, accountId } }
    : change;
}

function isHandledIam(name: string): name is HandledIamEventName {
  return (HANDLED_IAM_EVENTS as readonly string[]).includes(name);
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
    if (input.source !== EKS_EVENT_SOURCE && input.source !== IAM_EVENT_SOURCE) {
      return { kind: 'ignored', reason: `not an EKS or IAM event (source ${quote(input.source)})` };
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

  const standing = standingOf(record, at);
  if (standing.kind === 'invalid') return { kind: 'invalid', reason: standing.reason };
  if (standing.kind === 'ignored') return ignored(standing.reason);
  const iam = standing.service === 'iam';
  if (iam ? !isHandledIam(eventName) : !isHandled(eventName)) {
    return ignored(`${eventName} is not an ${iam ? 'IAM' : 'EKS'} call the monitor handles`);
  }

  try {
    const handled = iam
      ? iamHandlers[eventName as HandledIamEventName](record)
      : handlers[eventName as HandledEksEventName](record);
    if (!handled.ok) {
      const problems = handled.issues.map((issue) => `${at(issue.path)}: ${describeIssue(issue)}`);
      const shown = problems.slice(0, 3).join('; ');
      const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
      return { kind: 'invalid', reason: `${eventName} record: ${shown}${more}` };
    }
    const { header, change } = handled;
    if ('ignore' in change) return ignored(change.ignore);
    const region = pick(
      header.awsRegion,
      typeof envelopeRegion === 'string' && envelopeRegion !== '' ? envelopeRegion : undefined,
    );
    const accountId = pick(
      header.recipientAccountId,
      typeof envelopeAccount === 'string' && /^\d{12}$/.test(envelopeAccount) ? envelopeAccount : undefined,
    );
    const checkedRegion = required(region, ['awsRegion'], 'required string is missing');
    const checkedAccount = required(accountId, ['recipientAccountId'], 'required account ID is missing');
    const actor = header.userIdentity?.arn;
    const by = actorOfRecord(record);
    if (iam) {
      return {
        kind: 'account-change',
        // IAM names the role by name only: its account is the record's.
        change: withAccount(change, checkedAccount),
        eventId: header.eventID,
        eventName: eventName as HandledIamEventName,
        eventTime: header.eventTime,
        region: checkedRegion,
        accountId: checkedAccount,
        ...(typeof actor === 'string' && actor !== '' ? { actor } : {}),
        ...(by === undefined ? {} : { by }),
      };
    }
    const clusterName = clusterNameOf(header.requestParameters, header.responseElements);
    return {
      kind: 'change',
      change,
      eventId: header.eventID,
      eventName: eventName as HandledEksEventName,
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
