/**
 * AlertStore over DynamoDB: one item per cluster, written with optimistic concurrency.
 *
 * The monitor's one state table (created by serverless.yml from this description):
 *
 *   TableName         configurable (e.g. `${service}-${stage}-state`)
 *   BillingMode       PAY_PER_REQUEST
 *   KeySchema         pk (HASH, S), sk (RANGE, S)
 *   TTL               attribute `expiresAt` (Number, epoch seconds)
 *   SSE               enabled (AWS owned or a KMS key)
 *
 *   item kind      pk                                         sk       other attributes
 *   alert state    cluster#<account>#<region>#<cluster name>  alerts   version (N), records (S, JSON)
 *                                                                      or recordsGz (B, gzip JSON),
 *                                                                      updatedAt (S, ISO)
 *   idempotency    event#<key> (CloudTrail eventID …)         event    expiresAt (N), claimedAt (S)
 *
 * IAM: dynamodb:GetItem, PutItem, DeleteItem on the table ARN (no Scan, no Query needed).
 *
 * Which records are kept is the caller's decision (core/alerts/threads.ts `recordsToKeep`): the
 * store writes the records it is given. Item size: DynamoDB rejects items over 400 KB; the records
 * are stored as a JSON string, gzip-compressed when the JSON exceeds `GZIP_ABOVE_BYTES` (pending
 * notices repeat their finding, which compresses well). A state that is still too large is
 * refused with a typed error rather than truncated: truncating would lose pending notices
 * silently.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { AlertRecord } from '../core/alerts/index.ts';
import type { ClusterId } from '../core/model.ts';
import { ConcurrentUpdateError, MonitorIoError } from '../errors.ts';
import type { AlertStore } from '../ports.ts';
import { type AwsClient, budgetOptions, createAwsClient, type EndpointClientOptions } from './aws-clients.ts';
import { isAwsError, toMonitorIoError } from './errors.ts';

export const ALERTS_SK = 'alerts';
/** Above this many bytes of JSON the records are stored gzip-compressed. */
export const GZIP_ABOVE_BYTES = 100_000;
/** Room left for keys and the other attributes under DynamoDB's 400 KB item limit. */
export const MAX_RECORDS_BYTES = 380_000;

export type DynamoDbClientOptions = EndpointClientOptions;

export function createDynamoDbClient(
  region: string,
  options: DynamoDbClientOptions = {},
): AwsClient<DynamoDBClient> {
  return createAwsClient(DynamoDBClient, region, options, options.endpoint);
}

export interface DynamoDbStoreOptions {
  dynamodb: AwsClient<DynamoDBClient>;
  tableName: string;
}

export function alertStatePk(key: ClusterId): string {
  return `cluster#${key.accountId}#${key.region}#${key.clusterName}`;
}

function parseRecords(item: Record<string, AttributeValue>, where: string): AlertRecord[] {
  let text: string;
  if (item.recordsGz?.B !== undefined) text = gunzipSync(item.recordsGz.B).toString('utf8');
  else if (item.records?.S !== undefined) text = item.records.S;
  else return [];
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error('records is not a JSON array');
  for (const [i, r] of value.entries()) {
    const ok =
      typeof r === 'object' &&
      r !== null &&
      typeof (r as { fingerprint?: unknown }).fingerprint === 'string' &&
      typeof (r as { pending?: unknown }).pending === 'object';
    if (!ok) throw new Error(`records[${i}] of ${where} is not an alert record`);
  }
  return value as AlertRecord[];
}

export function createDynamoDbAlertStore(options: DynamoDbStoreOptions): AlertStore {
  const { client, callBudgetMs } = options.dynamodb;
  const table = options.tableName;

  return {
    async load(key) {
      const pk = alertStatePk(key);
      const resource = `table ${table} item ${pk}/${ALERTS_SK}`;
      let item: Record<string, AttributeValue> | undefined;
      try {
        const out = await client.send(
          new GetItemCommand({
            TableName: table,
            Key: { pk: { S: pk }, sk: { S: ALERTS_SK } },
            ConsistentRead: true,
          }),
          budgetOptions(callBudgetMs),
        );
        item = out.Item;
      } catch (error) {
        throw toMonitorIoError(error, { service: 'dynamodb', operation: 'GetItem', resource });
      }
      if (item === undefined) return { records: [] };
      const version = item.version?.N;
      try {
        const records = parseRecords(item, resource);
        return version === undefined ? { records } : { records, version };
      } catch (error) {
        throw new MonitorIoError(
          `GetItem on ${resource}: the stored alert state is not valid (${error instanceof Error ? error.message : String(error)})`,
          { code: 'invalid-document', service: 'dynamodb', operation: 'GetItem', resource, cause: error },
        );
      }
    },

    async save(key, records, version) {
      const pk = alertStatePk(key);
      const resource = `table ${table} item ${pk}/${ALERTS_SK}`;
      const json = JSON.stringify(records);
      const jsonBytes = Buffer.byteLength(json);
      const body: Record<string, AttributeValue> =
        jsonBytes > GZIP_ABOVE_BYTES ? { recordsGz: { B: gzipSync(json) } } : { records: { S: json } };
      const storedBytes = body.recordsGz?.B?.byteLength ?? jsonBytes;
      if (storedBytes > MAX_RECORDS_BYTES) {
        throw new MonitorIoError(
          `PutItem on ${resource}: ${records.length} alert records take ${storedBytes} bytes stored, over the ${MAX_RECORDS_BYTES}-byte budget of a DynamoDB item`,
          { code: 'too-large', service: 'dynamodb', operation: 'PutItem', resource },
        );
      }
      const previous = version === undefined ? undefined : Number(version);
      if (previous !== undefined && !Number.isSafeInteger(previous)) {
        throw new MonitorIoError(
          `PutItem on ${resource}: version ${JSON.stringify(version)} is not one load returned`,
          {
            code: 'invalid-document',
            service: 'dynamodb',
            operation: 'PutItem',
            resource,
          },
        );
      }
      const next = String((previous ?? 0) + 1);
      try {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: pk },
              sk: { S: ALERTS_SK },
              version: { N: next },
              updatedAt: { S: new Date().toISOString() },
              ...body,
            },
            ...(previous === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : {
                  ConditionExpression: '#version = :version',
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':version': { N: String(previous) } },
                }),
          }),
          budgetOptions(callBudgetMs),
        );
        return next;
      } catch (error) {
        if (
          error instanceof ConditionalCheckFailedException ||
          isAwsError(error, 'ConditionalCheckFailedException')
        ) {
          throw new ConcurrentUpdateError(
            `PutItem on ${resource}: another writer saved the alert state since version ${version ?? '(none)'} was loaded`,
            { code: 'conflict', service: 'dynamodb', operation: 'PutItem', resource, cause: error },
          );
        }
        throw toMonitorIoError(error, { service: 'dynamodb', operation: 'PutItem', resource });
      }
    },
  };
}
