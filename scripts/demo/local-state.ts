/**
 * The monitor's own state, local and in-process, on ephemeral 127.0.0.1 ports, for the incident
 * demo and the benchmarks (each behind a proxy that adds `latencyMs` and records the calls):
 *   - DynamoDB: dynalite, with the state table as serverless.yml declares it (pk/sk strings,
 *     on-demand; TTL on `expiresAt` where dynalite implements it — it does not);
 *   - S3: s3rver, with the snapshot bucket; it accepts the sandbox's access key (it checks that a
 *     key is known, not SigV4 signatures), so one set of credentials serves every client;
 *   - SQS: a minimal queue endpoint (AWS JSON 1.0 `SendMessage` and `SendMessageBatch`, answers
 *     with the MD5 digests the SDK checks) that records what the functions queue, with its
 *     `DelaySeconds`. No npm SQS fake runs on Node 20 without Java or Docker, and the demo needs
 *     only the sending half: it delivers the messages itself, as Lambda's SQS event source would
 *     (`sqsEvent`), once their delay has passed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import dynalite from 'dynalite';
import S3rver from 's3rver';

export interface QueuedMessage {
  messageId: string;
  body: string;
  delaySeconds: number;
  /** The queue it was sent to (the work queue, or awsAuthCheck's re-check queue). */
  queueUrl: string;
  /** Epoch ms when the message was sent; it is visible from `sentAt + delaySeconds * 1000`. */
  sentAt: number;
}

/** One request to a local state service, as its client saw it (latency included). */
export interface StateCall {
  service: 'dynamodb' | 's3' | 'sqs';
  start: number;
  end: number;
}

export interface LocalState {
  tableName: string;
  bucketName: string;
  queueUrl: string;
  /** AWS_ENDPOINT_URL_DYNAMODB, _S3, _SQS. */
  env: Record<string, string>;
  /** Every message sent, in order (the demo removes what it delivers). */
  queue: QueuedMessage[];
  /** Every request to DynamoDB, S3 and SQS (for counting round trips). */
  calls: StateCall[];
  close(): Promise<void>;
}

export interface LocalStateOptions {
  accountId: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** Added to every DynamoDB, S3 and SQS request, like the sandbox's `latencyMs` (default 0). */
  latencyMs?: number;
}

const listenOn = (server: Server): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });

const closeOf = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/**
 * An HTTP front for a local service that waits `latencyMs` before forwarding each request and
 * records it (start = request received, end = response finished).
 */
function createDelayProxy(
  target: string,
  service: StateCall['service'],
  latencyMs: number,
  calls: StateCall[],
): Server {
  const { hostname, port } = new URL(target);
  return createServer((req, res) => {
    const start = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const upstream = request(
          { hostname, port, method: req.method, path: req.url, headers: req.headers },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            answer.on('end', () => calls.push({ service, start, end: Date.now() }));
          },
        );
        upstream.on('error', () => {
          res.writeHead(502);
          res.end();
        });
        upstream.end(Buffer.concat(chunks));
      }, latencyMs);
    });
  });
}

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

/** A queue endpoint that records SendMessage / SendMessageBatch (AWS JSON 1.0, as SDK v3 sends them). */
function createQueueServer(queue: QueuedMessage[]): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const reply = (status: number, body: unknown): void => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': Buffer.byteLength(text),
          'x-amzn-requestid': randomUUID(),
        });
        res.end(text);
      };
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      } catch {
        reply(400, { __type: 'com.amazonaws.sqs#InvalidMessageContents', message: 'not JSON' });
        return;
      }
      const accept = (body: unknown, delay: unknown): { messageId: string; md5: string } => {
        const message: QueuedMessage = {
          messageId: randomUUID(),
          body: String(body),
          delaySeconds: typeof delay === 'number' ? delay : 0,
          queueUrl: typeof input.QueueUrl === 'string' ? input.QueueUrl : '',
          sentAt: Date.now(),
        };
        queue.push(message);
        return { messageId: message.messageId, md5: md5(message.body) };
      };
      if (target === 'AmazonSQS.SendMessage') {
        const sent = accept(input.MessageBody, input.DelaySeconds);
        reply(200, { MessageId: sent.messageId, MD5OfMessageBody: sent.md5 });
      } else if (target === 'AmazonSQS.SendMessageBatch') {
        const entries = Array.isArray(input.Entries) ? (input.Entries as Array<Record<string, unknown>>) : [];
        const successful = entries.map((e) => {
          const sent = accept(e.MessageBody, e.DelaySeconds);
          return { Id: e.Id, MessageId: sent.messageId, MD5OfMessageBody: sent.md5 };
        });
        reply(200, { Successful: successful, Failed: [] });
      } else {
        reply(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: `${target} is not served` });
      }
    });
  });
}

export async function startLocalState(options: LocalStateOptions): Promise<LocalState> {
  const tableName = 'eks-auth-sentinel-state';
  const bucketName = 'eks-auth-sentinel-snapshots';
  const queueName = 'eks-auth-sentinel-work';

  const dynamo = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const dynamoUrl = await listenOn(dynamo);
  const ddb = new DynamoDBClient({
    region: options.region,
    endpoint: dynamoUrl,
    credentials: options.credentials,
  });
  await ddb.send(
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
  ddb.destroy();

  const directory = mkdtempSync(join(tmpdir(), 'sentinel-s3-'));
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucketName }],
  });
  const { port: s3Port } = await s3.run();
  // s3rver knows one key pair (S3RVER); make the sandbox's key known to its dummy account.
  const account = createRequire(import.meta.url)('s3rver/lib/models/account.js') as {
    DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void };
  };
  account.DUMMY_ACCOUNT.createKeyPair(options.credentials.accessKeyId, options.credentials.secretAccessKey);

  const queue: QueuedMessage[] = [];
  const sqs = createQueueServer(queue);
  const sqsDirect = await listenOn(sqs);

  // Every client goes through a proxy that adds the latency and records the call.
  const calls: StateCall[] = [];
  const latency = options.latencyMs ?? 0;
  const proxies = [
    createDelayProxy(dynamoUrl, 'dynamodb', latency, calls),
    createDelayProxy(`http://127.0.0.1:${s3Port}`, 's3', latency, calls),
    createDelayProxy(sqsDirect, 'sqs', latency, calls),
  ];
  const [dynamoProxy, s3Proxy, sqsUrl] = await Promise.all(proxies.map(listenOn));

  return {
    tableName,
    bucketName,
    queueUrl: `${sqsUrl}/${options.accountId}/${queueName}`,
    env: {
      AWS_ENDPOINT_URL_DYNAMODB: dynamoProxy as string,
      AWS_ENDPOINT_URL_S3: s3Proxy as string,
      AWS_ENDPOINT_URL_SQS: sqsUrl as string,
    },
    queue,
    calls,
    async close() {
      await Promise.all([closeOf(dynamo), closeOf(sqs), s3.close(), ...proxies.map(closeOf)]);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Messages as Lambda's SQS event source delivers them (one batch). */
export function sqsEvent(messages: readonly QueuedMessage[], queueArn: string, region: string): SQSEvent {
  return {
    Records: messages.map((m) => ({
      messageId: m.messageId,
      receiptHandle: `local-${m.messageId}`,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(m.sentAt),
        SenderId: 'AROAEKSAUTHSENTINEL01:eks-auth-sentinel',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: md5(m.body),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: region,
    })),
  };
}
