/**
 * Links an on-call engineer opens from an alert: the cluster in the EKS console (the Access tab
 * for authentication findings, the Compute tab for node and Fargate ones) and, for a finding an
 * API call triggered, that call in CloudTrail event history.
 *
 * Every part that comes from the snapshot or the CloudTrail record (cluster name, event ID) is
 * attacker-written: it is percent-encoded (`encodeUrlPart`: encodeURIComponent plus `!'()*`, so a
 * value cannot end a Markdown link or open a query), and a Region is used only when it is a real
 * Region code (`REGION_CODE`). The console host follows the partition the Region belongs to
 * (aws, aws-cn, aws-us-gov); Regions of other partitions (ISO, the European Sovereign Cloud) get
 * no link rather than a wrong one. Pure.
 */
import { type Finding, isRegionCode } from '../model.ts';

export interface AlertLink {
  label: string;
  url: string;
}

/** Longer names or IDs get no link: no real cluster name (≤ 100) or event ID (36) comes close. */
const MAX_PART_CHARS = 256;

/** encodeURIComponent, and also `!'()*` (RFC 3986 reserved), so the result is safe in Markdown and mrkdwn. */
export function encodeUrlPart(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The console origin of a Region (`https://eu-west-1.console.aws.amazon.com`), or undefined. */
export function consoleOrigin(region: string): string | undefined {
  if (!isRegionCode(region)) return undefined;
  if (region.startsWith('cn-')) return `https://${region}.console.amazonaws.cn`;
  if (region.startsWith('us-gov-')) return `https://${region}.console.amazonaws-us-gov.com`;
  // ISO (us-iso-, us-isob-, …) and sovereign partitions have consoles of their own.
  if (/^(?:us-iso|eu-iso|eusc-)/.test(region)) return undefined;
  return `https://${region}.console.aws.amazon.com`;
}

/** Node and Fargate findings open on the cluster's Compute tab, the rest on Access. */
function tabOf(ruleId: string): 'cluster-compute-tab' | 'cluster-access-tab' {
  return /^(?:nodes|nodegroup|fargate)\//.test(ruleId) ? 'cluster-compute-tab' : 'cluster-access-tab';
}

function usable(part: string | undefined): part is string {
  return part !== undefined && part.length > 0 && part.length <= MAX_PART_CHARS;
}

/** The EKS console page of the finding's cluster. */
export function eksConsoleLink(f: Pick<Finding, 'cluster' | 'ruleId'>): AlertLink | undefined {
  const { region, name } = f.cluster;
  const origin = consoleOrigin(region);
  if (origin === undefined || !usable(name)) return undefined;
  const tab = tabOf(f.ruleId);
  return {
    label: tab === 'cluster-compute-tab' ? 'EKS console (compute)' : 'EKS console (access)',
    url: `${origin}/eks/home?region=${region}#/clusters/${encodeUrlPart(name)}?selectedTab=${tab}`,
  };
}

/** The CloudTrail event-history page of the API call that triggered the finding. */
export function cloudTrailEventLink(
  f: Pick<Finding, 'cluster' | 'trigger' | 'actor'>,
): AlertLink | undefined {
  // An audit event's auditID is not a CloudTrail event ID.
  if (!f.trigger.startsWith('event:') || f.actor?.source !== 'cloudtrail') return undefined;
  const eventId = f.actor?.eventId;
  const origin = consoleOrigin(f.cluster.region);
  if (origin === undefined || !usable(eventId)) return undefined;
  const region = f.cluster.region;
  return {
    label: 'CloudTrail event',
    url: `${origin}/cloudtrailv2/home?region=${region}#/events/${encodeUrlPart(eventId)}`,
  };
}

/** The links of a finding, console first; empty when none can be built safely. */
export function alertLinks(f: Pick<Finding, 'cluster' | 'ruleId' | 'trigger' | 'actor'>): AlertLink[] {
  return [eksConsoleLink(f), cloudTrailEventLink(f)].filter((l): l is AlertLink => l !== undefined);
}
