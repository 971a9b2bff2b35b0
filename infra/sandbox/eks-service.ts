/**
 * Amazon EKS over REST JSON, with the paths, query parameters and error shape of the real service
 * (as serialised by @aws-sdk/client-eks: `x-amzn-errortype` header + `{ message }` body, timestamps
 * as epoch seconds). Write calls apply EKS's own side effects
 * (docs/eks-auth-semantics.md#what-eks-writes-and-deletes) through the World and leave a CloudTrail record as EventBridge delivers it
 * (docs/eks-auth-semantics.md#cloudtrail-records-delivered-by-eventbridge).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  ACCESS_ENTRY_TYPES,
  type AccessEntryType,
  type AccessScope,
  type AuthenticationMode,
} from '../../shared/core/model.ts';
import { accessIndexOf, awsAuthPrincipals, principalsLosingAccess } from './auth.ts';
import { cloudTrailRecord } from './cloudtrail-record.ts';
import { activeCaJson, certificateAuthorityOperation } from './eks-certificate-authorities.ts';
import { clusterLoggingJson, updateClusterLogging } from './eks-cluster-logging.ts';
import {
  addonJson,
  associationArn,
  associationJson,
  createAddon,
  createPodIdentityAssociation,
  deleteAddon,
  deletePodIdentityAssociation,
  findAddon,
  findAssociation,
  updateAddon,
  updatePodIdentityAssociation,
} from './eks-workload-identity.ts';
import { decodeToken, encodeToken, isoNow, parseRoleArn, roleKey, uuid } from './ids.ts';
import { type Incoming, type Principal, type Runtime, readIncoming, requestId, send } from './runtime.ts';
import { EksError } from './service-errors.ts';
import { verifyRequest } from './sigv4.ts';
import type { SandboxAccessEntry, SandboxFargateProfile, SandboxNode, SandboxNodegroup } from './types.ts';
import {
  accessEntryArn,
  type ClusterState,
  defaultUsername,
  FARGATE_GROUPS,
  FARGATE_USERNAME,
  makeNode,
  NODE_GROUPS,
  NODE_USERNAME,
} from './world.ts';

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

interface Route {
  operation: string;
  cluster?: string;
  /** Path parameters exactly as they travelled (URL-encoded), for CloudTrail. */
  rawParams: Record<string, string>;
  params: Record<string, string>;
}

const WRITE_OPERATIONS = new Set([
  'CreateNodegroup',
  'DeleteNodegroup',
  'CreateFargateProfile',
  'DeleteFargateProfile',
  'CreateAccessEntry',
  'UpdateAccessEntry',
  'DeleteAccessEntry',
  'AssociateAccessPolicy',
  'DisassociateAccessPolicy',
  'UpdateClusterConfig',
  'CreatePodIdentityAssociation',
  'UpdatePodIdentityAssociation',
  'DeletePodIdentityAssociation',
  'UpdateAddon',
  'DeleteAddon',
  'CreateCertificateAuthority',
  'ActivateCertificateAuthority',
  'CreateAddon',
]);

const ACCESS_WRITES = new Set([
  'CreateAccessEntry',
  'UpdateAccessEntry',
  'DeleteAccessEntry',
  'AssociateAccessPolicy',
  'DisassociateAccessPolicy',
]);

const MODE_MESSAGE =
  "The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.";

const epoch = (iso: string): number => Date.parse(iso) / 1000;

function route(method: string, rawPath: string): Route | undefined {
  const raw = rawPath.split('/').slice(1);
  let seg: string[];
  try {
    seg = raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  const n = seg.length;
  if (seg[0] !== 'clusters') return undefined;
  if (n === 1 && method === 'GET') return { operation: 'ListClusters', rawParams: {}, params: {} };
  const name = seg[1] as string;
  const rawName = raw[1] as string;
  const base = { cluster: name, rawParams: { name: rawName }, params: { name } };
  if (n === 2 && method === 'GET') return { operation: 'DescribeCluster', ...base };
  const kind = seg[2];
  if (n === 3 && kind === 'update-config' && method === 'POST')
    return { operation: 'UpdateClusterConfig', ...base };
  const withParam = (op: string, key: string, index: number): Route => ({
    operation: op,
    cluster: name,
    rawParams: { ...base.rawParams, [key]: raw[index] as string },
    params: { ...base.params, [key]: seg[index] as string },
  });
  if (kind === 'node-groups') {
    if (n === 3 && method === 'GET') return { operation: 'ListNodegroups', ...base };
    if (n === 3 && method === 'POST') return { operation: 'CreateNodegroup', ...base };
    if (n === 4 && method === 'GET') return withParam('DescribeNodegroup', 'nodegroupName', 3);
    if (n === 4 && method === 'DELETE') return withParam('DeleteNodegroup', 'nodegroupName', 3);
  }
  if (kind === 'fargate-profiles') {
    if (n === 3 && method === 'GET') return { operation: 'ListFargateProfiles', ...base };
    if (n === 3 && method === 'POST') return { operation: 'CreateFargateProfile', ...base };
    if (n === 4 && method === 'GET') return withParam('DescribeFargateProfile', 'fargateProfileName', 3);
    if (n === 4 && method === 'DELETE') return withParam('DeleteFargateProfile', 'fargateProfileName', 3);
  }
  if (kind === 'access-entries') {
    if (n === 3 && method === 'GET') return { operation: 'ListAccessEntries', ...base };
    if (n === 3 && method === 'POST') return { operation: 'CreateAccessEntry', ...base };
    if (n === 4 && method === 'GET') return withParam('DescribeAccessEntry', 'principalArn', 3);
    if (n === 4 && method === 'POST') return withParam('UpdateAccessEntry', 'principalArn', 3);
    if (n === 4 && method === 'DELETE') return withParam('DeleteAccessEntry', 'principalArn', 3);
    if (n >= 5 && seg[4] === 'access-policies') {
      const r = withParam('', 'principalArn', 3);
      if (n === 5 && method === 'GET') return { ...r, operation: 'ListAssociatedAccessPolicies' };
      if (n === 5 && method === 'POST') return { ...r, operation: 'AssociateAccessPolicy' };
      if (n === 6 && method === 'DELETE') {
        return {
          ...r,
          operation: 'DisassociateAccessPolicy',
          rawParams: { ...r.rawParams, policyArn: raw[5] as string },
          params: { ...r.params, policyArn: seg[5] as string },
        };
      }
    }
  }
  if (kind === 'pod-identity-associations') {
    if (n === 3 && method === 'GET') return { operation: 'ListPodIdentityAssociations', ...base };
    if (n === 3 && method === 'POST') return { operation: 'CreatePodIdentityAssociation', ...base };
    if (n === 4 && method === 'GET') return withParam('DescribePodIdentityAssociation', 'associationId', 3);
    if (n === 4 && method === 'POST') return withParam('UpdatePodIdentityAssociation', 'associationId', 3);
    if (n === 4 && method === 'DELETE') return withParam('DeletePodIdentityAssociation', 'associationId', 3);
  }
  if (kind === 'certificate-authorities') {
    if (n === 3 && method === 'GET') return { operation: 'ListCertificateAuthorities', ...base };
    if (n === 3 && method === 'POST') return { operation: 'CreateCertificateAuthority', ...base };
    if (n === 4 && method === 'GET')
      return withParam('DescribeCertificateAuthority', 'certificateAuthorityId', 3);
    if (n === 5 && seg[4] === 'activate' && method === 'POST')
      return withParam('ActivateCertificateAuthority', 'certificateAuthorityId', 3);
  }
  if (kind === 'addons') {
    if (n === 3 && method === 'GET') return { operation: 'ListAddons', ...base };
    if (n === 3 && method === 'POST') return { operation: 'CreateAddon', ...base };
    if (n === 4 && method === 'GET') return withParam('DescribeAddon', 'addonName', 3);
    if (n === 4 && method === 'DELETE') return withParam('DeleteAddon', 'addonName', 3);
    if (n === 5 && seg[4] === 'update' && method === 'POST') return withParam('UpdateAddon', 'addonName', 3);
  }
  return undefined;
}

function paginate<T>(items: T[], query: Incoming['query'], salt: string): { page: T[]; nextToken?: string } {
  const maxRaw = query.get('maxResults')?.[0];
  let max = 100;
  if (maxRaw !== undefined) {
    max = Number(maxRaw);
    if (!Number.isInteger(max) || max < 1 || max > 100) {
      throw new EksError(400, 'InvalidParameterException', 'maxResults must be between 1 and 100.');
    }
  }
  const tokenRaw = query.get('nextToken')?.[0];
  let start = 0;
  if (tokenRaw !== undefined && tokenRaw !== '') {
    const offset = decodeToken(tokenRaw, salt);
    if (offset === undefined)
      throw new EksError(400, 'InvalidParameterException', 'The nextToken is invalid.');
    start = offset;
  }
  const page = items.slice(start, start + max);
  const out: { page: T[]; nextToken?: string } = { page };
  if (start + max < items.length) out.nextToken = encodeToken(start + max, salt);
  return out;
}

function parseBody(body: Buffer): Record<string, unknown> {
  if (body.length === 0) return {};
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new EksError(400, 'SerializationException', 'The request body is not valid JSON.');
}

function str(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  return typeof v === 'string' ? v : undefined;
}

function strings(body: Record<string, unknown>, key: string): string[] | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new EksError(400, 'InvalidParameterException', `${key} must be a list of strings.`);
  }
  return v as string[];
}

// -----------------------------------------------------------------------------------------------
// Response shapes

export function clusterJson(c: ClusterState, caData: string): Record<string, unknown> {
  return {
    name: c.name,
    arn: c.arn,
    createdAt: epoch(c.createdAt),
    version: c.version,
    endpoint: c.endpoint,
    roleArn: c.roleArn,
    ...(c.computeConfig ? { computeConfig: { ...c.computeConfig } } : {}),
    resourcesVpcConfig: {
      subnetIds: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
      securityGroupIds: [],
      clusterSecurityGroupId: 'sg-0a1b2c3d4e5f60001',
      vpcId: 'vpc-0a1b2c3d4e5f60001',
      endpointPublicAccess: c.endpointPublicAccess,
      endpointPrivateAccess: c.endpointPrivateAccess,
      publicAccessCidrs: c.endpointPublicAccess ? ['0.0.0.0/0'] : [],
    },
    kubernetesNetworkConfig: { serviceIpv4Cidr: '172.20.0.0/16', ipFamily: 'ipv4' },
    logging: clusterLoggingJson(c.logging),
    identity: { oidc: { issuer: c.oidcIssuer } },
    status: c.status,
    certificateAuthority: {
      data: caData,
      ...(activeCaJson(c) === undefined ? {} : { active: activeCaJson(c) }),
    },
    platformVersion: c.platformVersion,
    tags: {},
    health: { issues: [] },
    accessConfig: {
      bootstrapClusterCreatorAdminPermissions: c.bootstrapClusterCreatorAdminPermissions,
      authenticationMode: c.authenticationMode,
    },
    upgradePolicy: { supportType: 'STANDARD' },
  };
}

function nodegroupJson(c: ClusterState, g: SandboxNodegroup): Record<string, unknown> {
  return {
    nodegroupName: g.name,
    nodegroupArn: g.arn,
    clusterName: c.name,
    version: c.version,
    releaseVersion: `${c.version}.0-20250101`,
    createdAt: epoch(g.createdAt),
    modifiedAt: epoch(g.modifiedAt),
    status: g.status,
    capacityType: g.capacityType,
    scalingConfig: { minSize: g.minSize, maxSize: g.maxSize, desiredSize: g.desiredSize },
    instanceTypes: g.instanceTypes,
    subnets: ['subnet-0a1b2c3d4e5f60001', 'subnet-0a1b2c3d4e5f60002'],
    amiType: g.amiType,
    nodeRole: g.nodeRole,
    labels: g.labels,
    resources: { autoScalingGroups: [{ name: `eks-${g.name}-${g.arn.split('/').pop() ?? ''}` }] },
    diskSize: 20,
    health: { issues: g.healthIssues.map((i) => ({ ...i, resourceIds: [] })) },
    updateConfig: { maxUnavailable: 1 },
    tags: {},
  };
}

function fargateJson(c: ClusterState, p: SandboxFargateProfile): Record<string, unknown> {
  return {
    fargateProfileName: p.name,
    fargateProfileArn: p.arn,
    clusterName: c.name,
    createdAt: epoch(p.createdAt),
    podExecutionRoleArn: p.podExecutionRoleArn,
    subnets: p.subnets,
    selectors: p.selectors,
    status: p.status,
    tags: {},
    health: { issues: [] },
  };
}

function accessEntryJson(c: ClusterState, e: SandboxAccessEntry): Record<string, unknown> {
  return {
    clusterName: c.name,
    principalArn: e.principalArn,
    kubernetesGroups: e.kubernetesGroups,
    accessEntryArn: e.accessEntryArn,
    createdAt: epoch(e.createdAt),
    modifiedAt: epoch(e.modifiedAt),
    tags: e.tags,
    username: e.username,
    type: e.type,
  };
}

// -----------------------------------------------------------------------------------------------
// The service

export interface EksServiceDeps {
  runtime: Runtime;
  caData: () => string;
  sideEffectDelayMs: number;
}

export function createEksServer(deps: EksServiceDeps): Server {
  return createServer((req, res) => {
    handle(deps, req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        send(res, 500, 'application/json', JSON.stringify({ message: String(err) }), {
          'x-amzn-errortype': 'ServerException',
        });
      }
    });
  });
}

async function handle(deps: EksServiceDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { runtime } = deps;
  const incoming = await readIncoming(req);
  const r = route(incoming.method, incoming.rawPath);
  const operation = r?.operation ?? 'Unknown';
  const reqId = requestId();
  const leave = runtime.enter('eks', operation);
  const reply = (status: number, body: unknown, code?: string): void => {
    leave();
    runtime.record('eks', operation, r?.cluster, status);
    const headers: Record<string, string> = { 'x-amzn-requestid': reqId };
    if (code) headers['x-amzn-errortype'] = `${code}:http://internal.amazon.com/coral/com.amazonaws.eks/`;
    send(res, status, 'application/json', JSON.stringify(body), headers);
  };
  const fail = (e: EksError): void => reply(e.status, { message: e.message, ...e.extra }, e.code);

  await runtime.delay();
  const verified = verifyRequest(incoming, runtime.lookupSecret, Date.now());
  if (!verified.ok) {
    const code =
      verified.code === 'unknown-key'
        ? 'UnrecognizedClientException'
        : verified.code === 'missing'
          ? 'MissingAuthenticationTokenException'
          : 'InvalidSignatureException';
    fail(new EksError(403, code, verified.message));
    return;
  }
  const principal = runtime.principals.get(verified.scope.accessKeyId) as Principal;
  if (!r) {
    fail(
      new EksError(404, 'UnknownOperationException', `No route for ${incoming.method} ${incoming.rawPath}`),
    );
    return;
  }
  const fault = runtime.takeFault('eks', operation, r.cluster);
  if (fault?.hang) return runtime.record('eks', operation, r.cluster, 0);
  if (fault) {
    fail(new EksError(fault.status, fault.code ?? 'ServerException', fault.message ?? 'Injected fault'));
    return;
  }
  if (!runtime.takeEksToken()) {
    fail(
      new EksError(429, 'ThrottlingException', 'Rate exceeded', r.cluster ? { clusterName: r.cluster } : {}),
    );
    return;
  }
  try {
    const region = verified.scope.region;
    const out = execute(deps, r, incoming, region);
    if (WRITE_OPERATIONS.has(operation) && r.cluster !== undefined) {
      const body = incoming.body.length > 0 ? parseBody(incoming.body) : {};
      // DeleteAddon's `preserve` travels in the query string; CloudTrail shows it as a boolean.
      const preserve = incoming.query.get('preserve')?.[0];
      runtime.cloudTrail.push(
        cloudTrailRecord({
          principal,
          accountId: runtime.world.accountId,
          region,
          eventName: operation,
          requestParameters: {
            ...body,
            ...r.rawParams,
            ...(preserve === undefined ? {} : { preserve: preserve === 'true' }),
          },
          responseElements: Object.keys(out.body).length === 0 ? null : out.body,
          userAgent: incoming.headers['user-agent'] ?? 'aws-sdk-js',
          sourceIPAddress: req.socket.remoteAddress ?? '127.0.0.1',
          requestId: reqId,
          at: Date.now(),
        }),
      );
    }
    reply(out.status, out.body);
  } catch (err) {
    if (err instanceof EksError) fail(err);
    else throw err;
  }
}

function execute(deps: EksServiceDeps, r: Route, incoming: Incoming, region: string): Reply {
  const world = deps.runtime.world;
  if (r.operation === 'ListClusters') {
    const names = world
      .inRegion(region)
      .map((c) => c.name)
      .sort();
    const { page, nextToken } = paginate(names, incoming.query, `clusters/${region}`);
    return { status: 200, body: nextToken ? { clusters: page, nextToken } : { clusters: page } };
  }
  const name = r.params.name as string;
  const c = world.find(name, region);
  if (!c) {
    throw new EksError(404, 'ResourceNotFoundException', `No cluster found for name: ${name}.`, {
      clusterName: name,
    });
  }
  const ok = (body: Record<string, unknown>): Reply => ({ status: 200, body });
  const requireApiMode = (): void => {
    if (c.authenticationMode === 'CONFIG_MAP')
      throw new EksError(400, 'InvalidRequestException', MODE_MESSAGE);
  };
  // Access-entry writes while an update (a mode switch) is in progress: what EKS answers is not
  // documented; the sandbox answers 409 ResourceInUseException, as for a second update.
  if (c.status === 'UPDATING' && ACCESS_WRITES.has(r.operation)) {
    throw new EksError(409, 'ResourceInUseException', 'Cluster already has an update in progress.', {
      clusterName: c.name,
    });
  }
  const findNodegroup = (): SandboxNodegroup => {
    const ng = c.nodegroups.find((g) => g.name === r.params.nodegroupName);
    if (!ng) {
      throw new EksError(
        404,
        'ResourceNotFoundException',
        `No node group found for name: ${r.params.nodegroupName}.`,
        {
          clusterName: c.name,
          nodegroupName: r.params.nodegroupName,
        },
      );
    }
    return ng;
  };
  const findProfile = (): SandboxFargateProfile => {
    const p = c.fargateProfiles.find((x) => x.name === r.params.fargateProfileName);
    if (!p) {
      throw new EksError(
        404,
        'ResourceNotFoundException',
        `No Fargate Profile found with name: ${r.params.fargateProfileName}.`,
        { clusterName: c.name, fargateProfileName: r.params.fargateProfileName },
      );
    }
    return p;
  };
  const findEntry = (): SandboxAccessEntry => {
    requireApiMode();
    const e = c.accessEntries.find((x) => x.principalArn === r.params.principalArn);
    if (!e) {
      throw new EksError(
        404,
        'ResourceNotFoundException',
        `The specified principalArn could not be found. You can view your available access entries with 'list-access-entries'.`,
        { clusterName: c.name },
      );
    }
    return e;
  };

  switch (r.operation) {
    case 'DescribeCluster':
      return ok({ cluster: clusterJson(c, deps.caData()) });
    case 'ListNodegroups': {
      const { page, nextToken } = paginate(
        c.nodegroups.map((g) => g.name),
        incoming.query,
        `ng/${c.arn}`,
      );
      return ok(nextToken ? { nodegroups: page, nextToken } : { nodegroups: page });
    }
    case 'DescribeNodegroup':
      return ok({ nodegroup: nodegroupJson(c, findNodegroup()) });
    case 'ListFargateProfiles': {
      const { page, nextToken } = paginate(
        c.fargateProfiles.map((p) => p.name),
        incoming.query,
        `fp/${c.arn}`,
      );
      return ok(nextToken ? { fargateProfileNames: page, nextToken } : { fargateProfileNames: page });
    }
    case 'DescribeFargateProfile':
      return ok({ fargateProfile: fargateJson(c, findProfile()) });
    case 'ListAccessEntries': {
      requireApiMode();
      const policy = incoming.query.get('associatedPolicyArn')?.[0];
      const arns = c.accessEntries
        .filter((e) => policy === undefined || e.accessPolicies.some((p) => p.policyArn === policy))
        .map((e) => e.principalArn);
      const { page, nextToken } = paginate(arns, incoming.query, `ae/${c.arn}`);
      return ok(nextToken ? { accessEntries: page, nextToken } : { accessEntries: page });
    }
    case 'DescribeAccessEntry':
      return ok({ accessEntry: accessEntryJson(c, findEntry()) });
    case 'ListAssociatedAccessPolicies': {
      const e = findEntry();
      const { page, nextToken } = paginate(e.accessPolicies, incoming.query, `ap/${c.arn}/${e.principalArn}`);
      const body: Record<string, unknown> = {
        clusterName: c.name,
        principalArn: e.principalArn,
        associatedAccessPolicies: page.map((p) => ({
          policyArn: p.policyArn,
          accessScope: p.accessScope,
          associatedAt: epoch(p.associatedAt),
          modifiedAt: epoch(p.modifiedAt),
        })),
      };
      if (nextToken) body.nextToken = nextToken;
      return ok(body);
    }
    case 'ListPodIdentityAssociations': {
      const { page, nextToken } = paginate(c.podIdentityAssociations, incoming.query, `pia/${c.arn}`);
      const associations = page.map((a) => ({
        clusterName: c.name,
        namespace: a.namespace,
        serviceAccount: a.serviceAccount,
        associationArn: associationArn(c, a.associationId),
        associationId: a.associationId,
      }));
      return ok(nextToken ? { associations, nextToken } : { associations });
    }
    case 'DescribePodIdentityAssociation':
      return ok({ association: associationJson(c, findAssociation(c, r.params.associationId)) });
    case 'CreatePodIdentityAssociation':
      return ok(createPodIdentityAssociation(world, c, parseBody(incoming.body)));
    case 'UpdatePodIdentityAssociation':
      return ok(updatePodIdentityAssociation(world, c, r.params.associationId, parseBody(incoming.body)));
    case 'DeletePodIdentityAssociation':
      return ok(deletePodIdentityAssociation(world, c, r.params.associationId));
    case 'CreateAddon':
      return ok(createAddon(world, c, parseBody(incoming.body), deps.sideEffectDelayMs));
    case 'UpdateAddon':
      return ok(updateAddon(world, c, r.params.addonName, parseBody(incoming.body), deps.sideEffectDelayMs));
    case 'DeleteAddon':
      return ok(deleteAddon(world, c, r.params.addonName, deps.sideEffectDelayMs));
    case 'ListAddons': {
      const { page, nextToken } = paginate(
        c.addons.map((a) => a.name),
        incoming.query,
        `addons/${c.arn}`,
      );
      return ok(nextToken ? { addons: page, nextToken } : { addons: page });
    }
    case 'DescribeAddon':
      return ok({ addon: addonJson(c, findAddon(c, r.params.addonName)) });
    case 'CreateNodegroup':
      return ok({ nodegroup: nodegroupJson(c, createNodegroup(deps, c, parseBody(incoming.body))) });
    case 'DeleteNodegroup':
      return ok({ nodegroup: nodegroupJson(c, deleteNodegroup(deps, c, findNodegroup())) });
    case 'CreateFargateProfile':
      return ok({ fargateProfile: fargateJson(c, createFargateProfile(deps, c, parseBody(incoming.body))) });
    case 'DeleteFargateProfile':
      return ok({ fargateProfile: fargateJson(c, deleteFargateProfile(deps, c, findProfile())) });
    case 'CreateAccessEntry': {
      requireApiMode();
      return ok({ accessEntry: accessEntryJson(c, createAccessEntry(deps, c, parseBody(incoming.body))) });
    }
    case 'UpdateAccessEntry': {
      const e = findEntry();
      const body = parseBody(incoming.body);
      const groups = strings(body, 'kubernetesGroups');
      const username = str(body, 'username');
      if (e.type !== 'STANDARD' && (groups !== undefined || username !== undefined)) {
        throw new EksError(
          400,
          'InvalidParameterException',
          `The kubernetesGroups and username can't be updated for access entries of type ${e.type}.`,
        );
      }
      if (username !== undefined) checkUsername(username);
      if (groups !== undefined) e.kubernetesGroups = [...groups];
      if (username !== undefined) e.username = username;
      e.modifiedAt = isoNow();
      c.changed();
      return ok({ accessEntry: accessEntryJson(c, e) });
    }
    case 'DeleteAccessEntry': {
      const e = findEntry();
      c.accessEntries = c.accessEntries.filter((x) => x !== e);
      world.log(`${c.name}: access entry ${e.principalArn} deleted`);
      c.changed();
      return ok({});
    }
    case 'AssociateAccessPolicy': {
      const e = findEntry();
      const body = parseBody(incoming.body);
      const policyArn = str(body, 'policyArn');
      if (!policyArn || !/^arn:aws[\w-]*:eks::aws:cluster-access-policy\/[\w-]+$/.test(policyArn)) {
        throw new EksError(
          400,
          'InvalidParameterException',
          'The policyArn is not a valid access policy ARN.',
        );
      }
      // The one exception EKS documents: an Auto Mode node role's EC2 entry takes
      // AmazonEKSAutoNodePolicy (user guide, Auto Mode "create node class").
      const autoNode = e.type === 'EC2' && policyArn.endsWith('/AmazonEKSAutoNodePolicy');
      if (e.type !== 'STANDARD' && !autoNode) {
        throw new EksError(
          400,
          'InvalidParameterException',
          `Access policies can only be associated with access entries of type STANDARD.`,
        );
      }
      const scopeRaw = body.accessScope as { type?: unknown; namespaces?: unknown } | undefined;
      const type = scopeRaw?.type;
      const namespaces = Array.isArray(scopeRaw?.namespaces) ? (scopeRaw.namespaces as string[]) : [];
      if (type !== 'cluster' && type !== 'namespace') {
        throw new EksError(
          400,
          'InvalidParameterException',
          'accessScope.type must be cluster or namespace.',
        );
      }
      if (type === 'namespace' && namespaces.length === 0) {
        throw new EksError(
          400,
          'InvalidParameterException',
          'A namespace access scope needs at least one namespace.',
        );
      }
      const now = isoNow();
      const existing = e.accessPolicies.find((p) => p.policyArn === policyArn);
      const accessScope: AccessScope =
        type === 'cluster'
          ? { type: 'cluster', namespaces: [] }
          : { type: 'namespace', namespaces: [...namespaces] };
      if (existing) {
        existing.accessScope = accessScope;
        existing.modifiedAt = now;
      } else {
        e.accessPolicies.push({ policyArn, accessScope, associatedAt: now, modifiedAt: now });
      }
      const p =
        existing ??
        (e.accessPolicies[e.accessPolicies.length - 1] as SandboxAccessEntry['accessPolicies'][0]);
      world.log(`${c.name}: ${policyArn} associated with ${e.principalArn}`);
      c.changed();
      return ok({
        clusterName: c.name,
        principalArn: e.principalArn,
        associatedAccessPolicy: {
          policyArn: p.policyArn,
          accessScope: p.accessScope,
          associatedAt: epoch(p.associatedAt),
          modifiedAt: epoch(p.modifiedAt),
        },
      });
    }
    case 'DisassociateAccessPolicy': {
      const e = findEntry();
      const before = e.accessPolicies.length;
      e.accessPolicies = e.accessPolicies.filter((p) => p.policyArn !== r.params.policyArn);
      if (e.accessPolicies.length === before) {
        throw new EksError(
          404,
          'ResourceNotFoundException',
          'The specified policy is not associated with the access entry.',
          {
            clusterName: c.name,
          },
        );
      }
      world.log(`${c.name}: ${r.params.policyArn} disassociated from ${e.principalArn}`);
      c.changed();
      return ok({});
    }
    case 'UpdateClusterConfig': {
      const body = parseBody(incoming.body);
      if (body.logging !== undefined && body.accessConfig === undefined)
        return ok({ update: updateClusterLogging(world, deps.sideEffectDelayMs, c, body.logging) });
      return ok({ update: updateClusterConfig(deps, c, body) });
    }
    case 'ListCertificateAuthorities':
    case 'DescribeCertificateAuthority':
    case 'CreateCertificateAuthority':
    case 'ActivateCertificateAuthority':
      return ok(
        certificateAuthorityOperation(world, deps.sideEffectDelayMs, c, r.operation, r.params, deps.caData()),
      );
    default:
      throw new EksError(404, 'UnknownOperationException', `Unsupported operation ${r.operation}`);
  }
}

// -----------------------------------------------------------------------------------------------
// Writes and their side effects

function isWindows(amiType: string): boolean {
  return amiType.toUpperCase().startsWith('WINDOWS');
}

function ensureNodeAccessEntry(c: ClusterState, roleArn: string, type: AccessEntryType): void {
  if (c.authenticationMode === 'CONFIG_MAP') return;
  if (c.accessEntries.some((e) => e.principalArn === roleArn)) return;
  const now = isoNow();
  c.accessEntries.push({
    principalArn: roleArn,
    type,
    username: defaultUsername(type, roleArn),
    // What DescribeAccessEntry shows for EKS-created node entries (EKS Workshop;
    // docs/eks-auth-semantics.md#managed-node-groups-and-access-entries).
    kubernetesGroups: type === 'FARGATE_LINUX' ? [] : ['system:nodes'],
    accessEntryArn: accessEntryArn(c.region, c.accountId, c.name, roleArn),
    createdAt: now,
    modifiedAt: now,
    tags: {},
    accessPolicies: [],
  });
}

function createNodegroup(
  deps: EksServiceDeps,
  c: ClusterState,
  body: Record<string, unknown>,
): SandboxNodegroup {
  const world = deps.runtime.world;
  const name = str(body, 'nodegroupName');
  const nodeRole = str(body, 'nodeRole');
  if (!name || !nodeRole) {
    throw new EksError(400, 'InvalidParameterException', 'nodegroupName and nodeRole are required.', {
      clusterName: c.name,
    });
  }
  if (!parseRoleArn(nodeRole)) {
    throw new EksError(400, 'InvalidParameterException', `The role ARN ${nodeRole} is invalid.`, {
      clusterName: c.name,
    });
  }
  if (c.nodegroups.some((g) => g.name === name)) {
    throw new EksError(
      409,
      'ResourceInUseException',
      `NodeGroup already exists with name ${name} and cluster name ${c.name}`,
      {
        clusterName: c.name,
        nodegroupName: name,
      },
    );
  }
  const scaling = (body.scalingConfig ?? {}) as { minSize?: number; maxSize?: number; desiredSize?: number };
  const amiType = str(body, 'amiType') ?? 'AL2023_x86_64_STANDARD';
  const now = isoNow();
  const ng: SandboxNodegroup = {
    name,
    arn: `arn:aws:eks:${c.region}:${c.accountId}:nodegroup/${c.name}/${name}/${uuid()}`,
    status: 'CREATING',
    nodeRole,
    amiType,
    capacityType: str(body, 'capacityType') ?? 'ON_DEMAND',
    instanceTypes: strings(body, 'instanceTypes') ?? ['t3.medium'],
    desiredSize: scaling.desiredSize ?? 2,
    minSize: scaling.minSize ?? 1,
    maxSize: scaling.maxSize ?? 2,
    healthIssues: [],
    labels: (body.labels as Record<string, string> | undefined) ?? {},
    createdAt: now,
    modifiedAt: now,
  };
  c.nodegroups.push(ng);
  const created = { ...ng };
  world.ensureRole(nodeRole);
  world.log(`${c.name}: CreateNodegroup ${name} (role ${nodeRole})`);
  world.later(deps.sideEffectDelayMs, () => {
    if (c.removed || !c.nodegroups.includes(ng)) return;
    const windows = isWindows(amiType);
    // In API mode EKS writes no aws-auth entry (unconfirmed; the sandbox assumes it does not).
    if (c.authenticationMode !== 'API') {
      const groups = windows ? [...NODE_GROUPS, 'eks:kube-proxy-windows'] : NODE_GROUPS;
      if (!world.addRoleToAwsAuth(c, nodeRole, NODE_USERNAME, groups)) {
        ng.status = 'CREATE_FAILED';
        ng.healthIssues = [
          { code: 'AccessDenied', message: 'The aws-auth ConfigMap in your cluster is invalid.' },
        ];
        world.log(`${c.name}: node group ${name} CREATE_FAILED (aws-auth invalid)`);
        return;
      }
    }
    ensureNodeAccessEntry(c, nodeRole, windows ? 'EC2_WINDOWS' : 'EC2_LINUX');
    const count = ng.desiredSize;
    for (let i = 0; i < count; i++) {
      const node: SandboxNode = makeNode(
        c.region,
        {
          kind: 'managed',
          roleArn: nodeRole,
          nodegroup: name,
          os: windows ? 'windows' : 'linux',
          launchTime: isoNow(),
        },
        i,
      );
      node.instanceType = ng.instanceTypes[0] ?? 't3.medium';
      c.nodes.push(node);
    }
    ng.status = 'ACTIVE';
    ng.modifiedAt = isoNow();
    world.log(`${c.name}: node group ${name} ACTIVE with ${count} node(s)`);
    c.changed();
  });
  return created;
}

function deleteNodegroup(deps: EksServiceDeps, c: ClusterState, ng: SandboxNodegroup): SandboxNodegroup {
  const world = deps.runtime.world;
  if (ng.status === 'DELETING') {
    throw new EksError(409, 'ResourceInUseException', `Nodegroup ${ng.name} is already being deleted.`, {
      clusterName: c.name,
      nodegroupName: ng.name,
    });
  }
  ng.status = 'DELETING';
  ng.modifiedAt = isoNow();
  const snapshot = { ...ng };
  world.log(`${c.name}: DeleteNodegroup ${ng.name} (role ${ng.nodeRole})`);
  world.later(deps.sideEffectDelayMs, () => {
    if (c.removed || !c.nodegroups.includes(ng)) return;
    const key = roleKey(ng.nodeRole);
    const shared = c.nodegroups.some(
      (g) => g !== ng && g.status !== 'DELETING' && roleKey(g.nodeRole) === key,
    );
    if (shared) {
      world.log(`${c.name}: aws-auth kept for ${ng.nodeRole}: another managed node group uses it`);
    } else if (!world.removeRoleFromAwsAuth(c, ng.nodeRole)) {
      ng.status = 'DELETE_FAILED';
      ng.healthIssues = [
        { code: 'AccessDenied', message: 'The aws-auth ConfigMap in your cluster is invalid.' },
      ];
      world.log(`${c.name}: node group ${ng.name} DELETE_FAILED (aws-auth invalid)`);
      return;
    }
    c.nodegroups = c.nodegroups.filter((g) => g !== ng);
    let terminated = 0;
    for (const node of c.nodes) {
      if (node.kind === 'managed' && node.nodegroup === ng.name && node.instanceState !== 'terminated') {
        node.instanceState = 'terminated';
        terminated += 1;
      }
    }
    world.log(`${c.name}: node group ${ng.name} deleted, ${terminated} node(s) terminated`);
    c.changed();
  });
  return snapshot;
}

function createFargateProfile(
  deps: EksServiceDeps,
  c: ClusterState,
  body: Record<string, unknown>,
): SandboxFargateProfile {
  const world = deps.runtime.world;
  const name = str(body, 'fargateProfileName');
  const role = str(body, 'podExecutionRoleArn');
  if (!name || !role) {
    throw new EksError(
      400,
      'InvalidParameterException',
      'fargateProfileName and podExecutionRoleArn are required.',
      {
        clusterName: c.name,
      },
    );
  }
  if (!parseRoleArn(role)) {
    throw new EksError(400, 'InvalidParameterException', `The pod execution role ARN ${role} is invalid.`, {
      clusterName: c.name,
    });
  }
  const selectors = (
    Array.isArray(body.selectors) ? body.selectors : []
  ) as SandboxFargateProfile['selectors'];
  if (selectors.length > 5) {
    throw new EksError(400, 'InvalidParameterException', 'A Fargate profile can have at most 5 selectors.');
  }
  if (c.fargateProfiles.some((p) => p.name === name)) {
    throw new EksError(
      409,
      'ResourceInUseException',
      `A Fargate Profile already exists with this name: ${name}.`,
      {
        clusterName: c.name,
        fargateProfileName: name,
      },
    );
  }
  const p: SandboxFargateProfile = {
    name,
    arn: `arn:aws:eks:${c.region}:${c.accountId}:fargateprofile/${c.name}/${name}/${uuid()}`,
    status: 'CREATING',
    podExecutionRoleArn: role,
    selectors,
    subnets: strings(body, 'subnets') ?? [],
    createdAt: isoNow(),
  };
  c.fargateProfiles.push(p);
  const created = { ...p };
  world.ensureRole(role);
  world.log(`${c.name}: CreateFargateProfile ${name} (role ${role})`);
  world.later(deps.sideEffectDelayMs, () => {
    if (c.removed || !c.fargateProfiles.includes(p)) return;
    if (
      c.authenticationMode !== 'API' &&
      !world.addRoleToAwsAuth(c, role, FARGATE_USERNAME, FARGATE_GROUPS)
    ) {
      p.status = 'CREATE_FAILED';
      world.log(`${c.name}: Fargate profile ${name} CREATE_FAILED (aws-auth invalid)`);
      return;
    }
    ensureNodeAccessEntry(c, role, 'FARGATE_LINUX');
    p.status = 'ACTIVE';
    world.log(`${c.name}: Fargate profile ${name} ACTIVE`);
    c.changed();
  });
  return created;
}

function deleteFargateProfile(
  deps: EksServiceDeps,
  c: ClusterState,
  p: SandboxFargateProfile,
): SandboxFargateProfile {
  const world = deps.runtime.world;
  if (c.fargateProfiles.some((x) => x.status === 'DELETING')) {
    throw new EksError(
      409,
      'ResourceInUseException',
      'Only one Fargate Profile can be deleted at a time for a cluster.',
      { clusterName: c.name, fargateProfileName: p.name },
    );
  }
  p.status = 'DELETING';
  const snapshot = { ...p };
  world.log(`${c.name}: DeleteFargateProfile ${p.name}`);
  world.later(deps.sideEffectDelayMs, () => {
    if (c.removed) return;
    c.fargateProfiles = c.fargateProfiles.filter((x) => x !== p);
    // Pods of the profile are deleted, and with them their Fargate nodes. aws-auth and the
    // FARGATE_LINUX entry are left as they are: whether EKS removes them is unconfirmed
    // (docs/eks-auth-semantics.md#fargate-profiles).
    const before = c.nodes.length;
    c.nodes = c.nodes.filter((n) => !(n.kind === 'fargate' && n.fargateProfile === p.name));
    world.log(
      `${c.name}: Fargate profile ${p.name} deleted, ${before - c.nodes.length} Fargate node(s) gone`,
    );
    c.changed();
  });
  return snapshot;
}

const RESERVED_PREFIXES = ['system:', 'eks:', 'aws:', 'amazon:', 'iam:'];

function checkUsername(username: string): void {
  if (RESERVED_PREFIXES.some((p) => username.startsWith(p))) {
    throw new EksError(
      400,
      'InvalidParameterException',
      `The username ${username} is invalid: usernames can't start with ${RESERVED_PREFIXES.join(', ')}.`,
    );
  }
}

function createAccessEntry(
  deps: EksServiceDeps,
  c: ClusterState,
  body: Record<string, unknown>,
): SandboxAccessEntry {
  const world = deps.runtime.world;
  const principalArn = str(body, 'principalArn');
  if (!principalArn || !/^arn:aws[\w-]*:iam::\d{12}:(role|user)\/.+$/.test(principalArn)) {
    throw new EksError(
      400,
      'InvalidParameterException',
      `The specified principalArn is invalid: ${principalArn ?? '(none)'}.`,
    );
  }
  const type = (str(body, 'type') ?? 'STANDARD') as AccessEntryType;
  if (!(ACCESS_ENTRY_TYPES as readonly string[]).includes(type)) {
    throw new EksError(
      400,
      'InvalidParameterException',
      `The type ${type} is not a valid access entry type.`,
    );
  }
  const groups = strings(body, 'kubernetesGroups') ?? [];
  const username = str(body, 'username');
  const role = parseRoleArn(principalArn);
  if (type !== 'STANDARD') {
    if (!role || role.accountId !== c.accountId) {
      throw new EksError(
        400,
        'InvalidParameterException',
        `Access entries of type ${type} require an IAM role of the cluster's account.`,
      );
    }
    if (groups.length > 0 || username !== undefined) {
      throw new EksError(
        400,
        'InvalidParameterException',
        `kubernetesGroups and username can't be specified for access entries of type ${type}.`,
      );
    }
  }
  if (username !== undefined) checkUsername(username);
  // EKS resolves the principal in IAM: a role of the account that does not exist at exactly that
  // path — deleted, or named without the IAM path it has (`role/legacy-node` for
  // `role/eks/legacy-node`) — is refused with 400 and this message
  // (terraform-aws-modules/terraform-aws-eks#2969: an SSO role's ARN without its
  // `aws-reserved/sso.amazonaws.com/…` path). Roles of other accounts are not known here.
  const iamRole = role && world.iamRoles.get(role.name.toLowerCase());
  if (
    role &&
    role.accountId === world.accountId &&
    (iamRole === undefined || iamRole.state === 'missing' || iamRole.path !== role.path)
  ) {
    throw new EksError(
      400,
      'InvalidParameterException',
      'The specified principalArn is invalid: invalid principal.',
    );
  }
  if (c.accessEntries.some((e) => e.principalArn === principalArn)) {
    throw new EksError(
      409,
      'ResourceInUseException',
      'The specified access entry resource is already in use on this cluster.',
      {
        clusterName: c.name,
      },
    );
  }
  const now = isoNow();
  const entry: SandboxAccessEntry = {
    principalArn,
    type,
    username: username ?? defaultUsername(type, principalArn),
    kubernetesGroups: [...groups],
    accessEntryArn: accessEntryArn(c.region, c.accountId, c.name, principalArn),
    createdAt: now,
    modifiedAt: now,
    tags: (body.tags as Record<string, string> | undefined) ?? {},
    accessPolicies: [],
  };
  c.accessEntries.push(entry);
  world.log(`${c.name}: access entry ${principalArn} (${type}) created`);
  c.changed();
  return entry;
}

const MODE_ORDER: Record<AuthenticationMode, number> = { CONFIG_MAP: 0, API_AND_CONFIG_MAP: 1, API: 2 };

function updateClusterConfig(
  deps: EksServiceDeps,
  c: ClusterState,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const world = deps.runtime.world;
  const accessConfig = body.accessConfig as { authenticationMode?: unknown } | undefined;
  const target = accessConfig?.authenticationMode;
  if (typeof target !== 'string' || !(target in MODE_ORDER)) {
    throw new EksError(
      400,
      'InvalidParameterException',
      'The sandbox supports UpdateClusterConfig with accessConfig.authenticationMode or logging only.',
      { clusterName: c.name },
    );
  }
  const mode = target as AuthenticationMode;
  if (c.status === 'UPDATING') {
    throw new EksError(409, 'ResourceInUseException', 'Cluster already has an update in progress.', {
      clusterName: c.name,
    });
  }
  if (MODE_ORDER[mode] <= MODE_ORDER[c.authenticationMode]) {
    throw new EksError(
      400,
      'InvalidParameterException',
      `Unsupported authentication mode update from ${c.authenticationMode} to ${mode}`,
      { clusterName: c.name },
    );
  }
  const now = isoNow();
  const update = {
    id: uuid(),
    status: 'InProgress',
    type: 'AccessConfigUpdate',
    params: [{ type: 'AuthenticationMode', value: mode }],
    createdAt: epoch(now),
    errors: [],
  };
  c.status = 'UPDATING';
  world.log(`${c.name}: UpdateClusterConfig authenticationMode ${c.authenticationMode} → ${mode}`);
  world.later(deps.sideEffectDelayMs, () => {
    if (c.removed) return;
    const before = accessIndexOf(world, c);
    const from = c.authenticationMode;
    c.authenticationMode = mode;
    c.status = 'ACTIVE';
    if (from === 'CONFIG_MAP' && world.options.modeSwitchBackFill === 'pm-statement') {
      // The AWS PM's reading (aws/containers-roadmap#185): EKS migrates its own aws-auth lines.
      for (const g of c.nodegroups)
        ensureNodeAccessEntry(c, g.nodeRole, isWindows(g.amiType) ? 'EC2_WINDOWS' : 'EC2_LINUX');
      for (const p of c.fargateProfiles) ensureNodeAccessEntry(c, p.podExecutionRoleArn, 'FARGATE_LINUX');
    }
    const lost = principalsLosingAccess(before, accessIndexOf(world, c), awsAuthPrincipals(c));
    world.log(
      `${c.name}: authentication mode is now ${mode}${lost.length > 0 ? `; ${lost.length} principal(s) lost access: ${lost.join(', ')}` : ''}`,
    );
    c.changed();
  });
  return update;
}
