import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEksEvent } from '../../shared/core/events/cloudtrail.ts';

/**
 * Whether a record is trusted to be a call that succeeded rests on four fields, read as
 * CloudTrail's "record contents" page documents them: `eventSource` in every record, `errorCode`
 * and `errorMessage` only for a call that failed, `readOnly` true or false.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests write arbitrary record shapes on purpose
type AnyEvent = any;

function load(sub: string): Map<string, AnyEvent> {
  const dir = new URL(`../fixtures/cloudtrail/${sub}`, import.meta.url);
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => [`${sub}${f}`, JSON.parse(readFileSync(new URL(f, dir), 'utf8'))] as const),
  );
}

const ALL = new Map([...load(''), ...load('iam/')]);
/** The fixtures that parse to a change as they are. */
const CHANGES = [...ALL].filter(([, e]) => ['change', 'account-change'].includes(parseEksEvent(e).kind));
const fixture = (name: string): AnyEvent => structuredClone(ALL.get(name));

function parsed(event: AnyEvent) {
  return parseEksEvent(event);
}

describe('a record that cannot be trusted to be a successful write', () => {
  it('is invalid without eventSource, naming the field, for EKS and IAM calls alike', () => {
    for (const name of ['delete-nodegroup.json', 'iam/delete-role.json']) {
      const event = fixture(name);
      delete event.detail.eventSource;
      expect(parsed(event)).toEqual({
        kind: 'invalid',
        reason:
          '$.detail.eventSource: required string is missing (CloudTrail names the service of every call; without it the record is neither an EKS nor an IAM call)',
      });
      // A bare record: the path starts at the record.
      const bare = fixture(name).detail;
      delete bare.eventSource;
      expect(parsed(bare)).toMatchObject({
        kind: 'invalid',
        reason: expect.stringMatching(/^\$\.eventSource: /),
      });
    }
  });

  it('is invalid with an empty or null errorCode: CloudTrail writes errorCode only for a call that failed', () => {
    for (const [errorCode, what] of [
      ['', 'an empty string'],
      [null, 'null'],
    ] as const) {
      const event = fixture('delete-access-entry.json');
      event.detail.errorCode = errorCode;
      expect(parsed(event)).toEqual({
        kind: 'invalid',
        reason: `$.detail.errorCode: expected the error code of a failed call, got ${what} (CloudTrail writes errorCode only when the call failed, so this record cannot be trusted to be a call that succeeded)`,
      });
    }
  });

  it('is invalid with an errorMessage but no errorCode', () => {
    const event = fixture('iam/delete-role.json');
    event.detail.errorMessage = 'Cannot delete entity, must detach all policies first.';
    expect(parsed(event)).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/^\$\.detail\.errorMessage: present without errorCode/),
    });
  });

  it('is invalid when readOnly is not a boolean ("true" as a string, null, 1)', () => {
    for (const [readOnly, what] of [
      ['true', '"true"'],
      ['false', '"false"'],
      [null, 'null'],
      [1, '1'],
    ] as const) {
      const event = fixture('delete-nodegroup.json');
      event.detail.readOnly = readOnly;
      expect(parsed(event)).toEqual({
        kind: 'invalid',
        reason: `$.detail.readOnly: expected true or false, got ${what}`,
      });
    }
  });

  it('is still a change with readOnly false or absent, and still ignored with a failed errorCode', () => {
    for (const [name] of CHANGES) {
      const absent = fixture(name);
      delete absent.detail.readOnly;
      expect(parsed(absent).kind).toMatch(/change$/);
      const failed = fixture(name);
      failed.detail.errorCode = 'AccessDenied';
      expect(parsed(failed)).toMatchObject({ kind: 'ignored', reason: 'the call failed: AccessDenied' });
    }
  });

  it('never yields a change unless eventSource is EKS or IAM, errorCode and errorMessage are absent and readOnly is false or absent', () => {
    const fieldValue = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom<unknown>('', null, 'true', 'false', true, false, 0, 1, 'TRUE', 'AccessDenied', [], {}),
      fc.constantFrom('eks.amazonaws.com', 'iam.amazonaws.com', 'EKS.amazonaws.com', 'eks.amazonaws.com '),
      fc.anything(),
    );
    const names = CHANGES.map(([name]) => name);
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.record({
          eventSource: fieldValue,
          errorCode: fieldValue,
          errorMessage: fieldValue,
          readOnly: fieldValue,
        }),
        fc.boolean(),
        (name, fields, bare) => {
          const event = fixture(name);
          for (const [key, value] of Object.entries(fields)) {
            if (value === undefined) delete event.detail[key];
            else event.detail[key] = value;
          }
          const result = parsed(bare ? event.detail : event);
          const trusted =
            (fields.eventSource === 'eks.amazonaws.com' || fields.eventSource === 'iam.amazonaws.com') &&
            fields.errorCode === undefined &&
            fields.errorMessage === undefined &&
            (fields.readOnly === undefined || fields.readOnly === false);
          if (!trusted) {
            expect(result.kind).not.toBe('change');
            expect(result.kind).not.toBe('account-change');
          }
          // A failed call (a non-empty errorCode) is ignored as failed, whatever else it holds.
          if (
            typeof fields.errorCode === 'string' &&
            fields.errorCode !== '' &&
            (fields.eventSource === 'eks.amazonaws.com' || fields.eventSource === 'iam.amazonaws.com')
          )
            expect(result.kind).toBe('ignored');
          // What it refuses, it refuses naming the field.
          if (result.kind === 'invalid' && !trusted)
            expect(result.reason).toMatch(/(eventSource|errorCode|errorMessage|readOnly)/);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
