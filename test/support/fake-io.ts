/** An in-memory `CliIo` over a few virtual files, falling back to the repository's real files. */

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeSubscriptionEvent } from '../../shared/adapters/logs-subscription-payload.ts';
import type { CliIo } from '../../shared/cli/io.ts';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

export interface FakeIo {
  io: CliIo;
  /** Everything written to stdout. */
  out(): string;
  /** Everything written to stderr. */
  err(): string;
}

export function createFakeIo(
  files: Record<string, string> = {},
  options: { isTTY?: boolean; env?: Record<string, string | undefined> } = {},
): FakeIo {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    async readFile(path) {
      const virtual = files[path];
      if (virtual !== undefined) return virtual;
      return readFile(path.startsWith('/') ? path : join(REPO_ROOT, path), 'utf8');
    },
    stdout: (text) => {
      out.push(text);
    },
    stderr: (text) => {
      err.push(text);
    },
    isTTY: options.isTTY ?? false,
    env: options.env ?? {},
    packageRoot: REPO_ROOT,
    listDir: (path) => readdir(path),
    decodeLogsSubscription: decodeSubscriptionEvent,
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

/** A DeleteNodegroup CloudTrail record in its EventBridge envelope (shape of a real record). */
export function deleteNodegroupEvent(cluster = 'prod', nodegroup = 'general'): Record<string, unknown> {
  return {
    version: '0',
    id: '8c6efe3f-1a46-40a1-a5e1-43b4c6a84eb9',
    'detail-type': 'AWS API Call via CloudTrail',
    source: 'aws.eks',
    account: '111122223333',
    time: '2026-11-20T10:02:03Z',
    region: 'eu-west-1',
    resources: [],
    detail: {
      eventVersion: '1.10',
      userIdentity: {
        type: 'AssumedRole',
        arn: 'arn:aws:sts::111122223333:assumed-role/platform-admin/jane.doe@example.com',
        accountId: '111122223333',
      },
      eventTime: '2026-11-20T10:02:03Z',
      eventSource: 'eks.amazonaws.com',
      eventName: 'DeleteNodegroup',
      awsRegion: 'eu-west-1',
      requestParameters: { name: cluster, nodegroupName: nodegroup },
      responseElements: {
        nodegroup: {
          nodegroupName: nodegroup,
          clusterName: cluster,
          status: 'DELETING',
          nodeRole: 'arn:aws:iam::111122223333:role/prod-node-role',
        },
      },
      eventID: '1f9437c8-e639-4d07-a715-149b45a16694',
      readOnly: false,
      eventType: 'AwsApiCall',
      recipientAccountId: '111122223333',
    },
  };
}
