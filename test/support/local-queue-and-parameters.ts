/**
 * The two AWS services the sandbox, dynalite and s3rver do not serve, as a small local HTTP
 * endpoint: SQS (AWS JSON 1.0: SendMessage, SendMessageBatch — messages are recorded, MD5s
 * answered so the SDK's checksum validation passes) and SSM (AWS JSON 1.1: GetParameter with
 * decryption of recorded parameters). Signatures are not checked.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedMessage {
  queueUrl: string;
  body: string;
  delaySeconds: number | undefined;
}

export interface LocalQueueAndParameters {
  endpoint: string;
  messages: RecordedMessage[];
  parameters: Map<string, string>;
  /** `X-Amz-Target` of every request. */
  calls: string[];
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export async function startLocalQueueAndParameters(): Promise<LocalQueueAndParameters> {
  const messages: RecordedMessage[] = [];
  const parameters = new Map<string, string>();
  const calls: string[] = [];
  let id = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      calls.push(target);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      const reply = (status: number, payload: unknown, type = 'application/x-amz-json-1.0') => {
        res.writeHead(status, { 'content-type': type });
        res.end(JSON.stringify(payload));
      };
      if (target === 'AmazonSQS.SendMessageBatch') {
        const entries = body.Entries as Array<{ Id: string; MessageBody: string; DelaySeconds?: number }>;
        const queueUrl = String(body.QueueUrl);
        for (const e of entries)
          messages.push({ queueUrl, body: e.MessageBody, delaySeconds: e.DelaySeconds });
        reply(200, {
          Successful: entries.map((e) => ({
            Id: e.Id,
            MessageId: `m-${++id}`,
            MD5OfMessageBody: md5(e.MessageBody),
          })),
          Failed: [],
        });
        return;
      }
      if (target === 'AmazonSQS.SendMessage') {
        const text = String(body.MessageBody);
        messages.push({
          queueUrl: String(body.QueueUrl),
          body: text,
          delaySeconds: body.DelaySeconds as number | undefined,
        });
        reply(200, { MessageId: `m-${++id}`, MD5OfMessageBody: md5(text) });
        return;
      }
      if (target === 'AmazonSSM.GetParameter') {
        const name = String(body.Name);
        const value = parameters.get(name);
        if (value === undefined) {
          reply(
            400,
            { __type: 'ParameterNotFound', message: `${name} not found` },
            'application/x-amz-json-1.1',
          );
          return;
        }
        reply(
          200,
          { Parameter: { Name: name, Type: 'SecureString', Value: value, Version: 1 } },
          'application/x-amz-json-1.1',
        );
        return;
      }
      reply(400, { __type: 'UnknownOperationException', message: `not served: ${target}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    messages,
    parameters,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
