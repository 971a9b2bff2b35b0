/**
 * RemediationLedger over the monitor's state table (shape: dynamodb-alert-store.ts):
 *
 *   item kind          pk                                                  sk      other attributes
 *   action             remediation#<trigger>#<action>#<role>               action  result, detail, call…, expiresAt
 *   hourly action cap  remediation-rate#<account>#<region>#<cluster>#<hour> rate    count (N), expiresAt
 *
 * `claim` is a conditional PutItem (`attribute_not_exists(pk)`): the first run for a trigger takes
 * the action, a redelivery of the same event finds it taken and does nothing — at most once, even
 * when the first run died after acting. `takeSlot` is one conditional UpdateItem (`ADD count 1`
 * while `count < limit`). `record` writes the outcome onto the claimed item. IAM: PutItem on the
 * table (already granted), UpdateItem (granted with remediation only).
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Clock, RemediationLedger } from '../ports.ts';
import { type AwsClient, budgetOptions } from './aws-clients.ts';
import { isAwsError, toMonitorIoError } from './errors.ts';

/** How long an action's record stays (the idempotency window of its trigger and the audit trail). */
export const LEDGER_TTL_SECONDS = 30 * 24 * 3600;

export interface DynamoDbRemediationLedgerOptions {
  dynamodb: AwsClient<DynamoDBClient>;
  tableName: string;
  clock?: Clock;
}

const conditionFailed = (error: unknown) =>
  error instanceof ConditionalCheckFailedException || isAwsError(error, 'ConditionalCheckFailedException');

export function createDynamoDbRemediationLedger(
  options: DynamoDbRemediationLedgerOptions,
): RemediationLedger {
  const { client, callBudgetMs } = options.dynamodb;
  const table = options.tableName;
  const now = () => (options.clock ?? { now: () => new Date() }).now();
  const seconds = () => Math.floor(now().getTime() / 1000);
  const failure = (error: unknown, operation: string, pk: string) =>
    toMonitorIoError(error, { service: 'dynamodb', operation, resource: `table ${table} item ${pk}` });

  return {
    async claim(key) {
      const pk = `remediation#${key}`;
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: pk },
              sk: { S: 'action' },
              result: { S: 'claimed' },
              claimedAt: { S: now().toISOString() },
              expiresAt: { N: String(seconds() + LEDGER_TTL_SECONDS) },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
          budgetOptions(callBudgetMs),
        );
        return true;
      } catch (error) {
        if (conditionFailed(error)) return false;
        throw failure(error, 'PutItem', pk);
      }
    },

    async takeSlot(cluster, hour, limit) {
      const pk = `remediation-rate#${cluster.accountId}#${cluster.region}#${cluster.clusterName}#${hour}`;
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: table,
            Key: { pk: { S: pk }, sk: { S: 'rate' } },
            UpdateExpression: 'ADD #count :one SET expiresAt = :expires',
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: {
              ':one': { N: '1' },
              ':limit': { N: String(limit) },
              ':expires': { N: String(seconds() + 2 * 3600) },
            },
          }),
          budgetOptions(callBudgetMs),
        );
        return true;
      } catch (error) {
        if (conditionFailed(error)) return false;
        throw failure(error, 'UpdateItem', pk);
      }
    },

    async record(key, entry) {
      const pk = `remediation#${key}`;
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: pk },
              sk: { S: 'action' },
              action: { S: entry.action },
              principalArn: { S: entry.principalArn },
              result: { S: entry.result },
              detail: { S: entry.detail },
              dryRun: { BOOL: entry.dryRun },
              at: { S: entry.at },
              trigger: { S: entry.trigger },
              expiresAt: { N: String(seconds() + LEDGER_TTL_SECONDS) },
            },
          }),
          budgetOptions(callBudgetMs),
        );
      } catch (error) {
        throw failure(error, 'PutItem', pk);
      }
    },
  };
}
