/**
 * The CloudTrail record shapes of the EKS write calls that cloudtrail.ts turns into a `Change`
 * (zod/mini, loose: CloudTrail adds fields over time; only what the change needs is checked).
 */

import * as z from '../zod-mini.ts';

// Record shapes (loose: CloudTrail adds fields over time; only what the change needs is checked)

/** A non-empty string (shared with the workload-identity records). */
export const text = () => z.string().check(z.minLength(1, 'must not be empty'));
const names = () => z.array(z.string());

/** What every handled CloudTrail record carries (EKS and IAM alike). */
export const headerShape = {
  eventID: text(),
  eventTime: z.iso.datetime({ offset: true }),
  awsRegion: z.optional(text()),
  recipientAccountId: z.optional(z.string().check(z.regex(/^\d{12}$/, 'expected a 12-digit account ID'))),
  userIdentity: z.optional(z.looseObject({ arn: z.optional(z.string()) })),
};

export const clusterShape = { name: z.optional(text()), clusterName: z.optional(text()) };

const nodegroupBody = z.looseObject({
  nodegroupName: z.optional(text()),
  nodeRole: z.optional(text()),
  amiType: z.optional(text()),
  clusterName: z.optional(text()),
});

const fargateProfileBody = z.looseObject({
  fargateProfileName: z.optional(text()),
  podExecutionRoleArn: z.optional(text()),
  clusterName: z.optional(text()),
});

const accessEntryBody = z.looseObject({
  principalArn: z.optional(text()),
  type: z.optional(text()),
  username: z.optional(z.string()),
  kubernetesGroups: z.optional(names()),
  createdAt: z.optional(z.unknown()),
  modifiedAt: z.optional(z.unknown()),
  clusterName: z.optional(text()),
});

const accessScopeBody = z.looseObject({ type: text(), namespaces: z.optional(names()) });

export const responseOf = <T extends z.core.$ZodLooseShape>(shape: T) => z.nullish(z.looseObject(shape));

export const eventSchemas = {
  DeleteNodegroup: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({ ...clusterShape, nodegroupName: z.optional(text()) }),
    responseElements: responseOf({ nodegroup: z.optional(nodegroupBody) }),
  }),
  CreateNodegroup: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({
      ...clusterShape,
      nodegroupName: z.optional(text()),
      nodeRole: z.optional(text()),
      amiType: z.optional(text()),
    }),
    responseElements: responseOf({ nodegroup: z.optional(nodegroupBody) }),
  }),
  CreateFargateProfile: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({
      ...clusterShape,
      fargateProfileName: z.optional(text()),
      podExecutionRoleArn: z.optional(text()),
    }),
    responseElements: responseOf({ fargateProfile: z.optional(fargateProfileBody) }),
  }),
  DeleteFargateProfile: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({ ...clusterShape, fargateProfileName: z.optional(text()) }),
    responseElements: responseOf({ fargateProfile: z.optional(fargateProfileBody) }),
  }),
  CreateAccessEntry: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({
      ...clusterShape,
      principalArn: z.optional(text()),
      type: z.optional(text()),
      username: z.optional(z.string()),
      kubernetesGroups: z.optional(names()),
    }),
    responseElements: responseOf({ accessEntry: z.optional(accessEntryBody) }),
  }),
  DeleteAccessEntry: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({ ...clusterShape, principalArn: text() }),
    responseElements: responseOf({}),
  }),
  UpdateAccessEntry: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({
      ...clusterShape,
      principalArn: text(),
      username: z.optional(z.string()),
      kubernetesGroups: z.optional(names()),
    }),
    responseElements: responseOf({ accessEntry: z.optional(accessEntryBody) }),
  }),
  AssociateAccessPolicy: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({
      ...clusterShape,
      principalArn: text(),
      policyArn: text(),
      accessScope: accessScopeBody,
    }),
    responseElements: responseOf({
      clusterName: z.optional(text()),
      associatedAccessPolicy: z.optional(z.looseObject({ associatedAt: z.optional(z.unknown()) })),
    }),
  }),
  DisassociateAccessPolicy: z.looseObject({
    ...headerShape,
    requestParameters: z.looseObject({ ...clusterShape, principalArn: text(), policyArn: text() }),
    responseElements: responseOf({}),
  }),
  // UpdateClusterConfig: cloudtrail-cluster-config.ts (one call, many kinds of update).
};
