import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterSnapshot } from '../../shared/core/model.ts';
import { findJsonSyntaxFault } from '../../shared/core/snapshot/json-fault.ts';
import {
  buildSnapshotJsonSchema,
  formatJsonPath,
  formatSnapshotErrors,
  MAX_REPORTED_ERRORS,
  parseSnapshotJson,
  SNAPSHOT_JSON_SCHEMA_ID,
  type SnapshotValidation,
  validateSnapshot,
} from '../../shared/core/snapshot/snapshot-schema.ts';

const root = new URL('../../', import.meta.url);
const readText = (path: string) => readFileSync(new URL(path, root), 'utf8');
const BASE_TEXT = readText('scenarios/a-karpenter-shares-last-nodegroup-role.json');
const BASE: ClusterSnapshot = JSON.parse(BASE_TEXT);

/** A mutable deep clone of the base scenario, loosely typed so tests can break it. */
// biome-ignore lint/suspicious/noExplicitAny: tests write invalid shapes on purpose
const broken = (): any => structuredClone(BASE);

function errorsOf(result: SnapshotValidation) {
  if (result.ok) throw new Error('expected the validation to fail');
  return result;
}

/** Deterministic bytes (xorshift32), so the garbage test is reproducible. */
function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

describe('validateSnapshot', () => {
  it('accepts a valid snapshot and returns it typed', () => {
    const result = validateSnapshot(structuredClone(BASE));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.snapshot.clusterName).toBe('prod');
  });

  it('accepts a snapshot without the optional karpenterNodeClasses source', () => {
    const snapshot = broken();
    delete snapshot.karpenterNodeClasses;
    expect(validateSnapshot(snapshot).ok).toBe(true);
  });

  it('gives the JSON path of a bad value deep inside a source', () => {
    const snapshot = broken();
    const template = snapshot.nodegroups.data[0];
    snapshot.nodegroups.data = [0, 1, 2, 3].map((i) => ({ ...template, name: `ng-${i}` }));
    snapshot.nodegroups.data[3].nodeRole = 'arn:aws:iam::111122223333:instance-profile/prod-node-profile';
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('$.nodegroups.data[3].nodeRole');
    expect(errors[0]?.message).toMatch(
      /^expected an IAM role ARN \(got "arn:aws:iam::111122223333:instance-profile\//,
    );
  });

  it('gives the path of an aws-auth data key that is not a string', () => {
    const snapshot = broken();
    snapshot.awsAuth.data.data.mapRoles = [{ rolearn: 'x' }];
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('$.awsAuth.data.data.mapRoles');
  });

  it('rejects an unknown key as a likely typo, at the key itself', () => {
    const snapshot = broken();
    snapshot.cluster.authMode = 'API';
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors).toEqual([
      {
        path: '$.cluster.authMode',
        message: 'unknown key (not in ClusterSnapshot schema version 1; check the spelling)',
      },
    ]);
  });

  it('says a required key is missing', () => {
    const snapshot = broken();
    delete snapshot.clusterArn;
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors).toEqual([{ path: '$.clusterArn', message: 'required string is missing' }]);
  });

  it('rejects null for an optional field (optional means absent, not null)', () => {
    const snapshot = broken();
    snapshot.cluster.version = null;
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors.map((e) => e.path)).toEqual(['$.cluster.version']);
  });

  it('rejects a source without a status, or with a status it does not know, at the status', () => {
    const missing = broken();
    missing.compute = { data: [] };
    expect(errorsOf(validateSnapshot(missing)).errors.map((e) => e.path)).toEqual(['$.compute.status']);

    const snapshot = broken();
    snapshot.awsAuth = { status: 'unreadable', error: 'timeout' };
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors).toHaveLength(1);
    expect(errors[0]?.path).toBe('$.awsAuth.status');
    expect(errors[0]?.message).toMatch(/ok.*absent.*error/);
  });

  it('rejects an error source without its message and an ok source without data', () => {
    const snapshot = broken();
    snapshot.compute = { status: 'error' };
    snapshot.iamRoles = { status: 'ok' };
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors).toEqual([
      { path: '$.compute.error', message: 'required string is missing' },
      { path: '$.iamRoles.data', message: 'required array is missing' },
    ]);
  });

  it('accepts only schemaVersion 1', () => {
    const snapshot = broken();
    snapshot.schemaVersion = 2;
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors[0]?.path).toBe('$.schemaVersion');
    expect(errors[0]?.message).toContain('(got 2)');
  });

  it('rejects a timestamp that is not ISO 8601', () => {
    const snapshot = broken();
    snapshot.capturedAt = '20/11/2026 10:00';
    snapshot.iamRoles.data[0].createDate = 'yesterday';
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors.map((e) => e.path)).toEqual(['$.capturedAt', '$.iamRoles.data[0].createDate']);
  });

  it('sorts errors by path, array indices in numeric order', () => {
    const snapshot = broken();
    const node = snapshot.compute.data[0];
    snapshot.compute.data = Array.from({ length: 12 }, (_, i) => ({ ...node, id: `i-0${i}` }));
    snapshot.compute.data[10].kind = 'spot';
    snapshot.compute.data[2].kind = 'spot';
    snapshot.accountId = '1111';
    const { errors } = errorsOf(validateSnapshot(snapshot));
    expect(errors.map((e) => e.path)).toEqual([
      '$.accountId',
      '$.compute.data[2].kind',
      '$.compute.data[10].kind',
    ]);
  });

  it('reports at most 20 errors and counts the rest', () => {
    const snapshot = broken();
    const node = snapshot.compute.data[0];
    snapshot.compute.data = Array.from({ length: 30 }, (_, i) => ({ ...node, id: `i-0${i}`, ready: 'yes' }));
    const result = errorsOf(validateSnapshot(snapshot));
    expect(result.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(result.omitted).toBe(10);
    expect(formatSnapshotErrors('x.json', result)).toContain('… and 10 more errors');
  });

  it('rejects a value that is not an object at the root', () => {
    const { errors } = errorsOf(validateSnapshot([BASE]));
    expect(errors).toEqual([{ path: '$', message: 'Invalid input: expected object, received array' }]);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = validateSnapshot(value);
        return result.ok === false && result.errors.length > 0;
      }),
      { numRuns: 300 },
    );
  });
});

describe('formatJsonPath', () => {
  it('uses dot notation for identifiers and brackets for indices and other keys', () => {
    expect(formatJsonPath([])).toBe('$');
    expect(formatJsonPath(['nodegroups', 'data', 3, 'nodeRole'])).toBe('$.nodegroups.data[3].nodeRole');
    expect(formatJsonPath(['labels', 'k8s-app'])).toBe('$.labels["k8s-app"]');
  });
});

describe('parseSnapshotJson', () => {
  it('parses and validates a snapshot document', () => {
    const result = parseSnapshotJson(BASE_TEXT, 'a.json');
    expect(result).toEqual({ ok: true, snapshot: BASE });
  });

  it('accepts a leading byte-order mark', () => {
    expect(parseSnapshotJson(`\uFEFF${BASE_TEXT}`, 'bom.json').ok).toBe(true);
  });

  it('says an empty or blank document is empty', () => {
    for (const text of ['', '  \n\t ']) {
      const { errors } = errorsOf(parseSnapshotJson(text, 'empty.json'));
      expect(errors).toEqual([
        { path: '$', message: 'empty.json is empty: expected a ClusterSnapshot JSON document' },
      ]);
    }
  });

  it('gives line and column of a missing comma', () => {
    const text = BASE_TEXT.replace('"region": "eu-west-1",', '"region": "eu-west-1"');
    const line = BASE_TEXT.split('\n').findIndex((l) => l.includes('"clusterName"')) + 1;
    const { errors } = errorsOf(parseSnapshotJson(text, 'snap.json'));
    expect(errors).toEqual([
      {
        path: '$',
        message: `snap.json: not valid JSON at line ${line}, column 3: unexpected '"'; expected ',' or '}'`,
      },
    ]);
  });

  it('gives line and column where JSON.parse reports no position (unexpected token)', () => {
    const { errors } = errorsOf(parseSnapshotJson('{\n  "a": [1, 2,]\n}', 'x.json'));
    expect(errors[0]?.message).toBe(
      "x.json: not valid JSON at line 2, column 14: unexpected ']'; expected a value",
    );
  });

  it('reports a document cut short at its end', () => {
    const text = BASE_TEXT.slice(0, 200);
    const { errors } = errorsOf(parseSnapshotJson(text, 'cut.json'));
    const lines = text.split('\n');
    const column = (lines.at(-1)?.length ?? 0) + 1;
    expect(errors[0]?.message).toMatch(
      new RegExp(
        `^cut\\.json: not valid JSON at line ${lines.length}, column ${column}: (unterminated string|unexpected end of input)`,
      ),
    );
  });

  it('gives a one-line reason for 10 MB of random bytes, without echoing them', () => {
    const bytes = pseudoRandomBytes(10 * 1024 * 1024, 20261120);
    const text = new TextDecoder().decode(bytes);
    const { errors, omitted } = errorsOf(parseSnapshotJson(text, 'garbage.bin'));
    expect(errors).toHaveLength(1);
    expect(omitted).toBe(0);
    const message = errors[0]?.message ?? '';
    expect(message).toMatch(/^garbage\.bin: not valid JSON at line \d+, column \d+: /);
    expect(message).not.toContain('\n');
    expect(message.length).toBeLessThan(200);
    expect(message).not.toContain(text.slice(0, 16));
  });

  it('gives a one-line reason for garbage inside a long string value', () => {
    const filler = Array.from(pseudoRandomBytes(1024 * 1024, 7), (b) =>
      String.fromCharCode(0x30 + (b % 40)),
    ).join('');
    const text = `{"schemaVersion": 1, "notes": "${filler}`;
    const { errors } = errorsOf(parseSnapshotJson(text, 'long.json'));
    expect(errors[0]?.message).toBe(
      `long.json: not valid JSON at line 1, column ${text.length + 1}: unterminated string`,
    );
  });

  it('reports text after the document', () => {
    const { errors } = errorsOf(parseSnapshotJson(`${BASE_TEXT}\n}`, 'tail.json'));
    expect(errors[0]?.message).toMatch(/line \d+, column 1: unexpected '}' after the end of the JSON value$/);
  });

  it('reports schema errors of valid JSON by path', () => {
    const { errors } = errorsOf(parseSnapshotJson('{"schemaVersion": 1}', 'bare.json'));
    expect(errors.map((e) => e.path)).toContain('$.clusterName');
  });

  it('never throws and always answers on one line per error', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const result = parseSnapshotJson(text, 'fuzz');
        return result.ok === false && result.errors.every((e) => !e.message.includes('\n'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('findJsonSyntaxFault', () => {
  const mutatedJson = fc
    .tuple(
      fc.json(),
      fc.nat(),
      fc.constantFrom(
        '',
        '"',
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '\\',
        '-',
        '.',
        'e',
        't',
        '0',
        ' ',
        '\u0001',
        '\u00ff',
      ),
    )
    .map(([json, at, insert]) => {
      const i = at % (json.length + 1);
      return json.slice(0, i) + insert + json.slice(i + 1);
    });

  it('agrees with JSON.parse on what is valid', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutatedJson, fc.string()), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        return (findJsonSyntaxFault(text) === undefined) === valid;
      }),
      { numRuns: 2000 },
    );
  });

  it('points where JSON.parse points, whenever JSON.parse says where', () => {
    fc.assert(
      fc.property(mutatedJson, (text) => {
        let position: number | undefined;
        try {
          JSON.parse(text);
        } catch (error) {
          const match = /at position (\d+)/.exec((error as Error).message);
          if (match?.[1] !== undefined) position = Number(match[1]);
        }
        return position === undefined || findJsonSyntaxFault(text)?.offset === position;
      }),
      { numRuns: 2000 },
    );
  });

  it('does not overflow the stack on deep nesting', () => {
    const deep = '['.repeat(200_000);
    expect(findJsonSyntaxFault(deep)).toEqual({
      offset: 200_000,
      reason: 'unexpected end of input (200000 unclosed brackets)',
    });
  });
});

describe('buildSnapshotJsonSchema', () => {
  it('matches the committed schema/cluster-snapshot.schema.json (regenerate with npx tsx scripts/gen-schema.ts)', () => {
    const committed = JSON.parse(readText('schema/cluster-snapshot.schema.json'));
    expect(committed).toEqual(buildSnapshotJsonSchema());
  });

  it('carries an $id and a title and rejects unknown keys at the root', () => {
    const schema = buildSnapshotJsonSchema();
    expect(schema.$id).toBe(SNAPSHOT_JSON_SCHEMA_ID);
    expect(schema.title).toBe('eks-auth-sentinel ClusterSnapshot');
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.additionalProperties).toBe(false);
  });
});
