/**
 * IdempotencyStore over the monitor's DynamoDB table (shape: see dynamodb-alert-store.ts):
 * item `pk = event#<key>`, `sk = event`, `status` (`IN_PROGRESS` | `COMPLETED`),
 * `inProgressExpiresAt` (epoch ms), `expiresAt` (epoch seconds, the table's TTL attribute).
 *
 * The semantics are those of Powertools for AWS Lambda's Idempotency utility (its DynamoDB
 * persistence layer: an in-progress record with its own expiry at the function's remaining time,
 * then a completed record kept for the TTL). The project keeps its own implementation of about
 * a hundred lines instead of the utility, for the event path's bundle size; keep the two aligned:
 *   - `claim` is one conditional PutItem of an `IN_PROGRESS` item, accepted when
 *     `attribute_not_exists(pk) OR expiresAt < :now OR (status = IN_PROGRESS AND
 *     inProgressExpiresAt < :nowMs)`: a claim left by a timeout, an OOM or a crash is taken again
 *     once its in-progress expiry (just past the function's timeout) has passed. DynamoDB deletes
 *     expired items lazily (up to days later), so the condition checks the expiries itself.
 *   - `complete` writes `COMPLETED` with the TTL (24 h by default): a redelivery is `completed`.
 *   - `release` deletes an `IN_PROGRESS` claim only (never a completed one).
 * When the claim is refused, one consistent GetItem says which state holds it (dynalite does not
 * return the old item on a failed condition).
 */
import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ClaimOutcome, Clock, IdempotencyStore } from '../ports.ts';
import { type AwsClient, budgetOptions } from './aws-clients.ts';
import { isAwsError, toMonitorIoError } from './errors.ts';

export const IDEMPOTENCY_SK = 'event';
export const IN_PROGRESS = 'IN_PROGRESS';
export const COMPLETED = 'COMPLETED';

export interface DynamoDbIdempotencyOptions {
  dynamodb: AwsClient<DynamoDBClient>;
  tableName: string;
  /** Defaults to the system clock. */
  clock?: Clock;
}

export function idempotencyPk(key: string): string {
  return `event#${key}`;
}

function conditionFailed(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException || isAwsError(error, 'ConditionalCheckFailedException')
  );
}

export function createDynamoDbIdempotencyStore(options: DynamoDbIdempotencyOptions): IdempotencyStore {
  const { client, callBudgetMs } = options.dynamodb;
  const table = options.tableName;
  const now = () => (options.clock ?? { now: () => new Date() }).now();
  const itemKey = (pk: string) => ({ pk: { S: pk }, sk: { S: IDEMPOTENCY_SK } });
  const failure = (error: unknown, operation: string, pk: string) =>
    toMonitorIoError(error, {
      service: 'dynamodb',
      operation,
      resource: `table ${table} item ${pk}/${IDEMPOTENCY_SK}`,
    });

  async function holder(pk: string): Promise<ClaimOutcome> {
    try {
      const out = await client.send(
        new GetItemCommand({ TableName: table, Key: itemKey(pk), ConsistentRead: true }),
        budgetOptions(callBudgetMs),
      );
      // Gone in between (released): the next delivery takes it; this one is not the owner.
      return out.Item?.status?.S === COMPLETED ? 'completed' : 'in-progress';
    } catch (error) {
      throw failure(error, 'GetItem', pk);
    }
  }

  return {
    async claim(key, { inProgressUntil, ttlSeconds }) {
      const pk = idempotencyPk(key);
      const at = now();
      const nowSeconds = Math.floor(at.getTime() / 1000);
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              ...itemKey(pk),
              status: { S: IN_PROGRESS },
              inProgressExpiresAt: { N: String(Math.ceil(inProgressUntil)) },
              expiresAt: { N: String(nowSeconds + Math.max(1, Math.ceil(ttlSeconds))) },
              claimedAt: { S: at.toISOString() },
            },
            ConditionExpression:
              'attribute_not_exists(pk) OR expiresAt < :now OR (#status = :inProgress AND inProgressExpiresAt < :nowMs)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':now': { N: String(nowSeconds) },
              ':nowMs': { N: String(at.getTime()) },
              ':inProgress': { S: IN_PROGRESS },
            },
          }),
          budgetOptions(callBudgetMs),
        );
        return 'claimed';
      } catch (error) {
        if (conditionFailed(error)) return holder(pk);
        throw failure(error, 'PutItem', pk);
      }
    },

    async complete(key, ttlSeconds) {
      const pk = idempotencyPk(key);
      const at = now();
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              ...itemKey(pk),
              status: { S: COMPLETED },
              expiresAt: { N: String(Math.floor(at.getTime() / 1000) + Math.max(1, Math.ceil(ttlSeconds))) },
              completedAt: { S: at.toISOString() },
            },
          }),
          budgetOptions(callBudgetMs),
        );
      } catch (error) {
        throw failure(error, 'PutItem', pk);
      }
    },

    async release(key) {
      const pk = idempotencyPk(key);
      try {
        await client.send(
          new DeleteItemCommand({
            TableName: table,
            Key: itemKey(pk),
            ConditionExpression: '#status = :inProgress',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':inProgress': { S: IN_PROGRESS } },
          }),
          budgetOptions(callBudgetMs),
        );
      } catch (error) {
        if (conditionFailed(error)) return; // completed (or already gone): nothing to give back
        throw failure(error, 'DeleteItem', pk);
      }
    },
  };
}
