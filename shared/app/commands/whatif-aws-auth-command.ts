/**
 * Use case of `whatif --aws-auth FILE`: a proposed aws-auth (a whole ConfigMap manifest or its
 * mapRoles alone) applied to the cluster as `kubectl apply` would, simulated.
 */
import { clusterRefOf } from '../../core/model.ts';
import { proposalIssues, readAwsAuthProposal, simulateSteps } from '../../core/plan/index.ts';
import type { CommandResult } from '../../core/render/index.ts';
import { CommandInputError } from '../errors.ts';
import { type CommandPorts, findingsExit, obtainSnapshot, type SnapshotSource } from './command-inputs.ts';

export async function whatIfAwsAuthCommand(
  ports: CommandPorts,
  input: { file: string; source: SnapshotSource },
): Promise<CommandResult> {
  const name = ports.files.nameOf(input.file);
  const proposal = readAwsAuthProposal(await ports.files.readText(input.file));
  if (!proposal.ok) {
    throw new CommandInputError(`not a usable aws-auth: ${proposal.error}`, {
      where: proposal.line === undefined ? name : `${name}, line ${proposal.line}`,
    });
  }
  const { snapshot } = await obtainSnapshot(ports, input.source);
  const result = simulateSteps(
    snapshot,
    [
      {
        action: {
          kind: 'aws-auth',
          scope: proposal.form === 'manifest' ? 'whole' : 'keys',
          data: proposal.data,
          removedKeys: [],
          manager: 'kubectl-client-side-apply',
          force: true,
        },
      },
    ],
    proposal.lineOf,
  );
  return {
    kind: 'aws-auth',
    section: {
      title: 'Proposed aws-auth',
      cluster: clusterRefOf(snapshot),
      change: `apply ${name} as kube-system/aws-auth${proposal.form === 'mapRoles' ? ' mapRoles' : ''}`,
      findings: result.findings,
      effects: [...proposalIssues(proposal.data, proposal.lineOf, name), ...result.effects],
    },
    exit: findingsExit(result.findings),
  };
}
