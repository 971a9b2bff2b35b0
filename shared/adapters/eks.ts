/**
 * EksReader over `@aws-sdk/client-eks`. SDK shapes stop here: every method returns domain types.
 * List calls page with `maxResults: 100` + `nextToken`
 * (docs/eks-auth-semantics.md#eks-api-calls-read-by-a-snapshot); the N+1 describes run with
 * bounded concurrency (trap 15 of docs/eks-auth-semantics.md#traps): 5 node groups or Fargate
 * profiles at a time, 16 access entries at a time (each entry is two calls in parallel, so ≤ 32
 * in flight; 4,000 entries at 25 ms a call are ~6 s instead of ~20 s at 5). Throttling is
 * retried beyond the SDK's attempts within the throttling budget and the reader's deadline
 * (`callAws` in aws-clients.ts).
 */

import {
  DescribeAccessEntryCommand,
  DescribeAddonCommand,
  DescribeClusterCommand,
  DescribeFargateProfileCommand,
  DescribeNodegroupCommand,
  DescribePodIdentityAssociationCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListAddonsCommand,
  ListAssociatedAccessPoliciesCommand,
  ListClustersCommand,
  ListFargateProfilesCommand,
  ListNodegroupsCommand,
  ListPodIdentityAssociationsCommand,
  type PodIdentityAssociationSummary,
  type AccessEntry as SdkAccessEntry,
  type Addon as SdkAddon,
  type AssociatedAccessPolicy as SdkAssociatedAccessPolicy,
  type Cluster as SdkCluster,
  type FargateProfile as SdkFargateProfile,
  type Nodegroup as SdkNodegroup,
  type PodIdentityAssociation as SdkPodIdentityAssociation,
} from '@aws-sdk/client-eks';
import { mapLimit } from '../core/concurrency.ts';
import {
  ACCESS_ENTRY_TYPES,
  type AccessEntry,
  type AccessEntryType,
  type Addon,
  AUTHENTICATION_MODES,
  type AuthenticationMode,
  type FargateProfile,
  type Nodegroup,
  type PodIdentityAssociation,
} from '../core/model.ts';
import { POD_IDENTITY_AGENT_ADDON } from '../core/predict/index.ts';
import { AwsApiError } from '../errors.ts';
import type { ClusterDescription, EksReader, Lookup } from '../ports.ts';
import {
  type AwsClient,
  type AwsClientOptions,
  callAws,
  createAwsClient,
  type Deadline,
} from './aws-clients.ts';
import { readCertificateAuthorities } from './eks-certificate-authorities.ts';
import { isAwsError } from './errors.ts';
import { dropUndefined, isoTime } from './util.ts';

export const EKS_PAGE_SIZE = 100;
export const DEFAULT_DESCRIBE_CONCURRENCY = 5;
export const DEFAULT_ACCESS_ENTRY_CONCURRENCY = 16;

export interface EksReaderOptions {
  /** Node groups / Fargate profiles described at a time (default 5). */
  concurrency?: number;
  /** Access entries read at a time, each DescribeAccessEntry ‖ ListAssociatedAccessPolicies (default 16). */
  accessEntryConcurrency?: number;
  /** Retries stop here (`DeadlineExceededError`); none by default. */
  deadline?: Deadline;
}

type EksCommand =
  | ListClustersCommand
  | DescribeClusterCommand
  | ListNodegroupsCommand
  | DescribeNodegroupCommand
  | ListFargateProfilesCommand
  | DescribeFargateProfileCommand
  | ListAccessEntriesCommand
  | DescribeAccessEntryCommand
  | ListAssociatedAccessPoliciesCommand
  | ListPodIdentityAssociationsCommand
  | DescribePodIdentityAssociationCommand
  | ListAddonsCommand
  | DescribeAddonCommand;

export function createEksClient(region: string, options: AwsClientOptions = {}): AwsClient<EKSClient> {
  return createAwsClient(EKSClient, region, options, options.endpoints?.eks);
}

export function createEksReader(eks: AwsClient<EKSClient>, options: EksReaderOptions = {}): EksReader {
  const { client } = eks;
  const concurrency = options.concurrency ?? DEFAULT_DESCRIBE_CONCURRENCY;
  const accessEntryConcurrency = options.accessEntryConcurrency ?? DEFAULT_ACCESS_ENTRY_CONCURRENCY;

  async function call<O>(
    command: EksCommand,
    operation: string,
    cluster: string | undefined,
    subject?: string,
  ): Promise<O> {
    const context = {
      service: 'eks' as const,
      operation,
      ...(cluster === undefined ? {} : { cluster }),
      ...(subject === undefined ? {} : { subject }),
    };
    return callAws(
      eks,
      context,
      // biome-ignore lint/suspicious/noExplicitAny: one send for a union of commands; the caller names O.
      async (sendOptions) => (await client.send(command as any, sendOptions)) as O,
      options.deadline,
    );
  }

  /** Pages a list call to the end; `pick` takes the page's items and next token. */
  async function listAll(
    operation: string,
    cluster: string | undefined,
    page: (nextToken: string | undefined) => EksCommand,
    pick: (output: Record<string, unknown>) => { items: string[] | undefined; nextToken: string | undefined },
  ): Promise<string[]> {
    const all: string[] = [];
    let nextToken: string | undefined;
    const seen = new Set<string>();
    do {
      const output = await call<Record<string, unknown>>(page(nextToken), operation, cluster);
      const { items, nextToken: token } = pick(output);
      all.push(...(items ?? []));
      if (token !== undefined && seen.has(token)) {
        throw new AwsApiError(`${operation} for cluster ${cluster ?? '-'} returned a repeated nextToken`, {
          code: 'invalid-response',
          service: 'eks',
          operation,
          ...(cluster === undefined ? {} : { cluster }),
          iamAction: `eks:${operation}`,
        });
      }
      if (token !== undefined) seen.add(token);
      nextToken = token;
    } while (nextToken !== undefined && nextToken !== '');
    return all;
  }

  /**
   * A Describe answered 404 for one item: either the item was deleted between List and Describe
   * (really gone, skip it) or the whole cluster was. DescribeCluster tells which; a vanished
   * cluster throws its not-found error instead of yielding a short list.
   */
  async function confirmClusterExists(clusterName: string): Promise<void> {
    await call<unknown>(new DescribeClusterCommand({ name: clusterName }), 'DescribeCluster', clusterName);
  }

  /** Describes each item; items that vanished are dropped once the cluster is confirmed to exist. */
  async function describeEach<T>(
    clusterName: string,
    items: string[],
    describe: (item: string) => Promise<T | undefined>,
    limit = concurrency,
  ): Promise<T[]> {
    let vanished = 0;
    const described = await mapLimit(items, limit, async (item) => {
      try {
        return await describe(item);
      } catch (error) {
        if (error instanceof AwsApiError && error.code === 'not-found') {
          vanished++;
          return undefined;
        }
        throw error;
      }
    });
    if (vanished > 0) await confirmClusterExists(clusterName);
    return described.filter((d): d is T => d !== undefined);
  }

  return {
    region: eks.region,

    listClusters() {
      return listAll(
        'ListClusters',
        undefined,
        (nextToken) => new ListClustersCommand(dropUndefined({ maxResults: EKS_PAGE_SIZE, nextToken })),
        (o) => ({ items: o.clusters as string[] | undefined, nextToken: o.nextToken as string | undefined }),
      );
    },

    async describeCluster(clusterName) {
      const output = await call<{ cluster?: SdkCluster }>(
        new DescribeClusterCommand({ name: clusterName }),
        'DescribeCluster',
        clusterName,
      );
      if (output.cluster === undefined) {
        throw invalid('DescribeCluster', clusterName, 'the response has no cluster');
      }
      return toClusterDescription(output.cluster, clusterName);
    },

    async nodegroups(clusterName) {
      const names = await listAll(
        'ListNodegroups',
        clusterName,
        (nextToken) =>
          new ListNodegroupsCommand(dropUndefined({ clusterName, maxResults: EKS_PAGE_SIZE, nextToken })),
        (o) => ({
          items: o.nodegroups as string[] | undefined,
          nextToken: o.nextToken as string | undefined,
        }),
      );
      return describeEach(clusterName, names, async (nodegroupName) => {
        const output = await call<{ nodegroup?: SdkNodegroup }>(
          new DescribeNodegroupCommand({ clusterName, nodegroupName }),
          'DescribeNodegroup',
          clusterName,
          nodegroupName,
        );
        return output.nodegroup === undefined ? undefined : toNodegroup(output.nodegroup, nodegroupName);
      });
    },

    async fargateProfiles(clusterName) {
      const names = await listAll(
        'ListFargateProfiles',
        clusterName,
        (nextToken) =>
          new ListFargateProfilesCommand(
            dropUndefined({ clusterName, maxResults: EKS_PAGE_SIZE, nextToken }),
          ),
        (o) => ({
          items: o.fargateProfileNames as string[] | undefined,
          nextToken: o.nextToken as string | undefined,
        }),
      );
      return describeEach(clusterName, names, async (fargateProfileName) => {
        const output = await call<{ fargateProfile?: SdkFargateProfile }>(
          new DescribeFargateProfileCommand({ clusterName, fargateProfileName }),
          'DescribeFargateProfile',
          clusterName,
          fargateProfileName,
        );
        return output.fargateProfile === undefined
          ? undefined
          : toFargateProfile(output.fargateProfile, fargateProfileName);
      });
    },

    async accessEntries(clusterName): Promise<Lookup<AccessEntry[]>> {
      let principals: string[];
      try {
        principals = await listAll(
          'ListAccessEntries',
          clusterName,
          (nextToken) =>
            new ListAccessEntriesCommand(
              dropUndefined({ clusterName, maxResults: EKS_PAGE_SIZE, nextToken }),
            ),
          (o) => ({
            items: o.accessEntries as string[] | undefined,
            nextToken: o.nextToken as string | undefined,
          }),
        );
      } catch (error) {
        // CONFIG_MAP mode: "The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP]…"
        if (
          isAwsError(error, 'InvalidRequestException') &&
          /authentication mode/i.test(causeMessage(error))
        ) {
          return { found: false, reason: 'authentication mode is CONFIG_MAP: access entries cannot exist' };
        }
        throw error;
      }
      const entries = await describeEach(
        clusterName,
        principals,
        async (principalArn) => {
          const [described, policies] = await Promise.all([
            call<{ accessEntry?: SdkAccessEntry }>(
              new DescribeAccessEntryCommand({ clusterName, principalArn }),
              'DescribeAccessEntry',
              clusterName,
              principalArn,
            ),
            listAssociatedPolicies(clusterName, principalArn),
          ]);
          return described.accessEntry === undefined
            ? undefined
            : toAccessEntry(described.accessEntry, principalArn, policies);
        },
        accessEntryConcurrency,
      );
      return { found: true, value: entries };
    },

    async podIdentityAssociations(clusterName) {
      // The list pages summaries; each association is described for targetRoleArn and
      // disableSessionTags, with the access entries' concurrency (both are N+1 reads of one cluster).
      const summaries: PodIdentityAssociationSummary[] = [];
      let nextToken: string | undefined;
      const seen = new Set<string>();
      do {
        const output = await call<{ associations?: PodIdentityAssociationSummary[]; nextToken?: string }>(
          new ListPodIdentityAssociationsCommand(
            dropUndefined({ clusterName, maxResults: EKS_PAGE_SIZE, nextToken }),
          ),
          'ListPodIdentityAssociations',
          clusterName,
        );
        summaries.push(...(output.associations ?? []));
        const token = output.nextToken === '' ? undefined : output.nextToken;
        if (token !== undefined && seen.has(token)) {
          throw invalid('ListPodIdentityAssociations', clusterName, 'a repeated nextToken');
        }
        if (token !== undefined) seen.add(token);
        nextToken = token;
      } while (nextToken !== undefined);
      const ids = summaries
        .map((a) => a.associationId)
        .filter((id): id is string => id !== undefined && id !== '');
      return describeEach(
        clusterName,
        ids,
        async (associationId) => {
          const output = await call<{ association?: SdkPodIdentityAssociation }>(
            new DescribePodIdentityAssociationCommand({ clusterName, associationId }),
            'DescribePodIdentityAssociation',
            clusterName,
            associationId,
          );
          return output.association === undefined
            ? undefined
            : toPodIdentityAssociation(output.association, associationId);
        },
        accessEntryConcurrency,
      );
    },

    async addons(clusterName) {
      const names = await listAll(
        'ListAddons',
        clusterName,
        (nextToken) =>
          new ListAddonsCommand(dropUndefined({ clusterName, maxResults: EKS_PAGE_SIZE, nextToken })),
        (o) => ({ items: o.addons as string[] | undefined, nextToken: o.nextToken as string | undefined }),
      );
      // Only the agent is described: the other add-ons' status is no authentication fact.
      return describeEach(clusterName, names, async (addonName): Promise<Addon | undefined> => {
        if (addonName !== POD_IDENTITY_AGENT_ADDON) return { name: addonName, healthIssues: [] };
        const output = await call<{ addon?: SdkAddon }>(
          new DescribeAddonCommand({ clusterName, addonName }),
          'DescribeAddon',
          clusterName,
          addonName,
        );
        return output.addon === undefined ? undefined : toAddon(output.addon, addonName);
      });
    },

    certificateAuthorities(clusterName) {
      return readCertificateAuthorities(eks, clusterName, options.deadline);
    },
  };

  async function listAssociatedPolicies(clusterName: string, principalArn: string) {
    const all: SdkAssociatedAccessPolicy[] = [];
    let nextToken: string | undefined;
    do {
      const output = await call<{
        associatedAccessPolicies?: SdkAssociatedAccessPolicy[];
        nextToken?: string;
      }>(
        new ListAssociatedAccessPoliciesCommand(
          dropUndefined({ clusterName, principalArn, maxResults: EKS_PAGE_SIZE, nextToken }),
        ),
        'ListAssociatedAccessPolicies',
        clusterName,
        principalArn,
      );
      all.push(...(output.associatedAccessPolicies ?? []));
      nextToken = output.nextToken === '' ? undefined : output.nextToken;
    } while (nextToken !== undefined);
    return all;
  }
}

function causeMessage(error: unknown): string {
  const cause = error instanceof AwsApiError ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

function invalid(operation: string, cluster: string, what: string): AwsApiError {
  return new AwsApiError(`${operation} for cluster ${cluster}: ${what}`, {
    code: 'invalid-response',
    service: 'eks',
    operation,
    cluster,
    iamAction: `eks:${operation}`,
  });
}

function toAuthenticationMode(value: string | undefined): AuthenticationMode {
  // Clusters created before access entries report no accessConfig: they are CONFIG_MAP.
  if (value === undefined) return 'CONFIG_MAP';
  return (AUTHENTICATION_MODES as readonly string[]).includes(value)
    ? (value as AuthenticationMode)
    : 'CONFIG_MAP';
}

export function toClusterDescription(cluster: SdkCluster, requestedName: string): ClusterDescription {
  const mode = cluster.accessConfig?.authenticationMode;
  if (mode !== undefined && !(AUTHENTICATION_MODES as readonly string[]).includes(mode)) {
    throw invalid('DescribeCluster', requestedName, `unknown authentication mode ${JSON.stringify(mode)}`);
  }
  if (cluster.arn === undefined) throw invalid('DescribeCluster', requestedName, 'the cluster has no ARN');
  return dropUndefined({
    name: cluster.name ?? requestedName,
    arn: cluster.arn,
    status: cluster.status ?? 'UNKNOWN',
    version: cluster.version,
    platformVersion: cluster.platformVersion,
    authenticationMode: toAuthenticationMode(mode),
    bootstrapClusterCreatorAdminPermissions: cluster.accessConfig?.bootstrapClusterCreatorAdminPermissions,
    endpointPublicAccess: cluster.resourcesVpcConfig?.endpointPublicAccess,
    endpointPrivateAccess: cluster.resourcesVpcConfig?.endpointPrivateAccess,
    publicAccessCidrs: cluster.resourcesVpcConfig?.publicAccessCidrs,
    endpoint: cluster.endpoint,
    certificateAuthorityData: cluster.certificateAuthority?.data,
    oidcIssuer: cluster.identity?.oidc?.issuer,
    roleArn: cluster.roleArn,
    auditLogging:
      cluster.logging?.clusterLogging === undefined
        ? undefined
        : cluster.logging.clusterLogging.some((l) => l.enabled === true && (l.types ?? []).includes('audit')),
    computeConfig:
      cluster.computeConfig === undefined
        ? undefined
        : dropUndefined({
            enabled: cluster.computeConfig.enabled === true,
            nodePools: [...(cluster.computeConfig.nodePools ?? [])],
            nodeRoleArn: cluster.computeConfig.nodeRoleArn,
          }),
  });
}

export function toPodIdentityAssociation(
  a: SdkPodIdentityAssociation,
  requestedId: string,
): PodIdentityAssociation {
  return dropUndefined({
    associationId: a.associationId ?? requestedId,
    associationArn: a.associationArn,
    namespace: a.namespace ?? '',
    serviceAccount: a.serviceAccount ?? '',
    roleArn: a.roleArn ?? '',
    targetRoleArn: a.targetRoleArn === '' ? undefined : a.targetRoleArn,
    externalId: a.externalId === '' ? undefined : a.externalId,
    disableSessionTags: a.disableSessionTags,
    createdAt: isoTime(a.createdAt),
    modifiedAt: isoTime(a.modifiedAt),
  });
}

export function toAddon(a: SdkAddon, requestedName: string): Addon {
  return dropUndefined({
    name: a.addonName ?? requestedName,
    status: a.status,
    version: a.addonVersion,
    healthIssues: (a.health?.issues ?? []).map((i) =>
      dropUndefined({ code: i.code ?? 'Unknown', message: i.message }),
    ),
  });
}

export function toNodegroup(ng: SdkNodegroup, requestedName: string): Nodegroup {
  return dropUndefined({
    name: ng.nodegroupName ?? requestedName,
    status: ng.status ?? 'UNKNOWN',
    nodeRole: ng.nodeRole ?? '',
    amiType: ng.amiType,
    desiredSize: ng.scalingConfig?.desiredSize,
    minSize: ng.scalingConfig?.minSize,
    maxSize: ng.scalingConfig?.maxSize,
    healthIssues: (ng.health?.issues ?? []).map((i) =>
      dropUndefined({ code: i.code ?? 'Unknown', message: i.message }),
    ),
  });
}

export function toFargateProfile(p: SdkFargateProfile, requestedName: string): FargateProfile {
  return dropUndefined({
    name: p.fargateProfileName ?? requestedName,
    status: p.status ?? 'UNKNOWN',
    podExecutionRoleArn: p.podExecutionRoleArn ?? '',
    selectors: (p.selectors ?? []).map((s) =>
      dropUndefined({
        namespace: s.namespace ?? '',
        labels: s.labels !== undefined && Object.keys(s.labels).length > 0 ? { ...s.labels } : undefined,
      }),
    ),
    createdAt: isoTime(p.createdAt),
  });
}

/** An unknown type is not guessed (a node entry read as STANDARD would raise false alarms): it fails the read. */
function toAccessEntryType(value: string | undefined, principalArn: string): AccessEntryType {
  const upper = (value ?? 'STANDARD').toUpperCase();
  if ((ACCESS_ENTRY_TYPES as readonly string[]).includes(upper)) return upper as AccessEntryType;
  throw new AwsApiError(
    `DescribeAccessEntry (${principalArn}): unknown access entry type ${JSON.stringify(value)}`,
    {
      code: 'invalid-response',
      service: 'eks',
      operation: 'DescribeAccessEntry',
      iamAction: 'eks:DescribeAccessEntry',
    },
  );
}

export function toAccessEntry(
  e: SdkAccessEntry,
  requestedPrincipal: string,
  policies: SdkAssociatedAccessPolicy[],
): AccessEntry {
  const principalArn = e.principalArn ?? requestedPrincipal;
  return dropUndefined({
    principalArn,
    type: toAccessEntryType(e.type, principalArn),
    username: e.username,
    kubernetesGroups: [...(e.kubernetesGroups ?? [])],
    createdAt: isoTime(e.createdAt),
    modifiedAt: isoTime(e.modifiedAt),
    accessPolicies: policies.map((p) =>
      dropUndefined({
        policyArn: p.policyArn ?? '',
        accessScope: dropUndefined({
          type: p.accessScope?.type === 'namespace' ? ('namespace' as const) : ('cluster' as const),
          namespaces: p.accessScope?.type === 'namespace' ? [...(p.accessScope.namespaces ?? [])] : undefined,
        }),
        associatedAt: isoTime(p.associatedAt),
      }),
    ),
  });
}
