/** dynalite (a real DynamoDB implementation) in-process on an ephemeral 127.0.0.1 port, and the state table. */
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createDynamoDbClient } from '../../shared/adapters/dynamodb-alert-store.ts';

export const TEST_CREDENTIALS = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' };

export async function startDynalite() {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const dynamodb = createDynamoDbClient('eu-west-1', {
    endpoint,
    credentials: TEST_CREDENTIALS,
    maxAttempts: 1,
    callBudgetMs: 5_000,
  });
  return {
    endpoint,
    dynamodb,
    async close() {
      dynamodb.client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The table shape documented in shared/adapters/dynamodb-alert-store.ts. */
export async function createStateTable(
  dynamodb: ReturnType<typeof createDynamoDbClient>,
  tableName: string,
): Promise<void> {
  await dynamodb.client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  try {
    await dynamodb.client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      }),
    );
  } catch {
    // dynalite does not implement UpdateTimeToLive; the TTL is the real table's concern.
  }
}
