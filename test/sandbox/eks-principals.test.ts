/**
 * The sandbox's EKS for the newest principals (docs/eks-auth-semantics.md#eks-owned-access-entries), through the real SDK client:
 * `HYPERPOD_LINUX` entries, and what EKS-owned and Auto Mode entries need.
 */
import {
  CreateAccessEntryCommand,
  DescribeAccessEntryCommand,
  EKSClient,
  type EKSServiceException,
} from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../infra/sandbox/index.ts';
import { ACCOUNT, baseSnapshot, REGION, withIamRoles } from '../support/sandbox-seed.ts';

let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function eks(s: Sandbox): EKSClient {
  return new EKSClient({
    region: REGION,
    endpoint: s.env.AWS_ENDPOINT_URL_EKS,
    credentials: s.credentials,
    maxAttempts: 1,
  });
}

const HYPERPOD_ROLE = `arn:aws:iam::${ACCOUNT}:role/hyperpod-execution`;

describe('sandbox EKS: HYPERPOD_LINUX', () => {
  it('creates a HYPERPOD_LINUX entry for a role of the account, with the session-named node username', async () => {
    sandbox = await startSandbox({ clusters: [{ snapshot: withIamRoles(baseSnapshot(), HYPERPOD_ROLE) }] });
    const client = eks(sandbox);
    await client.send(
      new CreateAccessEntryCommand({
        clusterName: 'prod',
        principalArn: HYPERPOD_ROLE,
        type: 'HYPERPOD_LINUX',
      }),
    );
    const out = await client.send(
      new DescribeAccessEntryCommand({ clusterName: 'prod', principalArn: HYPERPOD_ROLE }),
    );
    expect([out.accessEntry?.type, out.accessEntry?.username]).toEqual([
      'HYPERPOD_LINUX',
      'system:node:{{SessionName}}',
    ]);
  });

  it('refuses a HYPERPOD_LINUX entry for a user, or with groups, as for every node type', async () => {
    const user = `arn:aws:iam::${ACCOUNT}:user/jane`;
    sandbox = await startSandbox({ clusters: [{ snapshot: withIamRoles(baseSnapshot(), HYPERPOD_ROLE) }] });
    const client = eks(sandbox);
    const refused = async (input: ConstructorParameters<typeof CreateAccessEntryCommand>[0]) => {
      const error = await client.send(new CreateAccessEntryCommand(input)).then(
        () => undefined,
        (e: EKSServiceException) => e.name,
      );
      return error;
    };
    expect(await refused({ clusterName: 'prod', principalArn: user, type: 'HYPERPOD_LINUX' })).toBe(
      'InvalidParameterException',
    );
    expect(
      await refused({
        clusterName: 'prod',
        principalArn: HYPERPOD_ROLE,
        type: 'HYPERPOD_LINUX',
        kubernetesGroups: ['x'],
      }),
    ).toBe('InvalidParameterException');
  });
});
