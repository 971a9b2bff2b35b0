/**
 * awsAuthMappingChanges over generated aws-auth contents (the differential test's generator): what
 * it reports removed is exactly what the state before maps and the state after does not, so a
 * caller that puts `removed` back restores every lost mapping and nothing else.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { awsAuthMappingChanges, parseAwsAuth } from '../../shared/core/aws-auth/index.ts';
import { awsAuthData } from '../support/aws-auth-gen.ts';

const keys = (entries: { dataKey: string; arn: string }[]) =>
  entries.map((e) => `${e.dataKey} ${e.dataKey === 'mapAccounts' ? e.arn : e.arn.toLowerCase()}`).sort();

describe('awsAuthMappingChanges', () => {
  it('reports nothing between a state and itself, and swapping the states swaps removed and added', () => {
    fc.assert(
      fc.property(awsAuthData(), awsAuthData(), (x, y) => {
        const a = parseAwsAuth(x);
        const b = parseAwsAuth(y);
        expect(awsAuthMappingChanges(a, a)).toEqual({ removed: [], added: [], changed: [] });
        const forward = awsAuthMappingChanges(a, b);
        const back = awsAuthMappingChanges(b, a);
        expect(keys(forward.removed)).toEqual(keys(back.added));
        expect(keys(forward.added)).toEqual(keys(back.removed));
        expect(forward.changed.length).toBe(back.changed.length);
      }),
      { numRuns: 300 },
    );
  });

  it('removes everything when aws-auth is deleted, and keeps each removed entry as the state before maps it', () => {
    fc.assert(
      fc.property(awsAuthData(), (x) => {
        const a = parseAwsAuth(x);
        const { removed, added } = awsAuthMappingChanges(a, undefined);
        expect(added).toEqual([]);
        for (const e of removed) {
          if (e.dataKey === 'mapRoles') {
            // The last duplicate wins, as in the authenticator.
            const last = [...a.roles]
              .reverse()
              .find((r) => r.rolearn === e.role.rolearn && r.sso === e.role.sso);
            expect(last).toBeDefined();
            expect(e.role.groups).toEqual(last?.groups);
          }
          if (e.dataKey === 'mapAccounts') expect(a.accounts).toContain(e.arn);
        }
        const roleKeys = new Set(
          a.roles.filter((r) => r.rolearn !== undefined).map((r) => r.rolearn?.toLowerCase()),
        );
        expect(removed.filter((e) => e.dataKey === 'mapRoles' && e.role.rolearn !== undefined).length).toBe(
          roleKeys.size,
        );
      }),
      { numRuns: 300 },
    );
  });
});
