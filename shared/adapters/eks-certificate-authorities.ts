/**
 * The cluster's certificate authorities through the SDK's CA-rotation commands
 * (`ListCertificateAuthorities`, then `DescribeCertificateAuthority` for each: only the describe
 * carries `scheduledEvents` and `rollbackAvailable`). DescribeCluster's `certificateAuthority`
 * names only the active CA (`active.id`, `activatedBy`) and its PEM: a pending successor is seen
 * here alone. The PEM (`data`) is not kept. Errors are thrown (the capture records `error`,
 * never an empty list).
 */
import {
  type CertificateAuthoritySummary,
  DescribeCertificateAuthorityCommand,
  type EKSClient,
  ListCertificateAuthoritiesCommand,
  type CertificateAuthority as SdkCertificateAuthority,
} from '@aws-sdk/client-eks';
import { mapLimit } from '../core/concurrency.ts';
import {
  CA_SIGNING_STATUSES,
  type CaSigningStatus,
  type ClusterCertificateAuthority,
} from '../core/model.ts';
import { AwsApiError } from '../errors.ts';
import { type AwsClient, callAws, type Deadline } from './aws-clients.ts';
import { dropUndefined, isoTime } from './util.ts';

const PAGE_SIZE = 100;

export async function readCertificateAuthorities(
  eks: AwsClient<EKSClient>,
  clusterName: string,
  deadline?: Deadline,
): Promise<ClusterCertificateAuthority[]> {
  const send = <O>(
    operation: string,
    command: ListCertificateAuthoritiesCommand | DescribeCertificateAuthorityCommand,
    subject?: string,
  ) =>
    callAws(
      eks,
      {
        service: 'eks' as const,
        operation,
        cluster: clusterName,
        ...(subject === undefined ? {} : { subject }),
      },
      // biome-ignore lint/suspicious/noExplicitAny: one send for two commands; the caller names O.
      async (options) => (await eks.client.send(command as any, options)) as O,
      deadline,
    );
  const summaries: CertificateAuthoritySummary[] = [];
  const seen = new Set<string>();
  let nextToken: string | undefined;
  do {
    const page = await send<{ certificateAuthorities?: CertificateAuthoritySummary[]; nextToken?: string }>(
      'ListCertificateAuthorities',
      new ListCertificateAuthoritiesCommand(dropUndefined({ clusterName, maxResults: PAGE_SIZE, nextToken })),
    );
    summaries.push(...(page.certificateAuthorities ?? []));
    const token = page.nextToken === '' ? undefined : page.nextToken;
    if (token !== undefined && seen.has(token))
      throw new AwsApiError(
        `ListCertificateAuthorities for cluster ${clusterName} returned a repeated nextToken`,
        {
          code: 'invalid-response',
          service: 'eks',
          operation: 'ListCertificateAuthorities',
          cluster: clusterName,
          iamAction: 'eks:ListCertificateAuthorities',
        },
      );
    if (token !== undefined) seen.add(token);
    nextToken = token;
  } while (nextToken !== undefined);
  const described = await mapLimit(summaries, 5, async (summary) => {
    const id = summary.id;
    if (id === undefined || id === '') return undefined;
    try {
      const out = await send<{ certificateAuthority?: SdkCertificateAuthority }>(
        'DescribeCertificateAuthority',
        new DescribeCertificateAuthorityCommand({ clusterName, certificateAuthorityId: id }),
        id,
      );
      return toCertificateAuthority({ ...summary, ...out.certificateAuthority }, id);
    } catch (error) {
      // Deleted between List and Describe: gone. Anything else fails the read.
      if (error instanceof AwsApiError && error.code === 'not-found') return undefined;
      throw error;
    }
  });
  return described.filter((c): c is ClusterCertificateAuthority => c !== undefined);
}

export function toCertificateAuthority(
  ca: SdkCertificateAuthority,
  requestedId: string,
): ClusterCertificateAuthority {
  const status = (CA_SIGNING_STATUSES as readonly string[]).includes(ca.signingStatus ?? '')
    ? (ca.signingStatus as CaSigningStatus)
    : undefined;
  if (status === undefined)
    throw new AwsApiError(
      `DescribeCertificateAuthority ${requestedId}: unknown signingStatus ${JSON.stringify(ca.signingStatus ?? null)}`,
      {
        code: 'invalid-response',
        service: 'eks',
        operation: 'DescribeCertificateAuthority',
        iamAction: 'eks:DescribeCertificateAuthority',
      },
    );
  return dropUndefined({
    id: ca.id ?? requestedId,
    signingStatus: status,
    distributionStatus: ca.distributionStatus,
    createdBy: ca.createdBy,
    createdAt: isoTime(ca.createdAt),
    activatedBy: ca.activatedBy,
    activatedAt: isoTime(ca.activatedAt),
    firstAutoActivation: isoTime(ca.scheduledEvents?.firstAutoActivation),
    finalAutoActivation: isoTime(ca.scheduledEvents?.finalAutoActivation),
    notAfter: isoTime(ca.validity?.notAfter),
    rollbackAvailable: ca.rollbackAvailable,
  });
}
