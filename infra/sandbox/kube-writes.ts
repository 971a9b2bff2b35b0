/**
 * ConfigMap writes as the API server answers them: POST (create; 409 AlreadyExists), PUT (replace;
 * a stale `metadata.resourceVersion` → 409 Conflict, an absent object → 404), PATCH as JSON Patch
 * (with `test`), JSON Merge Patch or strategic merge patch (which, for a ConfigMap's string maps,
 * merges like JSON Merge Patch; a resourceVersion in the patched object is a precondition too),
 * DELETE (404 when absent; `preconditions.resourceVersion`/`uid`). aws-auth is written through the
 * world, so EKS's side effects and the authenticator simulation see what the API wrote. Each write
 * is audited (kube-audit.ts), denied ones included.
 */
import type { KubeAccess, KubeRequestTarget } from './auth.ts';
import { jsonPatch, mergePatch, PatchError } from './json-patch.ts';
import { type AuditLog, auditEvent, iamAuditUser } from './kube-audit.ts';
import { forbidden, status } from './kube-status.ts';
import { isAwsAuth, type KubeStore } from './kube-store.ts';
import type { Incoming, Principal } from './runtime.ts';
import type { World } from './world.ts';

export type WriteOperation = 'CreateConfigMap' | 'ReplaceConfigMap' | 'PatchConfigMap' | 'DeleteConfigMap';

export interface WriteRequest {
  operation: WriteOperation;
  namespace: string;
  /** From the URL; undefined for a create. */
  name: string | undefined;
  incoming: Incoming;
  access: Extract<KubeAccess, { kind: 'authenticated' }>;
  principal: Principal;
  sourceIP: string;
  receivedAt: number;
}

export interface WriteDeps {
  world: World;
  store: KubeStore;
  audit: AuditLog;
}

const VERBS: Record<WriteOperation, 'create' | 'update' | 'patch' | 'delete'> = {
  CreateConfigMap: 'create',
  ReplaceConfigMap: 'update',
  PatchConfigMap: 'patch',
  DeleteConfigMap: 'delete',
};

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

interface Outcome {
  code: number;
  body: Record<string, unknown>;
  requestObject?: unknown;
  /** The body's name on a create, for the audit's objectRef. */
  bodyName?: string;
  bodyMeta?: { uid?: string; resourceVersion?: string };
}

class WriteFailure extends Error {
  constructor(readonly body: Record<string, unknown>) {
    super(String(body.message));
  }
}

const fail = (code: number, message: string, reason?: string, details?: Record<string, unknown>): never => {
  throw new WriteFailure(status(code, message, reason, details));
};

function isStringMap(v: unknown): v is Record<string, string> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === 'string')
  );
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function parseJson(incoming: Incoming): unknown {
  const text = incoming.body.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    return fail(400, `couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

/** The field manager: `fieldManager`, else the user agent up to its first '/' (as the API server derives it). */
function managerOf(incoming: Incoming): string {
  const explicit = incoming.query.get('fieldManager')?.[0];
  if (explicit) return explicit;
  const ua = incoming.headers['user-agent'] ?? 'unknown';
  return ua.split('/')[0] || 'unknown';
}

const conflict = (name: string): never =>
  fail(
    409,
    `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    'Conflict',
    { name, kind: 'configmaps' },
  );

const notFound = (name: string): never =>
  fail(404, `configmaps "${name}" not found`, 'NotFound', { name, kind: 'configmaps' });

export function handleConfigMapWrite(
  deps: WriteDeps,
  r: WriteRequest,
): { code: number; body: Record<string, unknown> } {
  const verb = VERBS[r.operation];
  const target: KubeRequestTarget = {
    verb,
    resource: 'configmaps',
    namespace: r.namespace,
    ...(r.name === undefined ? {} : { name: r.name }),
  };
  let outcome: Outcome;
  const allowed = r.access.can(target);
  // What was decoded before a failure: the API server audits the request body of a refused write too.
  const decoded: { requestObject?: unknown } = {};
  if (!allowed) {
    outcome = { code: 403, body: forbidden(r.access.username, target, r.name) };
  } else {
    try {
      outcome = apply(deps, r, decoded);
    } catch (err) {
      if (!(err instanceof WriteFailure)) throw err;
      outcome = { code: Number(err.body.code), body: err.body, ...decoded };
    }
  }
  const name = r.name ?? outcome.bodyName ?? '';
  const ok = outcome.code < 300;
  deps.audit.write(
    deps.store.cluster,
    auditEvent({
      cluster: deps.store.cluster,
      verb,
      requestURI: `${r.incoming.rawPath}${r.incoming.rawQuery ? `?${r.incoming.rawQuery}` : ''}`,
      namespace: r.namespace,
      name,
      nameInUrl: r.name !== undefined,
      user: iamAuditUser(
        deps.world.accountId,
        {
          arn: r.principal.arn,
          sessionName: r.principal.sessionName,
          roleId: r.principal.roleId,
          accessKeyId: r.principal.accessKeyId,
        },
        r.access.username,
        r.access.groups,
      ),
      userAgent: r.incoming.headers['user-agent'] ?? '',
      sourceIP: r.sourceIP,
      receivedAt: r.receivedAt,
      status: outcome.code,
      ...(ok ? {} : { failure: outcome.body }),
      ...(outcome.requestObject === undefined ? {} : { requestObject: outcome.requestObject }),
      ...(ok ? { responseObject: outcome.body } : {}),
      ...(outcome.bodyMeta?.uid ? { bodyUid: outcome.bodyMeta.uid } : {}),
      ...(outcome.bodyMeta?.resourceVersion ? { bodyResourceVersion: outcome.bodyMeta.resourceVersion } : {}),
      authorization: {
        decision: allowed ? 'allow' : 'forbid',
        reason: allowed ? r.access.reason(target) : '',
      },
    }),
  );
  return { code: outcome.code, body: outcome.body };
}

function apply(deps: WriteDeps, r: WriteRequest, decoded: { requestObject?: unknown }): Outcome {
  const { store } = deps;
  const manager = managerOf(r.incoming);
  switch (r.operation) {
    case 'CreateConfigMap': {
      const body = record(parseJson(r.incoming));
      decoded.requestObject = body;
      const meta = record(body.metadata);
      const name = typeof meta.name === 'string' ? meta.name : '';
      if (name === '')
        fail(
          422,
          'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
          'Invalid',
          {
            kind: 'ConfigMap',
          },
        );
      checkNamespace(meta, r.namespace);
      if (typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '')
        fail(500, 'resourceVersion should not be set on objects to be created', 'InternalError');
      if (store.state(r.namespace, name))
        fail(409, `configmaps "${name}" already exists`, 'AlreadyExists', { name, kind: 'configmaps' });
      const written = write(deps, r.namespace, name, body, manager);
      return { code: 201, body: written, requestObject: body, bodyName: name };
    }
    case 'ReplaceConfigMap': {
      const name = r.name as string;
      const body = record(parseJson(r.incoming));
      decoded.requestObject = body;
      const meta = record(body.metadata);
      if (meta.name !== undefined && meta.name !== name)
        fail(
          400,
          `the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`,
        );
      checkNamespace(meta, r.namespace);
      const current = store.state(r.namespace, name);
      if (!current) notFound(name);
      const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
      if (rv !== '' && rv !== current?.resourceVersion) conflict(name);
      const written = write(deps, r.namespace, name, body, manager);
      return { code: 200, body: written, requestObject: body, bodyMeta: bodyMeta(meta) };
    }
    case 'PatchConfigMap': {
      const name = r.name as string;
      const type = (r.incoming.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
      if (!PATCH_TYPES.includes(type))
        fail(
          415,
          `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`,
          'UnsupportedMediaType',
        );
      const patch = parseJson(r.incoming);
      decoded.requestObject = patch;
      const current = store.get(r.namespace, name);
      if (!current) return notFound(name);
      let patched: Record<string, unknown>;
      try {
        patched = record(
          type === 'application/json-patch+json'
            ? jsonPatch(current, patch)
            : mergePatch(current, stripDirectives(patch)),
        );
      } catch (err) {
        if (!(err instanceof PatchError)) throw err;
        return fail(err.kind === 'bad-request' ? 400 : 422, err.message);
      }
      const meta = record(patched.metadata);
      if (meta.name !== name || (meta.namespace ?? r.namespace) !== r.namespace)
        fail(
          422,
          `ConfigMap "${name}" is invalid: metadata.name: Invalid value: "${String(meta.name)}": field is immutable`,
          'Invalid',
          {
            name,
            kind: 'ConfigMap',
          },
        );
      const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
      if (rv !== '' && rv !== record(current.metadata).resourceVersion) conflict(name);
      const written = write(deps, r.namespace, name, patched, manager);
      return { code: 200, body: written, requestObject: patch };
    }
    case 'DeleteConfigMap': {
      const name = r.name as string;
      const options = r.incoming.body.length > 0 ? record(parseJson(r.incoming)) : undefined;
      if (options) decoded.requestObject = options;
      const current = store.state(r.namespace, name);
      if (!current) return notFound(name);
      const pre = record(options?.preconditions);
      const failed =
        typeof pre.uid === 'string' && pre.uid !== current.uid
          ? `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.uid}`
          : typeof pre.resourceVersion === 'string' && pre.resourceVersion !== current.resourceVersion
            ? `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.resourceVersion}`
            : undefined;
      if (failed)
        fail(409, `Operation cannot be fulfilled on configmaps "${name}": ${failed}`, 'Conflict', {
          name,
          kind: 'configmaps',
        });
      if (isAwsAuth(r.namespace, name)) deps.world.deleteAwsAuth(store.cluster, { manager, viaApi: true });
      else store.deleteOther(r.namespace, name);
      return {
        code: 200,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name, kind: 'configmaps', uid: current.uid },
        },
        ...(options ? { requestObject: options } : {}),
      };
    }
  }
}

function bodyMeta(meta: Record<string, unknown>): { uid?: string; resourceVersion?: string } {
  return {
    ...(typeof meta.uid === 'string' ? { uid: meta.uid } : {}),
    ...(typeof meta.resourceVersion === 'string' ? { resourceVersion: meta.resourceVersion } : {}),
  };
}

function checkNamespace(meta: Record<string, unknown>, namespace: string): void {
  if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace)
    fail(400, 'the namespace of the provided object does not match the namespace sent on the request');
}

/** Strategic-merge directives (`$patch`, `$retainKeys`…) have no effect on a ConfigMap's string maps. */
function stripDirectives(patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  return Object.fromEntries(
    Object.entries(patch)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, v]) => [k, stripDirectives(v)]),
  );
}

/** Stores `object`'s data, labels and annotations; returns the object as now served. */
function write(
  deps: WriteDeps,
  namespace: string,
  name: string,
  object: Record<string, unknown>,
  manager: string,
): Record<string, unknown> {
  const data = object.data ?? {};
  if (!isStringMap(data))
    fail(400, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: data values must be strings');
  const meta = record(object.metadata);
  const labels = isStringMap(meta.labels) ? meta.labels : {};
  const annotations = isStringMap(meta.annotations) ? meta.annotations : {};
  if (isAwsAuth(namespace, name)) {
    deps.world.writeAwsAuth(deps.store.cluster, { ...(data as Record<string, string>) }, manager, 'Update', {
      viaApi: true,
      labels,
      annotations,
    });
  } else {
    deps.store.writeOther(namespace, name, { ...(data as Record<string, string>) }, manager, {
      labels,
      annotations,
    });
  }
  return deps.store.get(namespace, name) ?? {};
}
