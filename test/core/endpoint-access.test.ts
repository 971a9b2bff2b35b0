/**
 * A cluster the monitor cannot reach: the Kubernetes readers' connect-failure classification
 * (shared/adapters/kubernetes-shapes.ts) read back by monitor/source-unavailable together with
 * the endpoint access of DescribeCluster (shared/core/access/endpoint-access.ts).
 */
import { describe, expect, it } from 'vitest';
import { connectFailureOf } from '../../shared/adapters/kubernetes-shapes.ts';
import { connectFailureIn } from '../../shared/core/access/endpoint-access.ts';
import type { ClusterInfo, Finding } from '../../shared/core/model.ts';
import { assessSnapshot } from '../../shared/core/predict/engine.ts';
import { buildSnapshot } from '../support/snapshot-builder.ts';

const nodeError = (code: string) => Object.assign(new Error(`connect ${code} 10.0.1.5:443`), { code });

describe('connectFailureOf (the Kubernetes readers)', () => {
  it.each([
    [nodeError('ETIMEDOUT'), 'timeout', 'timed out (no answer from the endpoint) (ETIMEDOUT)', 'timeout'],
    [
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      'timeout',
      'timed out (no answer from the endpoint)',
      'timeout',
    ],
    [
      Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }),
      'timeout',
      'timed out (no answer from the endpoint)',
      'timeout',
    ],
    [nodeError('ECONNREFUSED'), 'refused', 'connection refused (ECONNREFUSED)', 'unavailable'],
    [nodeError('ENOTFOUND'), 'dns', 'the endpoint name does not resolve (ENOTFOUND)', 'unavailable'],
    [nodeError('EAI_AGAIN'), 'dns', 'the endpoint name does not resolve (EAI_AGAIN)', 'unavailable'],
    [nodeError('EHOSTUNREACH'), 'no-route', 'no route to the endpoint (EHOSTUNREACH)', 'unavailable'],
    // fetch wraps the socket error: `TypeError: fetch failed` with the code on its cause.
    [
      new TypeError('fetch failed', { cause: nodeError('ECONNRESET') }),
      'reset',
      'connection reset (ECONNRESET)',
      'unavailable',
    ],
  ])('%s → %s', (error, failure, text, code) => {
    const classified = connectFailureOf(error);
    expect(classified).toEqual({ message: `could not reach the API server: ${text}`, code });
    expect(connectFailureIn(`list nodes on cluster prod: ${classified?.message}`)).toBe(failure);
  });

  it('leaves TLS, HTTP and other errors alone', () => {
    expect(connectFailureOf(nodeError('SELF_SIGNED_CERT_IN_CHAIN'))).toBeUndefined();
    expect(connectFailureOf(new Error('boom'))).toBeUndefined();
    expect(connectFailureOf('ECONNREFUSED')).toBeUndefined();
    expect(
      connectFailureIn('get configmap kube-system/aws-auth on cluster prod: forbidden (403)'),
    ).toBeUndefined();
  });
});

function unreachableFinding(
  cluster: Partial<ClusterInfo>,
  failure = 'timed out (no answer from the endpoint)',
): Finding {
  const s = buildSnapshot();
  Object.assign(s.cluster, cluster);
  s.awsAuth = {
    status: 'error',
    error: `get configmap kube-system/aws-auth on cluster prod: could not reach the API server: ${failure}`,
  };
  const found = assessSnapshot(s).filter((f) => f.ruleId === 'monitor/source-unavailable');
  expect(found).toHaveLength(1);
  return found[0] as Finding;
}

describe('monitor/source-unavailable on an unreachable cluster', () => {
  it('a private-only endpoint: says so and names the VPC parameters and the 443 rule', () => {
    const f = unreachableFinding({ endpointPublicAccess: false, endpointPrivateAccess: true });
    expect(f.title).toContain('Cannot reach the Kubernetes API of prod (the endpoint is private-only)');
    expect(f.detail).toContain('could not reach the API server: timed out');
    expect(f.detail).toContain('endpointPublicAccess false');
    expect(f.remediation?.summary).toContain('--param=subnetIds=… --param=securityGroupIds=…');
    expect(f.remediation?.summary).toContain('TCP 443');
    expect(f.evidence).toMatchObject({ connectFailure: 'timeout', endpointPublicAccess: false });
  });

  it('public access restricted by publicAccessCidrs: lists them; the way in depends on private access', () => {
    const cidrs = ['203.0.113.0/24', '198.51.100.7/32'];
    const withPrivate = unreachableFinding({
      endpointPublicAccess: true,
      endpointPrivateAccess: true,
      publicAccessCidrs: cidrs,
    });
    expect(withPrivate.title).toContain('(public access is CIDR-restricted)');
    expect(withPrivate.detail).toContain('restricted to 203.0.113.0/24, 198.51.100.7/32 (publicAccessCidrs)');
    expect(withPrivate.remediation?.summary).toContain('--param=subnetIds=');
    const publicOnly = unreachableFinding({
      endpointPublicAccess: true,
      endpointPrivateAccess: false,
      publicAccessCidrs: cidrs,
    });
    expect(publicOnly.remediation?.summary).toContain('NAT gateway address is in publicAccessCidrs');
    expect(publicOnly.evidence).toMatchObject({ publicAccessCidrs: cidrs });
  });

  it('an open public endpoint that timed out or refused: the network is to blame, said as such', () => {
    const open = {
      endpointPublicAccess: true,
      endpointPrivateAccess: false,
      publicAccessCidrs: ['0.0.0.0/0'],
    };
    expect(unreachableFinding(open).title).toContain('(timed out (no answer from the endpoint))');
    const refused = unreachableFinding(open, 'connection refused (ECONNREFUSED)');
    expect(refused.title).toContain('(connection refused)');
    expect(refused.detail).toContain('public and open to every address');
    const dns = unreachableFinding(open, 'the endpoint name does not resolve (ENOTFOUND)');
    expect(dns.remediation?.summary).toContain('DNS resolution and DNS hostnames');
  });

  it('a permission error keeps the permission wording and no endpoint evidence', () => {
    const s = buildSnapshot();
    s.cluster.endpointPublicAccess = false;
    s.awsAuth = {
      status: 'error',
      error: 'get configmap kube-system/aws-auth on cluster prod: forbidden (403)',
    };
    const f = assessSnapshot(s).find((x) => x.ruleId === 'monitor/source-unavailable');
    expect(f?.title).toContain('Cannot read the aws-auth ConfigMap of prod');
    expect(f?.evidence).not.toHaveProperty('connectFailure');
  });
});
