/**
 * CloudTrail records of the workload-identity write calls → `Change`: EKS Pod Identity
 * associations and add-ons (source `aws.eks`, the cluster in `requestParameters.name`), and the
 * IAM calls that break Pod Identity or IRSA (source `aws.iam`; IAM is global, so its records are
 * delivered in us-east-1 only and name no cluster, only the account). Shapes are loose, as in
 * cloudtrail-schemas.ts; every value is attacker-written and checked before use.
 */

import type { PodIdentityAssociation } from '../model.ts';
import { POD_IDENTITY_AGENT_ADDON } from '../predict/change.ts';
import * as z from '../zod-mini.ts';
import {
  type Built,
  checkArn,
  decodePathParameter,
  type Handled,
  handler,
  IAM_NAME,
  PARTITION,
  pick,
  quote,
  REQ,
  RES,
  RecordProblem,
  ROLE_ARN,
  required,
  toIsoTimestamp,
} from './cloudtrail-helpers.ts';
import { clusterShape, headerShape, responseOf, text } from './cloudtrail-schemas.ts';

export const WORKLOAD_IDENTITY_EKS_EVENTS = [
  'CreatePodIdentityAssociation',
  'UpdatePodIdentityAssociation',
  'DeletePodIdentityAssociation',
  'UpdateAddon',
  'DeleteAddon',
] as const;
export type WorkloadIdentityEksEventName = (typeof WORKLOAD_IDENTITY_EKS_EVENTS)[number];

export const HANDLED_IAM_EVENTS = [
  'DeleteRole',
  'UpdateAssumeRolePolicy',
  'DetachRolePolicy',
  'DeleteRolePolicy',
  'DeleteOpenIDConnectProvider',
] as const;
export type HandledIamEventName = (typeof HANDLED_IAM_EVENTS)[number];

export const IAM_EVENT_SOURCE = 'aws.iam';
/** IAM is a global service: CloudTrail delivers its records to EventBridge in this Region only. */
export const IAM_EVENT_REGION = 'us-east-1';

const associationBody = z.looseObject({
  associationId: z.optional(text()),
  associationArn: z.optional(text()),
  clusterName: z.optional(text()),
  namespace: z.optional(text()),
  serviceAccount: z.optional(text()),
  roleArn: z.optional(text()),
  targetRoleArn: z.nullish(z.string()),
  externalId: z.nullish(z.string()),
  disableSessionTags: z.nullish(z.boolean()),
  createdAt: z.optional(z.unknown()),
  modifiedAt: z.optional(z.unknown()),
});

const associationRequest = {
  ...clusterShape,
  associationId: z.optional(text()),
  namespace: z.optional(text()),
  serviceAccount: z.optional(text()),
  roleArn: z.optional(text()),
  targetRoleArn: z.nullish(z.string()),
  disableSessionTags: z.nullish(z.boolean()),
};

const addonRequest = { ...clusterShape, addonName: text(), addonVersion: z.optional(text()) };

const iamHeader = { ...headerShape, requestParameters: z.looseObject({}) };

const schemas = {
  CreatePodIdentityAssociation: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject(associationRequest),
    responseElements: responseOf({ association: z.optional(associationBody) }),
  }),
  UpdatePodIdentityAssociation: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({ ...associationRequest, associationId: text() }),
    responseElements: responseOf({ association: z.optional(associationBody) }),
  }),
  DeletePodIdentityAssociation: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({ ...clusterShape, associationId: text() }),
    responseElements: responseOf({ association: z.optional(associationBody) }),
  }),
  UpdateAddon: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject(addonRequest),
    responseElements: responseOf({}),
  }),
  DeleteAddon: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject(addonRequest),
    responseElements: responseOf({}),
  }),
  DeleteRole: z.looseObject({
    ...iamHeader,
    requestParameters: z.looseObject({ ...clusterShape, roleName: text() }),
  }),
  UpdateAssumeRolePolicy: z.looseObject({
    ...iamHeader,
    requestParameters: z.looseObject({ ...clusterShape, roleName: text(), policyDocument: text() }),
  }),
  DetachRolePolicy: z.looseObject({
    ...iamHeader,
    requestParameters: z.looseObject({ ...clusterShape, roleName: text(), policyArn: text() }),
  }),
  DeleteRolePolicy: z.looseObject({
    ...iamHeader,
    requestParameters: z.looseObject({ ...clusterShape, roleName: text(), policyName: text() }),
  }),
  DeleteOpenIDConnectProvider: z.looseObject({
    ...iamHeader,
    requestParameters: z.looseObject({ ...clusterShape, openIDConnectProviderArn: text() }),
  }),
};

const ROLE_NAME = /^[\w+=,.@-]{1,64}$/;
const MANAGED_POLICY_ARN = new RegExp(`^${PARTITION}:iam::(?:aws|\\d{12}):policy/${IAM_NAME}$`);
const OIDC_PROVIDER_ARN = new RegExp(`^${PARTITION}:iam::\\d{12}:oidc-provider/[\\w.:/-]+$`);
const K8S_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

function roleName(value: string): { accountId: string; roleName: string } {
  if (!ROLE_NAME.test(value))
    throw new RecordProblem([REQ, 'roleName'], `expected an IAM role name, got ${quote(value)}`);
  // The account is the record's: parseEksEvent fills it in.
  return { accountId: '', roleName: value };
}

function k8sName(value: string, segments: PropertyKey[], what: string): string {
  if (!K8S_NAME.test(value))
    throw new RecordProblem(segments, `expected a Kubernetes ${what}, got ${quote(value)}`);
  return value;
}

/** An optional role ARN of the record: absent, empty (`""` clears `targetRoleArn`), or a checked ARN. */
function optionalRole(value: string | null | undefined, segments: PropertyKey[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === '') return '';
  return checkArn(value, ROLE_ARN, 'an IAM role ARN', segments);
}

/**
 * A trust policy document as the record carries it: JSON text, URL-encoded by some callers (the
 * IAM query API takes it form-encoded). Kept as text: the rules parse it, never this.
 */
function policyDocument(value: string): string {
  const trimmed = value.trim();
  if (trimmed.startsWith('{')) return trimmed;
  return decodePathParameter(trimmed, [REQ, 'policyDocument']).trim();
}

export const workloadIdentityEksHandlers: Record<WorkloadIdentityEksEventName, (record: unknown) => Handled> =
  {
    CreatePodIdentityAssociation: handler(
      schemas.CreatePodIdentityAssociation,
      ({ requestParameters: req, responseElements: res }) => {
        const created = res?.association;
        const path = (field: string) =>
          created?.[field] === undefined ? [REQ, field] : [RES, 'association', field];
        const missing = 'required string is missing';
        const namespace = required(pick(created?.namespace, req.namespace), [REQ, 'namespace'], missing);
        const serviceAccount = required(
          pick(created?.serviceAccount, req.serviceAccount),
          [REQ, 'serviceAccount'],
          missing,
        );
        const roleArn = required(pick(created?.roleArn, req.roleArn), [REQ, 'roleArn'], missing);
        const associationId = required(
          created?.associationId,
          [RES, 'association', 'associationId'],
          'required string is missing (the response names the association)',
        );
        const target = optionalRole(
          pick(created?.targetRoleArn ?? undefined, req.targetRoleArn ?? undefined),
          path('targetRoleArn'),
        );
        const disableSessionTags = pick(
          created?.disableSessionTags ?? undefined,
          req.disableSessionTags ?? undefined,
        );
        const createdAt = toIsoTimestamp(created?.createdAt);
        const modifiedAt = toIsoTimestamp(created?.modifiedAt);
        const association: PodIdentityAssociation = {
          associationId,
          ...(created?.associationArn === undefined ? {} : { associationArn: created.associationArn }),
          namespace: k8sName(namespace, path('namespace'), 'namespace'),
          serviceAccount: k8sName(serviceAccount, path('serviceAccount'), 'service account name'),
          roleArn: checkArn(roleArn, ROLE_ARN, 'an IAM role ARN', path('roleArn')),
          ...(target === undefined || target === '' ? {} : { targetRoleArn: target }),
          // EKS generates it with the target; only the response knows it.
          ...(target === undefined || target === '' || !created?.externalId
            ? {}
            : { externalId: created.externalId }),
          ...(disableSessionTags === undefined ? {} : { disableSessionTags }),
          ...(createdAt === undefined ? {} : { createdAt }),
          ...(modifiedAt === undefined ? {} : { modifiedAt }),
        };
        return { kind: 'create-pod-identity-association', association };
      },
    ),

    UpdatePodIdentityAssociation: handler(
      schemas.UpdatePodIdentityAssociation,
      ({ requestParameters: req, responseElements: res }) => {
        const roleArn = optionalRole(req.roleArn, [REQ, 'roleArn']);
        const targetRoleArn = optionalRole(req.targetRoleArn, [REQ, 'targetRoleArn']);
        if (roleArn === '') throw new RecordProblem([REQ, 'roleArn'], 'must not be empty');
        const disableSessionTags = req.disableSessionTags ?? undefined;
        return {
          kind: 'update-pod-identity-association',
          associationId: decodePathParameter(req.associationId, [REQ, 'associationId']),
          ...(roleArn === undefined ? {} : { roleArn }),
          ...(targetRoleArn === undefined ? {} : { targetRoleArn }),
          ...(res?.association?.targetRoleArn && res.association.externalId
            ? { externalId: res.association.externalId }
            : {}),
          ...(disableSessionTags === undefined ? {} : { disableSessionTags }),
        };
      },
    ),

    DeletePodIdentityAssociation: handler(
      schemas.DeletePodIdentityAssociation,
      ({ requestParameters: req, responseElements: res }): Built => {
        const associationId = decodePathParameter(req.associationId, [REQ, 'associationId']);
        const gone = res?.association;
        const at = (field: string) => [RES, 'association', field];
        const association: PodIdentityAssociation | undefined =
          gone?.namespace !== undefined && gone.serviceAccount !== undefined && gone.roleArn !== undefined
            ? {
                associationId,
                namespace: k8sName(gone.namespace, at('namespace'), 'namespace'),
                serviceAccount: k8sName(gone.serviceAccount, at('serviceAccount'), 'service account name'),
                roleArn: checkArn(gone.roleArn, ROLE_ARN, 'an IAM role ARN', at('roleArn')),
                ...(gone.targetRoleArn
                  ? {
                      targetRoleArn: checkArn(
                        gone.targetRoleArn,
                        ROLE_ARN,
                        'an IAM role ARN',
                        at('targetRoleArn'),
                      ),
                    }
                  : {}),
                ...(typeof gone.disableSessionTags === 'boolean'
                  ? { disableSessionTags: gone.disableSessionTags }
                  : {}),
              }
            : undefined;
        return {
          kind: 'delete-pod-identity-association',
          associationId,
          ...(association === undefined ? {} : { association }),
        };
      },
    ),

    UpdateAddon: handler(schemas.UpdateAddon, ({ requestParameters: req }): Built => {
      const addonName = decodePathParameter(req.addonName, [REQ, 'addonName']);
      if (addonName !== POD_IDENTITY_AGENT_ADDON)
        return {
          ignore: `UpdateAddon of ${quote(addonName)}: only ${POD_IDENTITY_AGENT_ADDON} is an authentication change`,
        };
      return {
        kind: 'update-addon',
        addonName,
        ...(req.addonVersion === undefined ? {} : { addonVersion: req.addonVersion }),
      };
    }),

    DeleteAddon: handler(schemas.DeleteAddon, ({ requestParameters: req }): Built => {
      const addonName = decodePathParameter(req.addonName, [REQ, 'addonName']);
      if (addonName !== POD_IDENTITY_AGENT_ADDON)
        return {
          ignore: `DeleteAddon of ${quote(addonName)}: only ${POD_IDENTITY_AGENT_ADDON} is an authentication change`,
        };
      return { kind: 'delete-addon', addonName };
    }),
  };

export const iamHandlers: Record<HandledIamEventName, (record: unknown) => Handled> = {
  DeleteRole: handler(schemas.DeleteRole, ({ requestParameters: req }) => ({
    kind: 'delete-role',
    role: roleName(req.roleName),
  })),
  UpdateAssumeRolePolicy: handler(schemas.UpdateAssumeRolePolicy, ({ requestParameters: req }) => ({
    kind: 'update-role-trust',
    role: roleName(req.roleName),
    trustPolicy: policyDocument(req.policyDocument),
  })),
  DetachRolePolicy: handler(schemas.DetachRolePolicy, ({ requestParameters: req }) => ({
    kind: 'detach-role-policy',
    role: roleName(req.roleName),
    policyArn: checkArn(req.policyArn, MANAGED_POLICY_ARN, 'an IAM managed policy ARN', [REQ, 'policyArn']),
  })),
  DeleteRolePolicy: handler(schemas.DeleteRolePolicy, ({ requestParameters: req }) => ({
    kind: 'delete-role-policy',
    role: roleName(req.roleName),
    policyName: req.policyName,
  })),
  DeleteOpenIDConnectProvider: handler(schemas.DeleteOpenIDConnectProvider, ({ requestParameters: req }) => ({
    kind: 'delete-oidc-provider',
    providerArn: checkArn(req.openIDConnectProviderArn, OIDC_PROVIDER_ARN, 'an IAM OIDC provider ARN', [
      REQ,
      'openIDConnectProviderArn',
    ]),
  })),
};
