/**
 * The sandbox CA kept between processes (infra/sandbox/certs.ts): reused only when this user
 * alone can read it and it is whole and coherent; anything else is ignored.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTls, readStoredTls, sandboxTls, storeTls } from '../../infra/sandbox/certs.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the stored sandbox CA', () => {
  const tls = sandboxTls();

  it('is written for this user only and read back whole', () => {
    const file = join(dir, 'ok.json');
    storeTls(file, tls);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readStoredTls(file)).toEqual(tls);
  });

  it('is ignored when others can read it', () => {
    const file = join(dir, 'open.json');
    storeTls(file, tls);
    chmodSync(file, 0o644);
    expect(readStoredTls(file)).toBeUndefined();
  });

  it('is ignored when its server certificate was not signed by its CA', () => {
    const other = createTls();
    const file = join(dir, 'mixed.json');
    writeFileSync(file, JSON.stringify({ ...tls, caPem: other.caPem }), { mode: 0o600 });
    expect(readStoredTls(file)).toBeUndefined();
  });

  it('is ignored when it does not parse, lacks a field or is missing', () => {
    const garbage = join(dir, 'garbage.json');
    writeFileSync(garbage, '{"caPem": ', { mode: 0o600 });
    expect(readStoredTls(garbage)).toBeUndefined();
    const partial = join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify({ caPem: tls.caPem, certPem: tls.certPem }), { mode: 0o600 });
    expect(readStoredTls(partial)).toBeUndefined();
    expect(readStoredTls(join(dir, 'absent.json'))).toBeUndefined();
  });
});
