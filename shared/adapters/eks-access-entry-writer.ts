/**
 * AccessEntryWriter over `@aws-sdk/client-eks` (the client the event path already carries):
 * CreateAccessEntry, then AssociateAccessPolicy for each policy the entry needs (Auto Mode's `EC2`
 * entry: AmazonEKSAutoNodePolicy). An entry that exists already (`ResourceInUseException`) is
 * `already-present`, never replaced; `AccessDeniedException` is `forbidden`, naming the IAM
 * permissions the write needs. Anything else throws an `AwsApiError`.
 */
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  type CreateAccessEntryCommandInput,
  type EKSClient,
} from '@aws-sdk/client-eks';
import type { AccessEntryWriter, WriteOutcome } from '../ports.ts';
import { type AwsClient, budgetOptions } from './aws-clients.ts';
import { isAwsError, toAwsApiError } from './errors.ts';

export function createEksAccessEntryWriter(eks: AwsClient<EKSClient>): AccessEntryWriter {
  const { client, callBudgetMs } = eks;
  return {
    async createAccessEntry(cluster, entry): Promise<WriteOutcome> {
      const input: CreateAccessEntryCommandInput = {
        clusterName: cluster.clusterName,
        principalArn: entry.principalArn,
        type: entry.type,
      };
      try {
        await client.send(new CreateAccessEntryCommand(input), budgetOptions(callBudgetMs));
      } catch (error) {
        if (isAwsError(error, 'ResourceInUseException'))
          return {
            status: 'already-present',
            detail: 'an access entry for the principal exists (left as it is)',
          };
        if (isAwsError(error, 'AccessDeniedException'))
          return {
            status: 'forbidden',
            detail: `CreateAccessEntry was denied: the monitor's role needs eks:CreateAccessEntry on cluster ${cluster.clusterName} and iam:PassRole on ${entry.principalArn} (the remediation statement exists only with remediation=on)`,
          };
        throw toAwsApiError(error, {
          service: 'eks',
          operation: 'CreateAccessEntry',
          cluster: cluster.clusterName,
          subject: entry.principalArn,
        });
      }
      for (const policyArn of entry.accessPolicies) {
        try {
          await client.send(
            new AssociateAccessPolicyCommand({
              clusterName: cluster.clusterName,
              principalArn: entry.principalArn,
              policyArn,
              accessScope: { type: 'cluster' },
            }),
            budgetOptions(callBudgetMs),
          );
        } catch (error) {
          if (isAwsError(error, 'AccessDeniedException'))
            return {
              status: 'forbidden',
              detail: `the entry was created, but AssociateAccessPolicy of ${policyArn} was denied: the monitor's role needs eks:AssociateAccessPolicy on cluster ${cluster.clusterName}`,
            };
          throw toAwsApiError(error, {
            service: 'eks',
            operation: 'AssociateAccessPolicy',
            cluster: cluster.clusterName,
            subject: entry.principalArn,
          });
        }
      }
      return { status: 'done' };
    },
  };
}
