/**
 * The bytes of a CloudWatch Logs subscription event as Lambda receives it,
 * `{"awslogs":{"data": base64(gzip(JSON))}}`, → the decoded message (JSON, parsed by
 * `parseAuditSubscription` in the core). Gunzip is bounded: a Lambda event is at most 6 MB of
 * base64, and a hostile gzip stream must not inflate without limit.
 */
import { gunzipSync } from 'node:zlib';

/** Decompressed size accepted: a batch of log events is far smaller (1 MB per event, a few per batch). */
export const MAX_DECODED_BYTES = 32 * 1024 * 1024;

export class SubscriptionPayloadError extends Error {
  override readonly name = 'SubscriptionPayloadError';
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a value has the envelope a subscription delivers (`awslogs.data` a string). */
export function isSubscriptionEnvelope(v: unknown): v is { awslogs: { data: string } } {
  return isRecord(v) && isRecord(v.awslogs) && typeof v.awslogs.data === 'string';
}

/** The decoded message of a subscription event; throws `SubscriptionPayloadError` naming the step that failed. */
export function decodeSubscriptionEvent(event: unknown): unknown {
  if (!isSubscriptionEnvelope(event))
    throw new SubscriptionPayloadError('not a CloudWatch Logs subscription event: awslogs.data is missing');
  const data = event.awslogs.data;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new SubscriptionPayloadError('awslogs.data is not base64');
  let text: string;
  try {
    text = gunzipSync(Buffer.from(data, 'base64'), { maxOutputLength: MAX_DECODED_BYTES }).toString('utf8');
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw new SubscriptionPayloadError(
      code === 'ERR_BUFFER_TOO_LARGE'
        ? `awslogs.data inflates past ${MAX_DECODED_BYTES} bytes`
        : 'awslogs.data is not gzip',
      { cause },
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new SubscriptionPayloadError('awslogs.data does not hold JSON', { cause });
  }
}
