/**
 * Kubernetes audit events of aws-auth writes, as a CloudWatch Logs subscription delivers them:
 * the decoded `DATA_MESSAGE` (`{messageType, owner, logGroup, logStream, subscriptionFilters,
 * logEvents: [{id, timestamp, message}]}`, the gunzip of `awslogs.data` is the caller's: it needs
 * node:zlib) whose every `message` is one `audit.k8s.io/v1` Event.
 *
 * Selected: `update`, `patch`, `delete` and `create` of `configmaps` `kube-system/aws-auth` at
 * stage `ResponseComplete` that succeeded (`responseStatus.code` < 400: a denied or failed write
 * changed nothing). An update or patch whose `responseObject` is the ConfigMap carries the new
 * object; everything else that is selected — a create (EKS's policy logs it at `Metadata`, without
 * bodies), a delete, a truncated event (`audit.k8s.io/truncated: "true"`: the API server dropped
 * the bodies), an event without or with a malformed body, a message cut short (CloudWatch Logs'
 * event limit; what EKS ships for a bigger event is undocumented) — asks for a fresh read of
 * aws-auth instead: the monitor never guesses the object. The subscription filter passes only
 * lines naming aws-auth, so an unreadable message still means "aws-auth may have changed".
 *
 * The writer is what EKS's authenticator reported: `user.extra.arn` (the STS session ARN),
 * `canonicalArn` (the IAM role), `sessionName`, `principalId`, `user.username`, `userAgent`,
 * `sourceIPs`, `stageTimestamp` and `auditID`. All of it is attacker-influenced text: fields are
 * kept as strings of bounded length and renderers sanitise them. Pure; never throws.
 */
import type { Actor } from '../model.ts';

/** The log group EKS ships a cluster's control-plane logs to. */
const LOG_GROUP = /^\/aws\/eks\/([0-9A-Za-z][A-Za-z0-9_-]{0,99})\/cluster$/;

const MAX_FIELD = 512;
/** More log events than a 6 MB Lambda payload could hold are not read (hostile input stays bounded). */
export const MAX_LOG_EVENTS = 10_000;

export type AuditVerb = 'create' | 'update' | 'patch' | 'delete';

/** The object an update or patch left, as the API server answered it (`responseObject`). */
export interface AuditConfigMap {
  data: Record<string, string>;
  resourceVersion?: string;
  uid?: string;
  /** The whole `responseObject`, for the adapter that reduces `managedFields`. */
  raw: Record<string, unknown>;
}

/** One aws-auth write of the audit log: the object it left, or why it must be read fresh. */
export interface AuditChange {
  /** `auditID` (the idempotency key); the log event's ID when the message was unreadable. */
  auditId: string;
  cluster: string;
  /** Undefined when the message could not be read. */
  verb?: AuditVerb;
  observed: { kind: 'object'; configMap: AuditConfigMap } | { kind: 'read-fresh'; reason: string };
  /** Who wrote, when the event names anyone. */
  actor?: Actor;
  /** `stageTimestamp` (else the log event's time), ISO 8601. */
  time?: string;
}

export interface AuditIgnored {
  /** `auditID`, else the log event's ID, else its index. */
  id: string;
  reason: string;
}

export type AuditPayloadParse =
  | { kind: 'changes'; cluster: string; changes: AuditChange[]; ignored: AuditIgnored[] }
  | { kind: 'ignored'; reason: string; cluster?: string };

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function str(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.trim() === '') return undefined;
  return v.length > MAX_FIELD ? v.slice(0, MAX_FIELD) : v;
}

/** `extra` values are string lists; the first non-empty string. */
function firstOf(v: unknown): string | undefined {
  if (typeof v === 'string') return str(v);
  if (!Array.isArray(v)) return undefined;
  for (const item of v.slice(0, 8)) {
    const s = str(item);
    if (s !== undefined) return s;
  }
  return undefined;
}

/** A short, printable description of an attacker-written value for a reason text. */
function brief(v: unknown): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v ?? null);
  const s = (text ?? 'undefined').slice(0, 64);
  return JSON.stringify(s);
}

/** The cluster a log group belongs to, when it is an EKS control-plane log group. */
export function clusterOfLogGroup(logGroup: unknown): string | undefined {
  if (typeof logGroup !== 'string') return undefined;
  return LOG_GROUP.exec(logGroup)?.[1];
}

const ASSUMED_ROLE = /^arn:[^:]*:sts::[^:]*:assumed-role\/([^/]+)\/(.+)$/;
const ROLE_NAME = /^arn:[^:]*:iam::[^:]*:role\/(?:.*\/)?([^/]+)$/;

/** The writer an audit event names (undefined when it names no one). */
export function actorOfAuditEvent(event: unknown): Actor | undefined {
  if (!isRecord(event)) return undefined;
  const user = isRecord(event.user) ? event.user : {};
  const extra = isRecord(user.extra) ? user.extra : {};
  const arn = firstOf(extra.arn);
  const canonicalArn = firstOf(extra.canonicalArn);
  const assumed = arn === undefined ? null : ASSUMED_ROLE.exec(arn);
  const role = canonicalArn === undefined ? null : ROLE_NAME.exec(canonicalArn);
  const sourceIps = Array.isArray(event.sourceIPs) ? event.sourceIPs : [];
  const parts: Partial<Record<keyof Actor, string | undefined>> = {
    arn: arn ?? canonicalArn,
    canonicalArn: arn !== undefined && canonicalArn !== arn ? canonicalArn : undefined,
    principalId: firstOf(extra.principalId),
    sessionName: firstOf(extra.sessionName) ?? assumed?.[2],
    roleName: role?.[1] ?? assumed?.[1],
    username: str(user.username),
    userAgent: str(event.userAgent),
    sourceIp: firstOf(sourceIps),
  };
  const actor: Actor = { source: 'audit' };
  for (const [key, value] of Object.entries(parts) as [keyof Actor, string | undefined][]) {
    if (value !== undefined) (actor as unknown as Record<string, string>)[key] = value;
  }
  if (Object.keys(actor).length === 1) return undefined;
  const time = str(event.stageTimestamp) ?? str(event.requestReceivedTimestamp);
  if (time !== undefined) actor.time = time;
  const auditId = str(event.auditID);
  if (auditId !== undefined) actor.eventId = auditId;
  return actor;
}

/** The ConfigMap of a `responseObject`, when it is one whose `data` holds only strings. */
function configMapOf(v: unknown): AuditConfigMap | undefined {
  if (!isRecord(v) || v.kind !== 'ConfigMap') return undefined;
  const metadata = isRecord(v.metadata) ? v.metadata : undefined;
  if (metadata === undefined || metadata.name !== 'aws-auth') return undefined;
  if (metadata.namespace !== undefined && metadata.namespace !== 'kube-system') return undefined;
  const data: Record<string, string> = {};
  if (v.data !== undefined && v.data !== null) {
    if (!isRecord(v.data)) return undefined;
    for (const [key, value] of Object.entries(v.data)) {
      if (typeof value !== 'string') return undefined;
      data[key] = value;
    }
  }
  const out: AuditConfigMap = { data, raw: v };
  const rv = str(metadata.resourceVersion);
  if (rv !== undefined) out.resourceVersion = rv;
  const uid = str(metadata.uid);
  if (uid !== undefined) out.uid = uid;
  return out;
}

const VERBS = new Set<string>(['create', 'update', 'patch', 'delete']);

export type AuditEventParse = { kind: 'change'; change: AuditChange } | { kind: 'ignored'; reason: string };

/** One audit Event (already JSON-decoded) of a cluster's log → an aws-auth change, or why not. */
export function parseAuditEvent(event: unknown, cluster: string, fallbackId?: string): AuditEventParse {
  if (!isRecord(event)) return { kind: 'ignored', reason: 'not a JSON object' };
  if (event.kind !== 'Event' || event.apiVersion !== 'audit.k8s.io/v1')
    return {
      kind: 'ignored',
      reason: `not an audit.k8s.io/v1 Event (kind ${brief(event.kind)}, apiVersion ${brief(event.apiVersion)})`,
    };
  if (event.stage !== 'ResponseComplete')
    return { kind: 'ignored', reason: `stage ${brief(event.stage)}, not ResponseComplete` };
  const verb =
    typeof event.verb === 'string' && VERBS.has(event.verb) ? (event.verb as AuditVerb) : undefined;
  if (verb === undefined) return { kind: 'ignored', reason: `verb ${brief(event.verb)} writes nothing` };
  const ref = isRecord(event.objectRef) ? event.objectRef : {};
  if (ref.resource !== 'configmaps' || ref.namespace !== 'kube-system' || ref.name !== 'aws-auth')
    return {
      kind: 'ignored',
      reason: `not kube-system/aws-auth (${brief(ref.resource)} ${brief(ref.namespace)}/${brief(ref.name)})`,
    };
  if (ref.subresource !== undefined)
    return { kind: 'ignored', reason: `subresource ${brief(ref.subresource)}` };
  const status = isRecord(event.responseStatus) ? event.responseStatus.code : undefined;
  if (typeof status !== 'number' || !Number.isFinite(status))
    return { kind: 'ignored', reason: 'no responseStatus.code: whether the write happened is unknown' };
  if (status >= 400)
    return { kind: 'ignored', reason: `the ${verb} failed (HTTP ${status}): nothing changed` };
  const auditId = str(event.auditID) ?? fallbackId;
  if (auditId === undefined) return { kind: 'ignored', reason: 'no auditID' };
  const annotations = isRecord(event.annotations) ? event.annotations : {};
  const change: AuditChange = { auditId, cluster, verb, observed: readFresh(verb, event, annotations) };
  const actor = actorOfAuditEvent(event);
  if (actor !== undefined) change.actor = actor;
  const time = str(event.stageTimestamp) ?? str(event.requestReceivedTimestamp);
  if (time !== undefined) change.time = time;
  return { kind: 'change', change };
}

function readFresh(verb: AuditVerb, event: Json, annotations: Json): AuditChange['observed'] {
  const fresh = (reason: string) => ({ kind: 'read-fresh', reason }) as const;
  if (annotations['audit.k8s.io/truncated'] === 'true')
    return fresh('the audit event was truncated (bodies dropped)');
  if (verb === 'create') return fresh('a create is logged without bodies');
  if (verb === 'delete') return fresh('a delete carries no object');
  if (event.responseObject === undefined) return fresh(`the ${verb} event has no responseObject`);
  const configMap = configMapOf(event.responseObject);
  if (configMap === undefined)
    return fresh(`the ${verb} event's responseObject is not the aws-auth ConfigMap`);
  return { kind: 'object', configMap };
}

/**
 * A decoded subscription message → the aws-auth changes in it. A control message, a log group
 * that is not an EKS cluster's, or a message that is not a subscription's is ignored with a
 * reason; whether the cluster is monitored is the caller's question.
 */
export function parseAuditSubscription(message: unknown): AuditPayloadParse {
  if (!isRecord(message)) return { kind: 'ignored', reason: 'the payload is not a JSON object' };
  if (message.messageType === 'CONTROL_MESSAGE')
    return { kind: 'ignored', reason: 'a CloudWatch Logs control message (reachability check)' };
  if (message.messageType !== 'DATA_MESSAGE')
    return { kind: 'ignored', reason: `messageType ${brief(message.messageType)}, not DATA_MESSAGE` };
  const cluster = clusterOfLogGroup(message.logGroup);
  if (cluster === undefined)
    return {
      kind: 'ignored',
      reason: `log group ${brief(message.logGroup)} is not an EKS cluster's (/aws/eks/<cluster>/cluster)`,
    };
  if (!Array.isArray(message.logEvents))
    return { kind: 'ignored', reason: 'logEvents is not a list', cluster };
  const changes: AuditChange[] = [];
  const ignored: AuditIgnored[] = [];
  const seen = new Set<string>();
  message.logEvents.slice(0, MAX_LOG_EVENTS).forEach((logEvent, index) => {
    const logId = isRecord(logEvent) ? str(logEvent.id) : undefined;
    const id = logId ?? `#${index}`;
    if (!isRecord(logEvent) || typeof logEvent.message !== 'string') {
      ignored.push({ id, reason: 'a log event without a message' });
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(logEvent.message);
    } catch {
      // Cut at the event limit, or not JSON: it passed the aws-auth filter, so read aws-auth again.
      const change: AuditChange = {
        auditId: `log:${id}`,
        cluster,
        observed: { kind: 'read-fresh', reason: 'the log event is not complete JSON (cut at a size limit?)' },
      };
      if (typeof logEvent.timestamp === 'number' && Number.isFinite(logEvent.timestamp)) {
        const t = new Date(logEvent.timestamp);
        if (!Number.isNaN(t.getTime())) change.time = t.toISOString();
      }
      if (!seen.has(change.auditId)) changes.push(change);
      seen.add(change.auditId);
      return;
    }
    const parsed = parseAuditEvent(event, cluster, logId === undefined ? undefined : `log:${logId}`);
    if (parsed.kind === 'ignored') {
      ignored.push({ id: (isRecord(event) ? str(event.auditID) : undefined) ?? id, reason: parsed.reason });
      return;
    }
    if (seen.has(parsed.change.auditId)) {
      ignored.push({ id: parsed.change.auditId, reason: 'the same auditID twice in one payload' });
      return;
    }
    seen.add(parsed.change.auditId);
    changes.push(parsed.change);
  });
  // Events past the bound are not read one by one, but they may be aws-auth writes: one fresh read.
  if (message.logEvents.length > MAX_LOG_EVENTS)
    changes.push({
      auditId: `log:after:${MAX_LOG_EVENTS}`,
      cluster,
      observed: {
        kind: 'read-fresh',
        reason: `${message.logEvents.length - MAX_LOG_EVENTS} log events past the first ${MAX_LOG_EVENTS} not read`,
      },
    });
  return { kind: 'changes', cluster, changes, ignored };
}
