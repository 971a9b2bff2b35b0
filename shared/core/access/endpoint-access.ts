/**
 * Why the monitor cannot reach a cluster's Kubernetes API, said precisely: the connect failure the
 * Kubernetes readers classify (shared/adapters/kubernetes-shapes.ts writes it into the source's
 * error after `UNREACHABLE`), combined with the endpoint access DescribeCluster reports
 * (`endpointPublicAccess`, `endpointPrivateAccess`, `publicAccessCidrs`). Pure.
 */
import type { ClusterInfo } from '../model.ts';

/** Each connect failure and how a message says it. */
export const CONNECT_FAILURES = {
  timeout: 'timed out (no answer from the endpoint)',
  refused: 'connection refused',
  dns: 'the endpoint name does not resolve',
  'no-route': 'no route to the endpoint',
  reset: 'connection reset',
} as const;
export type ConnectFailure = keyof typeof CONNECT_FAILURES;

/** What a Kubernetes reader's message says before the failure: `list nodes on cluster prod: could not reach the API server: …`. */
export const UNREACHABLE = 'could not reach the API server: ';

/** `could not reach the API server: connection refused (ECONNREFUSED)`. */
export function unreachableMessage(failure: ConnectFailure, networkCode?: string): string {
  return `${UNREACHABLE}${CONNECT_FAILURES[failure]}${networkCode === undefined ? '' : ` (${networkCode})`}`;
}

/** The connect failure a source's error names, if it is one. */
export function connectFailureIn(error: string): ConnectFailure | undefined {
  const at = error.indexOf(UNREACHABLE);
  if (at === -1) return undefined;
  const rest = error.slice(at + UNREACHABLE.length);
  return (Object.keys(CONNECT_FAILURES) as ConnectFailure[]).find((f) =>
    rest.startsWith(CONNECT_FAILURES[f]),
  );
}

export interface Unreachable {
  /** A few words for a title: `the endpoint is private-only`. */
  reason: string;
  /** What it means and what to do, in sentences. */
  explanation: string;
}

const OPEN_TO_ALL = new Set(['0.0.0.0/0', '::/0']);
const IN_VPC =
  'run the monitor in the cluster’s VPC (deploy with --param=subnetIds=… --param=securityGroupIds=…) and allow TCP 443 from its security group in the cluster security group (README "Private clusters")';

function listed(cidrs: readonly string[]): string {
  const shown = cidrs.slice(0, 5).join(', ');
  return cidrs.length > 5 ? `${shown} and ${cidrs.length - 5} more` : shown;
}

/** The connect failure read against the cluster's endpoint access. */
export function explainUnreachable(cluster: ClusterInfo, failure: ConnectFailure): Unreachable {
  const cidrs = cluster.publicAccessCidrs;
  if (cluster.endpointPublicAccess === false) {
    return {
      reason: 'the endpoint is private-only',
      explanation: `The cluster endpoint is private-only (endpointPublicAccess false): only clients in its VPC, or a network routed to it, reach it — ${IN_VPC}.`,
    };
  }
  if (cluster.endpointPublicAccess === true && cidrs !== undefined && cidrs.length > 0) {
    if (!cidrs.some((c) => OPEN_TO_ALL.has(c))) {
      return {
        reason: 'public access is CIDR-restricted',
        explanation: `Public access to the endpoint is restricted to ${listed(cidrs)} (publicAccessCidrs), and a Lambda function outside a VPC has no fixed source address — ${
          cluster.endpointPrivateAccess === true
            ? IN_VPC
            : 'run the monitor in a VPC whose NAT gateway address is in publicAccessCidrs, or turn on private access and run it in the cluster’s VPC'
        }.`,
      };
    }
  }
  const what = CONNECT_FAILURES[failure];
  if (failure === 'dns') {
    return {
      reason: what,
      explanation:
        'The endpoint name does not resolve where the monitor runs: in a VPC, turn on DNS resolution and DNS hostnames, and reach DNS through the VPC resolver.',
    };
  }
  const access =
    cluster.endpointPublicAccess === true
      ? 'The endpoint is public and open to every address, so the network between the monitor and it failed'
      : 'The endpoint access is unknown';
  return {
    reason: what,
    explanation: `${access}: in a VPC, check the routes (NAT gateway or the cluster’s VPC), the functions’ security group and TCP 443 from it in the cluster security group; otherwise the endpoint itself (cluster status, a firewall on the way).`,
  };
}
