/**
 * EKS Pod Identity associations and add-ons, read and written as the EKS API does
 * (API_CreatePodIdentityAssociation, API_UpdatePodIdentityAssociation,
 * API_DeletePodIdentityAssociation, API_UpdateAddon, API_DeleteAddon of the EKS API reference):
 * the response bodies, `ResourceNotFoundException` (404) for an unknown association or add-on,
 * `ResourceInUseException` (409) for a second association of one service account, and the pods'
 * next credential refresh after each write (world.credentialsChanged).
 */
import type { Addon, PodIdentityAssociation } from '../../shared/core/model.ts';
import { isoNow, parseRoleArn, stableHex, uuid } from './ids.ts';
import { EksError } from './service-errors.ts';
import type { ClusterState, World } from './world.ts';

const epoch = (iso: string): number => Date.parse(iso) / 1000;
const K8S_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export function associationArn(c: ClusterState, associationId: string): string {
  return `arn:aws:eks:${c.region}:${c.accountId}:podidentityassociation/${c.name}/${associationId}`;
}

/**
 * The `externalId` EKS generates for an association with a `targetRoleArn` (EKS API reference,
 * `PodIdentityAssociation.externalId`): the seeded one, else one derived from the association, so
 * that the response and the target hop's `sts:ExternalId` (workload-credentials.ts) agree.
 */
export function externalIdOf(c: ClusterState, a: PodIdentityAssociation): string | undefined {
  if (a.targetRoleArn === undefined || a.targetRoleArn === '') return undefined;
  return a.externalId ?? stableHex(`${c.arn}/${a.associationId}`, 32);
}

/** The `association` object of Describe/Create/Update/DeletePodIdentityAssociation. */
export function associationJson(c: ClusterState, a: PodIdentityAssociation): Record<string, unknown> {
  return {
    clusterName: c.name,
    namespace: a.namespace,
    serviceAccount: a.serviceAccount,
    roleArn: a.roleArn,
    associationArn: associationArn(c, a.associationId),
    associationId: a.associationId,
    tags: {},
    createdAt: epoch(a.createdAt ?? c.createdAt),
    modifiedAt: epoch(a.modifiedAt ?? a.createdAt ?? c.createdAt),
    disableSessionTags: a.disableSessionTags ?? false,
    ...(a.targetRoleArn === undefined
      ? {}
      : { targetRoleArn: a.targetRoleArn, externalId: externalIdOf(c, a) }),
  };
}

/** The `addon` object of DescribeAddon / DeleteAddon. */
export function addonJson(c: ClusterState, a: Addon): Record<string, unknown> {
  return {
    addonName: a.name,
    clusterName: c.name,
    status: a.status ?? 'ACTIVE',
    addonVersion: a.version ?? 'v1.3.4-eksbuild.1',
    health: { issues: a.healthIssues },
    addonArn: `arn:aws:eks:${c.region}:${c.accountId}:addon/${c.name}/${a.name}/${stableHex(`${c.arn}/${a.name}`, 8)}`,
    createdAt: epoch(c.createdAt),
    modifiedAt: epoch(c.createdAt),
    tags: {},
  };
}

export function findAssociation(c: ClusterState, associationId: string | undefined): PodIdentityAssociation {
  const a = c.podIdentityAssociations.find((x) => x.associationId === associationId);
  if (!a) {
    throw new EksError(404, 'ResourceNotFoundException', `Association ${associationId} not found.`, {
      clusterName: c.name,
    });
  }
  return a;
}

export function findAddon(c: ClusterState, addonName: string | undefined): Addon {
  const a = c.addons.find((x) => x.name === addonName);
  if (!a) {
    throw new EksError(
      404,
      'ResourceNotFoundException',
      `No addon: ${addonName} found in cluster: ${c.name}`,
      { clusterName: c.name, addonName },
    );
  }
  return a;
}

function text(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new EksError(400, 'InvalidParameterException', `${key} must be a string.`);
  return v;
}

function roleArnOf(c: ClusterState, value: string, key: string): string {
  if (!parseRoleArn(value)) {
    throw new EksError(400, 'InvalidParameterException', `The ${key} ${value} is not a valid IAM role ARN.`, {
      clusterName: c.name,
    });
  }
  return value;
}

function sessionTags(body: Record<string, unknown>): boolean | undefined {
  const v = body.disableSessionTags;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean')
    throw new EksError(400, 'InvalidParameterException', 'disableSessionTags must be a boolean.');
  return v;
}

/** A new association ID: `a-` and 17 lower-case characters, as EKS names them. */
function newAssociationId(): string {
  return `a-${stableHex(uuid(), 17)}`;
}

export function createPodIdentityAssociation(
  world: World,
  c: ClusterState,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const namespace = text(body, 'namespace');
  const serviceAccount = text(body, 'serviceAccount');
  const roleArn = text(body, 'roleArn');
  if (!namespace || !serviceAccount || !roleArn) {
    throw new EksError(
      400,
      'InvalidParameterException',
      'namespace, serviceAccount and roleArn are required.',
      {
        clusterName: c.name,
      },
    );
  }
  if (!K8S_NAME.test(namespace) || !K8S_NAME.test(serviceAccount)) {
    throw new EksError(
      400,
      'InvalidParameterException',
      'namespace and serviceAccount must be Kubernetes names.',
      {
        clusterName: c.name,
      },
    );
  }
  const existing = c.podIdentityAssociations.find(
    (x) => x.namespace === namespace && x.serviceAccount === serviceAccount,
  );
  if (existing) {
    throw new EksError(
      409,
      'ResourceInUseException',
      `Association already exists: ${existing.associationId}`,
      {
        clusterName: c.name,
      },
    );
  }
  const target = text(body, 'targetRoleArn');
  const disableSessionTags = sessionTags(body);
  const now = isoNow();
  const association: PodIdentityAssociation = {
    associationId: newAssociationId(),
    namespace,
    serviceAccount,
    roleArn: roleArnOf(c, roleArn, 'roleArn'),
    ...(target === undefined || target === ''
      ? {}
      : { targetRoleArn: roleArnOf(c, target, 'targetRoleArn') }),
    ...(disableSessionTags === undefined ? {} : { disableSessionTags }),
    createdAt: now,
    modifiedAt: now,
  };
  c.podIdentityAssociations.push(association);
  world.log(`${c.name}: Pod Identity association ${namespace}/${serviceAccount} → ${roleArn} created`);
  world.credentialsChanged(c);
  return { association: associationJson(c, association) };
}

/** Only the role, the target role and session tags change (namespace and service account cannot). */
export function updatePodIdentityAssociation(
  world: World,
  c: ClusterState,
  associationId: string | undefined,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const a = findAssociation(c, associationId);
  const roleArn = text(body, 'roleArn');
  const target = text(body, 'targetRoleArn');
  const disableSessionTags = sessionTags(body);
  if (roleArn !== undefined) a.roleArn = roleArnOf(c, roleArn, 'roleArn');
  if (target === '') delete a.targetRoleArn;
  else if (target !== undefined) a.targetRoleArn = roleArnOf(c, target, 'targetRoleArn');
  if (disableSessionTags !== undefined) a.disableSessionTags = disableSessionTags;
  a.modifiedAt = isoNow();
  world.log(
    `${c.name}: Pod Identity association ${a.namespace}/${a.serviceAccount} updated (role ${a.roleArn})`,
  );
  world.credentialsChanged(c);
  return { association: associationJson(c, a) };
}

export function deletePodIdentityAssociation(
  world: World,
  c: ClusterState,
  associationId: string | undefined,
): Record<string, unknown> {
  const a = findAssociation(c, associationId);
  c.podIdentityAssociations = c.podIdentityAssociations.filter((x) => x !== a);
  // The association is gone: its pods fall back to the SDK's next provider (none here).
  c.credentialOutcomes.delete(`pod identity ${a.namespace}/${a.serviceAccount}`);
  world.log(`${c.name}: Pod Identity association ${a.namespace}/${a.serviceAccount} deleted`);
  world.credentialsChanged(c);
  return { association: associationJson(c, a) };
}

/** DELETING at once, gone after EKS's side-effect delay. */
export function deleteAddon(
  world: World,
  c: ClusterState,
  addonName: string | undefined,
  delayMs: number,
): Record<string, unknown> {
  const a = findAddon(c, addonName);
  a.status = 'DELETING';
  const answer = { addon: addonJson(c, a) };
  world.log(`${c.name}: DeleteAddon ${a.name}`);
  world.later(delayMs, () => {
    if (c.removed) return;
    c.addons = c.addons.filter((x) => x !== a);
    world.log(`${c.name}: add-on ${a.name} deleted`);
    world.credentialsChanged(c);
  });
  return answer;
}

export function updateAddon(
  world: World,
  c: ClusterState,
  addonName: string | undefined,
  body: Record<string, unknown>,
  delayMs: number,
): Record<string, unknown> {
  const a = findAddon(c, addonName);
  if (a.status === 'UPDATING' || a.status === 'DELETING') {
    throw new EksError(409, 'ResourceInUseException', `Addon ${a.name} is ${a.status}.`, {
      clusterName: c.name,
      addonName: a.name,
    });
  }
  const version = text(body, 'addonVersion');
  const params = version === undefined ? [] : [{ type: 'AddonVersion', value: version }];
  const update = {
    id: uuid(),
    status: 'InProgress',
    type: 'AddonUpdate',
    params,
    createdAt: epoch(isoNow()),
    errors: [],
  };
  a.status = 'UPDATING';
  world.log(`${c.name}: UpdateAddon ${a.name}${version === undefined ? '' : ` to ${version}`}`);
  world.later(delayMs, () => {
    if (c.removed) return;
    a.status = 'ACTIVE';
    if (version !== undefined) a.version = version;
    world.log(`${c.name}: add-on ${a.name} ACTIVE${version === undefined ? '' : ` at ${version}`}`);
    world.credentialsChanged(c);
  });
  return { update };
}

/**
 * CreateAddon: `CREATING` at once, `ACTIVE` after EKS's side-effect delay; a second add-on of the
 * same name is 409 `ResourceInUseException` (API_CreateAddon).
 */
export function createAddon(
  world: World,
  c: ClusterState,
  body: Record<string, unknown>,
  delayMs: number,
): Record<string, unknown> {
  const name = text(body, 'addonName');
  if (name === undefined || name === '')
    throw new EksError(400, 'InvalidParameterException', 'addonName is required.', { clusterName: c.name });
  if (c.addons.some((x) => x.name === name)) {
    throw new EksError(409, 'ResourceInUseException', `Addon already exists with name ${name}.`, {
      clusterName: c.name,
      addonName: name,
    });
  }
  const version = text(body, 'addonVersion');
  const a: Addon = {
    name,
    status: 'CREATING',
    healthIssues: [],
    ...(version === undefined ? {} : { version }),
  };
  c.addons.push(a);
  const answer = { addon: addonJson(c, a) };
  world.log(`${c.name}: CreateAddon ${name}`);
  world.later(delayMs, () => {
    if (c.removed || !c.addons.includes(a)) return;
    a.status = 'ACTIVE';
    world.log(`${c.name}: add-on ${name} ACTIVE`);
    world.credentialsChanged(c);
  });
  return answer;
}
