/**
 * IdempotencyStore over the monitor's DynamoDB table (shape: see dynamodb-alert-store.ts):
 * item `pk = event#<key>`, `sk = event`, `expiresAt` (epoch seconds, the table's TTL attribute).
 *
 * `claim` is one conditional PutItem: it succeeds when no claim exists or the existing one has
 * expired (DynamoDB deletes expired items lazily, up to days later, so the condition checks
 * `expiresAt` itself instead of relying on the TTL sweep).
 */
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Clock, IdempotencyStore } from '../ports.ts';
import { type AwsClient, budgetOptions } from './aws-clients.ts';
import { isAwsError, toMonitorIoError } from './errors.ts';

export const IDEMPOTENCY_SK = 'event';

export interface DynamoDbIdempotencyOptions {
  dynamodb: AwsClient<DynamoDBClient>;
  tableName: string;
  /** Defaults to the system clock. */
  clock?: Clock;
}

export function idempotencyPk(key: string): string {
  return `event#${key}`;
}

export function createDynamoDbIdempotencyStore(options: DynamoDbIdempotencyOptions): IdempotencyStore {
  const { client, callBudgetMs } = options.dynamodb;
  const table = options.tableName;
  const now = () => (options.clock ?? { now: () => new Date() }).now();

  return {
    async claim(key, ttlSeconds) {
      const pk = idempotencyPk(key);
      const at = now();
      const nowSeconds = Math.floor(at.getTime() / 1000);
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: pk },
              sk: { S: IDEMPOTENCY_SK },
              expiresAt: { N: String(nowSeconds + Math.max(1, Math.ceil(ttlSeconds))) },
              claimedAt: { S: at.toISOString() },
            },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': { N: String(nowSeconds) } },
          }),
          budgetOptions(callBudgetMs),
        );
        return true;
      } catch (error) {
        if (
          error instanceof ConditionalCheckFailedException ||
          isAwsError(error, 'ConditionalCheckFailedException')
        ) {
          return false;
        }
        throw toMonitorIoError(error, {
          service: 'dynamodb',
          operation: 'PutItem',
          resource: `table ${table} item ${pk}/${IDEMPOTENCY_SK}`,
        });
      }
    },

    async release(key) {
      const pk = idempotencyPk(key);
      try {
        await client.send(
          new DeleteItemCommand({ TableName: table, Key: { pk: { S: pk }, sk: { S: IDEMPOTENCY_SK } } }),
          budgetOptions(callBudgetMs),
        );
      } catch (error) {
        throw toMonitorIoError(error, {
          service: 'dynamodb',
          operation: 'DeleteItem',
          resource: `table ${table} item ${pk}/${IDEMPOTENCY_SK}`,
        });
      }
    },
  };
}
