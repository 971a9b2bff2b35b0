/**
 * Issue 17, "Secrets and bounds": an endpoint that echoes the webhook secret in its error body
 * leaked it into the error text (3 of 8 runs: the body was cut at 64 KiB before it was redacted,
 * and only the URL verbatim or Slack-shaped paths were redacted), and an `http:` webhook was
 * accepted. A local endpoint echoes the secret in many forms at random offsets, over 16 runs: the
 * error never holds any 6 characters of the secret. An `http:` webhook is refused before any POST.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackNoticeSender, webhookUrlProblem } from '../../shared/adapters/slack.ts';
import type { PendingNotice } from '../../shared/core/alerts/lifecycle.ts';
import { createFinding } from '../support/findings.ts';

let server: Server;
let port = 0;
let reply = '';
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const notice = (): PendingNotice => ({
  kind: 'opened',
  finding: createFinding(),
  at: '2026-11-29T12:00:00.000Z',
  attempts: 0,
});

/** A small seeded generator, so a failing run can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function token(next: () => number, n: number): string {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length: n }, () => abc[Math.floor(next() * abc.length)]).join('');
}

function windows(secret: string, size = 6): string[] {
  const out: string[] = [];
  for (let i = 0; i + size <= secret.length; i++) out.push(secret.slice(i, i + size));
  return out;
}

describe('Slack webhook errors never carry the webhook secret (issue 17)', () => {
  it('an endpoint echoing the secret in any form, anywhere in its body: 16 runs, no 6 characters of it', async () => {
    const seed = Date.now();
    const next = rng(seed);
    for (let run = 0; run < 16; run++) {
      const secret = token(next, 24);
      const query = token(next, 16);
      const url =
        run % 2 === 0
          ? `http://127.0.0.1:${port}/services/T0A1B2C3/B9Z8Y7X6/${secret}`
          : `http://127.0.0.1:${port}/hook/${secret}?key=${query}`;
      const path = new URL(url).pathname;
      const forms = [
        url,
        url.replace('http://', ''),
        JSON.stringify({ url }).slice(8, -2),
        encodeURIComponent(url),
        path,
        secret,
        `token=${secret}`,
        `key=${query}`,
      ];
      const form = forms[run % forms.length] as string;
      // Padding that collapses to one space and puts the echo across the 64 KiB cut, or right at the start.
      const pad = run < 8 ? 65_536 - Math.floor(next() * form.length) : Math.floor(next() * 40);
      reply = `${' '.repeat(pad)}${form} error: no such hook ${secret}`;
      const before = received;
      const result = await createSlackNoticeSender({ webhookUrl: url, timeoutMs: 5000 }).send([notice()]);
      expect(received - before).toBe(1);
      expect(result.delivered.size).toBe(0);
      expect(result.error, `seed ${seed} run ${run}`).toMatch(/Slack webhook answered HTTP 500/);
      for (const w of [...windows(secret), ...windows(query)])
        expect(result.error, `seed ${seed} run ${run}: ${form}`).not.toContain(w);
    }
  });

  it('refuses an http: webhook before any POST, with a configuration error that withholds the URL', async () => {
    const posted: string[] = [];
    const url = 'http://hooks.slack.com/services/T0A1B2C3/B9Z8Y7X6/plain-text-secret-token';
    const result = await createSlackNoticeSender({
      webhookUrl: url,
      fetch: async (input) => {
        posted.push(String(input));
        return new Response('ok');
      },
    }).send([notice()]);
    expect(posted).toEqual([]);
    expect(result.delivered.size).toBe(0);
    expect(result.error).toMatch(
      /^Slack webhook URL refused \(configuration\): it is an http: URL: only https:/,
    );
    expect(result.error).not.toContain('plain-text-secret-token');
    expect(webhookUrlProblem('https://hooks.slack.com/services/T1/B1/x')).toBeUndefined();
    expect(webhookUrlProblem('ftp://hooks.slack.com/x')).toMatch(/only https:/);
    expect(webhookUrlProblem('http://10.0.0.1/x')).toMatch(/only https:/);
    // A local sink (the sandbox, tests) never crosses a network.
    expect(webhookUrlProblem('http://127.0.0.1:4000/services/T1/B1/x')).toBeUndefined();
  });
});
