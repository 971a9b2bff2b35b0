/**
 * Every HTTP(S) request this process sends, seen from the client's side (`node:diagnostics_channel`
 * `http.client.request.start`): when it got its socket and when its last byte was handed to the
 * socket (`finish`; a request destroyed before that, e.g. by an abort, never gets it).
 *
 * Why not the sandbox's own count: the sandbox records a call when it replies, in the same event
 * loop as the client. A request written just before the deadline's timer fires is parsed and
 * recorded only after the abort has run and the caller has returned, so a count taken at return
 * can grow afterwards although nothing was sent after it. "Nothing is sent after the deadline"
 * is a statement about the client: this is where to observe it. Test-only.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';

export interface OutgoingRequest {
  /** `host:port` as sent. */
  host: string;
  method: string;
  /** `performance.now()` when the request got its socket. */
  startedAt: number;
  /** `performance.now()` when its last byte went to the socket; undefined while (or if never) written. */
  writtenAt?: number;
  /** `performance.now()` when it closed (answered, aborted or destroyed); undefined while open. */
  closedAt?: number;
}

export interface OutgoingRequests {
  readonly requests: readonly OutgoingRequest[];
  /** Requests started or written after `at` (`performance.now()`). */
  sentAfter(at: number): OutgoingRequest[];
  /** Requests started by `at` and not closed by then: a call still waiting on its reply. */
  openAt(at: number): OutgoingRequest[];
  stop(): void;
}

const CHANNEL = 'http.client.request.start';

export function watchOutgoingRequests(): OutgoingRequests {
  const requests: OutgoingRequest[] = [];
  const onStart = (message: unknown): void => {
    const request = (message as { request: ClientRequest }).request;
    const seen: OutgoingRequest = {
      host: String(request.getHeader('host') ?? request.host),
      method: request.method,
      startedAt: performance.now(),
    };
    requests.push(seen);
    request.once('finish', () => {
      seen.writtenAt = performance.now();
    });
    request.once('close', () => {
      seen.closedAt = performance.now();
    });
  };
  subscribe(CHANNEL, onStart);
  return {
    requests,
    sentAfter: (at) => requests.filter((r) => r.startedAt > at || (r.writtenAt ?? at) > at),
    openAt: (at) =>
      requests.filter((r) => r.startedAt <= at && (r.closedAt === undefined || r.closedAt > at)),
    stop: () => unsubscribe(CHANNEL, onStart),
  };
}
