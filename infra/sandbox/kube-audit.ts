/**
 * The Kubernetes audit log of each cluster whose `logging` has `audit` enabled, as EKS ships it to
 * CloudWatch Logs (`/aws/eks/<cluster>/cluster`, stream `kube-apiserver-audit-<id>`), and the
 * payloads a subscription delivers to Lambda: `{"awslogs":{"data":base64(gzip(DATA_MESSAGE))}}`.
 *
 * Levels follow EKS's audit policy. EKS adds to the upstream reference policy (kubernetes
 * cluster/gce/gci/configure-helper.sh) one rule, quoted in the EKS Best Practices Guide (Security,
 * "Auditing and logging"): `level: RequestResponse`, `namespaces: ["kube-system"]`,
 * `verbs: ["update", "patch", "delete"]`, `resources: [{group: "", resources: ["configmaps"],
 * resourceNames: ["aws-auth"]}]`, `omitStages: ["RequestReceived"]`. A create names no object in
 * its URL, so `resourceNames` does not match it and the reference policy's rule for ConfigMaps
 * applies: `Metadata` (no request or response body). Other ConfigMap writes are at Metadata too.
 * Only writes are logged here (reads and watches are not what the monitor consumes).
 */
import { gzipSync } from 'node:zlib';
import { configMapJson } from './configmap-state.ts';
import { isoNow, parseRoleArn, stableHex, uuid } from './ids.ts';
import type {
  CloudWatchLogsSubscriptionEvent,
  SandboxAudit,
  SandboxAuditEvent,
  SandboxWriter,
} from './types.ts';
import { type AwsAuthChange, type ClusterState, EKS_FIELD_MANAGER } from './world.ts';

/**
 * The user EKS's own aws-auth edits (node groups, Fargate profiles) are audited as. Which identity
 * EKS uses is not public: this name is the sandbox's choice.
 */
export const EKS_AUDIT_USERNAME = 'eks:node-manager';

/**
 * The audit event of an aws-auth write made outside the Kubernetes API's request path: EKS's side
 * effects (as EKS's own user) and test helpers (as `by`, else the role `sandbox-operator` with the
 * field manager as session name). An update carries the whole new object, as a client's PUT does.
 */
export function worldWriteEvent(accountId: string, change: AwsAuthChange): SandboxAuditEvent {
  const { before, type, manager } = change;
  const eks = manager === EKS_FIELD_MANAGER && !change.write.actor;
  const writer = change.write.actor ?? {
    arn: `arn:aws:iam::${accountId}:role/sandbox-operator`,
    sessionName: manager,
  };
  const user: AuditUser = eks
    ? { username: EKS_AUDIT_USERNAME, groups: ['system:authenticated'] }
    : writerAuditUser(accountId, writer);
  const after = change.cluster.awsAuth;
  const base = '/api/v1/namespaces/kube-system/configmaps';
  const verb = type === 'ADDED' ? 'create' : type === 'DELETED' ? 'delete' : 'update';
  const sent = after && { ...configMapJson('kube-system', 'aws-auth', after) };
  if (sent && before)
    sent.metadata = {
      ...(sent.metadata as object),
      resourceVersion: before.resourceVersion,
      managedFields: undefined,
    };
  return auditEvent({
    cluster: change.cluster,
    verb,
    requestURI: verb === 'create' ? base : `${base}/aws-auth`,
    namespace: 'kube-system',
    name: 'aws-auth',
    nameInUrl: verb !== 'create',
    user,
    userAgent: eks ? 'eks/sandbox' : (writer.userAgent ?? `${manager}/sandbox`),
    sourceIP: eks ? '127.0.0.1' : (writer.sourceIp ?? '192.0.2.10'),
    receivedAt: Date.now(),
    status: verb === 'create' ? 201 : 200,
    ...(verb === 'delete' || !sent ? {} : { requestObject: JSON.parse(JSON.stringify(sent)) as unknown }),
    responseObject:
      verb === 'delete'
        ? {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Success',
            details: { name: 'aws-auth', kind: 'configmaps', uid: before?.uid },
          }
        : after && configMapJson('kube-system', 'aws-auth', after),
    authorization: {
      decision: 'allow',
      reason: eks ? 'RBAC: allowed by the EKS-managed role' : 'RBAC: allowed',
    },
  });
}

/** Who made a request, as the API server's authenticator reported it. */
export interface AuditUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** `user` as EKS's authenticator builds it for an IAM principal (STS ARN, canonical IAM ARN, session). */
export function iamAuditUser(
  accountId: string,
  who: { arn: string; sessionName?: string; roleId?: string; accessKeyId?: string },
  username: string,
  groups: readonly string[],
): AuditUser {
  const role = parseRoleArn(who.arn);
  const session = who.sessionName ?? '';
  const arn = role
    ? `arn:${role.partition}:sts::${role.accountId}:assumed-role/${role.name}/${session}`
    : who.arn;
  const canonicalArn = role ? `arn:${role.partition}:iam::${role.accountId}:role/${role.name}` : who.arn;
  const principalId = who.roleId ?? `AROA${stableHex(who.arn, 17).toUpperCase()}`;
  const extra: Record<string, string[]> = {
    arn: [arn],
    canonicalArn: [canonicalArn],
    principalId: [principalId],
    sessionName: [session],
  };
  if (who.accessKeyId) extra.accessKeyId = [who.accessKeyId];
  return {
    username,
    uid: `aws-iam-authenticator:${accountId}:${principalId}`,
    groups: [...groups.filter((g) => g !== 'system:authenticated'), 'system:authenticated'],
    extra,
  };
}

/** The writer of a test-helper write, audited as that IAM principal. */
export function writerAuditUser(accountId: string, w: SandboxWriter): AuditUser {
  const role = parseRoleArn(w.arn);
  const session = w.sessionName ?? 'sandbox';
  const username =
    w.username ?? (role ? `arn:aws:sts::${role.accountId}:assumed-role/${role.name}/${session}` : w.arn);
  return iamAuditUser(
    accountId,
    { arn: w.arn, sessionName: session },
    username,
    w.groups ?? ['system:masters'],
  );
}

export interface AuditRequest {
  cluster: ClusterState;
  verb: 'create' | 'update' | 'patch' | 'delete';
  requestURI: string;
  namespace: string;
  /** From the URL; for a create, the body's name (the API server fills `objectRef` from it). */
  name: string;
  /** Whether the URL named the object (not for a create): what `resourceNames` matches. */
  nameInUrl: boolean;
  user: AuditUser;
  userAgent: string;
  sourceIP: string;
  receivedAt: number;
  status: number;
  /** The failure `Status`, for a non-2xx answer. */
  failure?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  /** `metadata.uid` / `resourceVersion` of the request body, as the API server copies them into objectRef. */
  bodyUid?: string;
  bodyResourceVersion?: string;
  authorization: { decision: 'allow' | 'forbid'; reason: string };
}

/** RFC 3339 with microseconds, as the API server writes audit timestamps (the sandbox's clock has ms). */
function microTime(ms: number): string {
  return isoNow(ms).replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The level EKS's policy gives a ConfigMap write (see the file comment). */
export function auditLevel(
  r: Pick<AuditRequest, 'verb' | 'namespace' | 'name' | 'nameInUrl'>,
): 'Metadata' | 'RequestResponse' {
  const awsAuth = r.namespace === 'kube-system' && r.nameInUrl && r.name === 'aws-auth';
  return awsAuth && (r.verb === 'update' || r.verb === 'patch' || r.verb === 'delete')
    ? 'RequestResponse'
    : 'Metadata';
}

export function auditEvent(r: AuditRequest): SandboxAuditEvent {
  const level = auditLevel(r);
  const objectRef: Record<string, string> = {
    resource: 'configmaps',
    namespace: r.namespace,
    name: r.name,
    apiVersion: 'v1',
  };
  if (r.bodyUid) objectRef.uid = r.bodyUid;
  if (r.bodyResourceVersion) objectRef.resourceVersion = r.bodyResourceVersion;
  const event: SandboxAuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level,
    auditID: uuid(),
    stage: 'ResponseComplete',
    requestURI: r.requestURI,
    verb: r.verb,
    user: r.user,
    sourceIPs: [r.sourceIP],
    userAgent: r.userAgent,
    objectRef,
    responseStatus: r.failure
      ? {
          metadata: {},
          status: 'Failure',
          message: r.failure.message,
          reason: r.failure.reason,
          code: r.status,
        }
      : { metadata: {}, code: r.status },
  };
  // The body was decoded only when the request got past authorization.
  if (level === 'RequestResponse' && r.authorization.decision === 'allow') {
    if (r.requestObject !== undefined) event.requestObject = r.requestObject;
    if (r.responseObject !== undefined) event.responseObject = r.responseObject;
  }
  event.requestReceivedTimestamp = microTime(r.receivedAt);
  event.stageTimestamp = microTime(Date.now());
  event.annotations = {
    'authorization.k8s.io/decision': r.authorization.decision,
    'authorization.k8s.io/reason': r.authorization.reason,
  };
  return event;
}

/** What the API server's truncating backend does to a too-big event: bodies dropped, annotated. */
export function truncated(event: SandboxAuditEvent): SandboxAuditEvent {
  const { requestObject: _req, responseObject: _res, ...rest } = event;
  return {
    ...rest,
    annotations: { ...(event.annotations as Record<string, string>), 'audit.k8s.io/truncated': 'true' },
  } as SandboxAuditEvent;
}

interface LogEvent {
  id: string;
  timestamp: number;
  message: string;
}

export interface SubscriptionMessage {
  owner: string;
  logGroup: string;
  logStream: string;
  subscriptionFilters: string[];
  logEvents: LogEvent[];
}

/** A CloudWatch Logs subscription event exactly as Lambda receives it. */
export function subscriptionPayload(m: SubscriptionMessage): CloudWatchLogsSubscriptionEvent {
  const json = JSON.stringify({ messageType: 'DATA_MESSAGE', ...m });
  return { awslogs: { data: gzipSync(Buffer.from(json)).toString('base64') } };
}

function logEventId(): string {
  let id = '';
  while (id.length < 56) id += String(Math.floor(Math.random() * 1e9)).padStart(9, '0');
  return id.slice(0, 56);
}

export class AuditLog implements SandboxAudit {
  private readonly written: Array<{ cluster: string; event: SandboxAuditEvent }> = [];
  private readonly pending: Array<{ cluster: ClusterState; logEvent: LogEvent }> = [];
  private readonly subscribers = new Set<(p: CloudWatchLogsSubscriptionEvent, cluster: string) => void>();
  private readonly truncations: Array<{ cluster?: string; remaining: number }> = [];
  private maxEventBytes = 1024 * 1024;
  private oversize: 'deliver' | 'cut' | 'truncate' | 'drop' = 'deliver';
  private filterName = 'eks-auth-sentinel-aws-auth';

  constructor(private readonly accountId: () => string) {}

  /** Writes the event if the cluster's audit log is on; returns it (undefined when off). */
  write(cluster: ClusterState, built: SandboxAuditEvent): SandboxAuditEvent | undefined {
    if (!cluster.logging.includes('audit')) return undefined;
    let event = built;
    const staged = this.truncations.find(
      (t) => t.remaining > 0 && (t.cluster === undefined || t.cluster === cluster.name),
    );
    if (staged) {
      staged.remaining -= 1;
      event = truncated(event);
    }
    this.written.push({ cluster: cluster.name, event });
    const message = this.shape(event);
    if (message === undefined) return event;
    const logEvent = { id: logEventId(), timestamp: Date.parse(String(event.stageTimestamp)), message };
    if (this.subscribers.size === 0) {
      this.pending.push({ cluster, logEvent });
      return event;
    }
    const payload = this.payload(cluster, [logEvent]);
    for (const s of [...this.subscribers]) setImmediate(() => s(payload, cluster.name));
    return event;
  }

  private shape(event: SandboxAuditEvent): string | undefined {
    const message = JSON.stringify(event);
    if (Buffer.byteLength(message) <= this.maxEventBytes) return message;
    switch (this.oversize) {
      case 'deliver':
        return message;
      case 'cut':
        return Buffer.from(message).subarray(0, this.maxEventBytes).toString('utf8');
      case 'truncate': {
        const small = JSON.stringify(truncated(event));
        return Buffer.byteLength(small) <= this.maxEventBytes ? small : undefined;
      }
      default:
        return undefined;
    }
  }

  private payload(cluster: ClusterState, logEvents: LogEvent[]): CloudWatchLogsSubscriptionEvent {
    return subscriptionPayload({
      owner: this.accountId(),
      logGroup: `/aws/eks/${cluster.name}/cluster`,
      logStream: `kube-apiserver-audit-${stableHex(cluster.arn, 32)}`,
      subscriptionFilters: [this.filterName],
      logEvents,
    });
  }

  drain(cluster?: string): CloudWatchLogsSubscriptionEvent[] {
    const taken = this.pending.filter((p) => cluster === undefined || p.cluster.name === cluster);
    const kept = this.pending.filter((p) => !taken.includes(p));
    this.pending.length = 0;
    this.pending.push(...kept);
    const byCluster = new Map<ClusterState, LogEvent[]>();
    for (const p of taken) byCluster.set(p.cluster, [...(byCluster.get(p.cluster) ?? []), p.logEvent]);
    return [...byCluster].map(([c, events]) => this.payload(c, events));
  }

  subscribe(deliver: (payload: CloudWatchLogsSubscriptionEvent, cluster: string) => void): () => void {
    this.subscribers.add(deliver);
    return () => {
      this.subscribers.delete(deliver);
    };
  }

  events(cluster?: string): SandboxAuditEvent[] {
    return this.written.filter((w) => cluster === undefined || w.cluster === cluster).map((w) => w.event);
  }

  truncateNext(options: { cluster?: string; times?: number } = {}): void {
    this.truncations.push({
      ...(options.cluster ? { cluster: options.cluster } : {}),
      remaining: options.times ?? 1,
    });
  }

  configure(options: {
    maxEventBytes?: number;
    oversize?: 'deliver' | 'cut' | 'truncate' | 'drop';
    filterName?: string;
  }): void {
    if (options.maxEventBytes !== undefined) this.maxEventBytes = options.maxEventBytes;
    if (options.oversize !== undefined) this.oversize = options.oversize;
    if (options.filterName !== undefined) this.filterName = options.filterName;
  }
}
