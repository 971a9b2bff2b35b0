/** The Kubernetes API's error body: a `Status` object, with the reason the API server gives each code. */

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export function status(
  code: number,
  message: string,
  reason?: string,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: reason ?? REASONS[code] ?? 'Unknown',
    code,
  };
  if (details) out.details = details;
  return out;
}

/** `configmaps "aws-auth" is forbidden: User "…" cannot patch resource "configmaps" in API group "" in the namespace "kube-system"`. */
export function forbidden(
  username: string,
  t: { verb: string; resource: string; namespace?: string | undefined },
  name: string | undefined,
): Record<string, unknown> {
  const group =
    t.resource === 'ec2nodeclasses'
      ? 'karpenter.k8s.aws'
      : t.resource === 'nodeclasses'
        ? 'eks.amazonaws.com'
        : '';
  const scope = t.namespace ? ` in the namespace "${t.namespace}"` : ' at the cluster scope';
  const subject = name ? `${t.resource} "${name}"` : t.resource;
  return status(
    403,
    `${subject} is forbidden: User "${username}" cannot ${t.verb} resource "${t.resource}" in API group "${group}"${scope}`,
    'Forbidden',
    { ...(name ? { name } : {}), ...(group ? { group } : {}), kind: t.resource },
  );
}
