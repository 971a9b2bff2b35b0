/**
 * CloudTrail records of EKS and IAM write calls, as EventBridge delivers them
 * (docs/eks-auth-semantics.md#cloudtrail-records-delivered-by-eventbridge): the envelope with
 * `detail-type: AWS API Call via CloudTrail`, `source: aws.eks` (or `aws.iam`), and the CloudTrail
 * record in `detail`. EKS: `requestParameters` carries the cluster as `name` and path parameters as
 * they travelled (URL-encoded); `responseElements` is the API response body. IAM is global: its
 * records say `iam.amazonaws.com` and Region us-east-1 whatever Region the caller signed for, and
 * `requestParameters` are the call's parameters in camelCase (`roleName`, `policyDocument`, …).
 */
import { uuid } from './ids.ts';
import type { Principal } from './runtime.ts';

export interface CloudTrailInput {
  /** Default 'eks'. */
  service?: 'eks' | 'iam';
  principal: Principal;
  accountId: string;
  region: string;
  eventName: string;
  requestParameters: Record<string, unknown>;
  responseElements: unknown;
  userAgent: string;
  sourceIPAddress: string;
  requestId: string;
  at: number;
}

function cloudTrailTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function cloudTrailRecord(input: CloudTrailInput): Record<string, unknown> {
  const time = cloudTrailTime(input.at);
  const eventId = uuid();
  const p = input.principal;
  const service = input.service ?? 'eks';
  const host = service === 'iam' ? 'iam.amazonaws.com' : `eks.${input.region}.amazonaws.com`;
  return {
    version: '0',
    id: uuid(),
    'detail-type': 'AWS API Call via CloudTrail',
    source: `aws.${service}`,
    account: input.accountId,
    time,
    region: input.region,
    resources: [],
    detail: {
      eventVersion: '1.09',
      userIdentity: {
        type: 'AssumedRole',
        principalId: `${p.roleId}:${p.sessionName}`,
        arn: p.stsArn,
        accountId: input.accountId,
        accessKeyId: p.accessKeyId,
        sessionContext: {
          sessionIssuer: {
            type: 'Role',
            principalId: p.roleId,
            arn: p.arn,
            accountId: input.accountId,
            userName: p.roleName,
          },
          attributes: { creationDate: time, mfaAuthenticated: 'false' },
        },
      },
      eventTime: time,
      eventSource: `${service}.amazonaws.com`,
      eventName: input.eventName,
      awsRegion: input.region,
      sourceIPAddress: input.sourceIPAddress,
      userAgent: input.userAgent,
      requestParameters: input.requestParameters,
      responseElements: input.responseElements,
      requestID: input.requestId,
      eventID: eventId,
      readOnly: false,
      eventType: 'AwsApiCall',
      managementEvent: true,
      recipientAccountId: input.accountId,
      eventCategory: 'Management',
      tlsDetails: {
        tlsVersion: 'TLSv1.3',
        cipherSuite: 'TLS_AES_128_GCM_SHA256',
        clientProvidedHostHeader: host,
      },
    },
  };
}
