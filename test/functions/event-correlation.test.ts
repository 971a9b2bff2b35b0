/**
 * The handler's log key `cluster` names the cluster core's parse names: one cluster-name rule,
 * read from the raw record before it is validated.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { correlation } from '../../functions/on-eks-event.ts';
import { parseEksEvent } from '../../shared/core/events/cloudtrail.ts';
import { ROOT } from '../support/snapshot-builder.ts';

const DIR = join(ROOT, 'test', 'fixtures', 'cloudtrail');
const records = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f, record: JSON.parse(readFileSync(join(DIR, f), 'utf8')) }));

type CloudTrailRecord = Parameters<typeof correlation>[0];

function expectSameCluster(record: CloudTrailRecord) {
  const parsed = parseEksEvent(record);
  if (parsed.kind !== 'change') return false;
  expect(correlation(record).cluster).toBe(`${record.region}/${parsed.clusterName}`);
  return true;
}

describe('onEksEvent correlation keys', () => {
  it.each(records)('$name: the cluster is the one core parses', ({ record }) => {
    expectSameCluster(record);
  });

  it('whichever of name, clusterName and responseElements carry it', () => {
    const base = records.find((r) => r.name === 'delete-nodegroup.json')?.record;
    if (base === undefined) throw new Error('fixture');
    const maybe = fc.option(fc.constantFrom('', 'prod', 'blue', 'green'), { nil: undefined });
    fc.assert(
      fc.property(maybe, maybe, maybe, maybe, (name, clusterName, top, nested) => {
        const record = structuredClone(base);
        const request = { ...record.detail.requestParameters, name, clusterName };
        const response = { ...record.detail.responseElements, clusterName: top };
        if (response.nodegroup !== undefined)
          response.nodegroup = { ...response.nodegroup, clusterName: nested };
        record.detail = { ...record.detail, requestParameters: request, responseElements: response };
        // A record core accepts is logged under the cluster core names.
        const handled = expectSameCluster(record);
        if (name === undefined && clusterName === undefined && top === undefined && nested === undefined) {
          expect(handled).toBe(false);
          expect(correlation(record).cluster).toBeUndefined();
        }
      }),
    );
  });
});
