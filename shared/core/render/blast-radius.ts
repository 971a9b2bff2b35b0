/**
 * What every renderer says about a finding's blast radius, decided once: the headline count of
 * what is at risk (nodes, Fargate profiles, service accounts — each named only when there are
 * any), the rows worth a line, and, for workload-identity findings, the compute where the pods
 * lose their AWS credentials (the nodes there keep their cluster access). Pure.
 */
import type { BlastRadius } from '../model.ts';
import { oneLine, plural } from './layout.ts';

export interface BlastRow {
  /** Lower-case label, e.g. `node groups`, `Fargate profiles`, `service accounts`, `nodes`. */
  label: string;
  names: readonly string[];
  /** How many there are (for nodes: `nodeCount`, of which `names` are the first few). */
  total: number;
}

export interface BlastRadiusView {
  /** `1 service account (namespace payments)`, `3 nodes, 1 Fargate profile`; `show` formats each namespace. */
  headline: (show: (name: string) => string) => string;
  /** Nothing at risk: no node, node group, node class, Fargate profile or service account. */
  empty: boolean;
  /** What loses access, one row per non-empty kind. */
  rows: BlastRow[];
  /** Workload identity: the compute on which the service accounts' pods lose credentials. */
  podsRunOn: BlastRow[];
  /** The time to impact, one line; undefined when empty or blank. */
  timeToImpact: string | undefined;
}

/** Namespaces named in the headline before "and N more". */
const HEADLINE_NAMESPACES = 3;

/** The label for an empty blast radius, in every renderer. */
export const NOTHING_AT_RISK = 'nothing found at risk in the snapshot';

function present(xs: readonly string[] | undefined): string[] {
  return (xs ?? []).filter((x) => oneLine(x).length > 0);
}

function namespacesOf(br: BlastRadius, accounts: readonly string[]): string[] {
  if (br.namespaces !== undefined && br.namespaces.length > 0) return present(br.namespaces);
  const out = new Set<string>();
  for (const sa of accounts) {
    const slash = sa.indexOf('/');
    if (slash > 0) out.add(sa.slice(0, slash));
  }
  return [...out].sort();
}

function nodeSide(br: BlastRadius): BlastRow[] {
  const rows: BlastRow[] = [];
  const add = (label: string, names: readonly string[], total = names.length) => {
    if (total > 0 || names.length > 0) rows.push({ label, names, total: Math.max(total, names.length) });
  };
  add('node groups', present(br.nodegroups));
  add('Fargate profiles', present(br.fargateProfiles));
  add('Karpenter node classes', present(br.nodeClasses));
  add('nodes', present(br.firstNodes), br.nodeCount);
  return rows;
}

function count(row: BlastRow | undefined, one: string, many?: string): string[] {
  return row === undefined || row.total === 0 ? [] : [plural(row.total, one, many)];
}

/** A workload-identity blast radius: service accounts whose pods lose their AWS credentials. */
export function isWorkloadIdentity(br: BlastRadius | undefined): boolean {
  return present(br?.serviceAccounts).length > 0;
}

export function blastRadiusView(br: BlastRadius): BlastRadiusView {
  const accounts = present(br.serviceAccounts);
  const namespaces = namespacesOf(br, accounts);
  const side = nodeSide(br);
  const row = (label: string) => side.find((r) => r.label === label);
  const workload = accounts.length > 0;
  const empty = !workload && side.length === 0;
  const headline = (show: (name: string) => string): string => {
    if (empty) return NOTHING_AT_RISK;
    if (workload) {
      const shown = namespaces.slice(0, HEADLINE_NAMESPACES).map((n) => show(oneLine(n)));
      const more = namespaces.length - shown.length;
      const ns =
        shown.length === 0
          ? ''
          : ` (${namespaces.length === 1 ? 'namespace' : 'namespaces'} ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''})`;
      return `${plural(accounts.length, 'service account')}${ns}`;
    }
    // Nodes when any are counted; else the node groups and node classes that would start them.
    const nodes = count(row('nodes'), 'node');
    const parts = [
      ...nodes,
      ...(nodes.length > 0 ? [] : count(row('node groups'), 'node group')),
      ...(nodes.length > 0
        ? []
        : count(row('Karpenter node classes'), 'Karpenter node class', 'Karpenter node classes')),
      ...count(row('Fargate profiles'), 'Fargate profile'),
    ];
    return parts.length > 0 ? parts.join(', ') : NOTHING_AT_RISK;
  };
  const time = oneLine(br.timeToImpact);
  return {
    headline,
    empty,
    rows: workload ? [{ label: 'service accounts', names: accounts, total: accounts.length }] : side,
    podsRunOn: workload ? side : [],
    timeToImpact: empty || time.length === 0 ? undefined : time,
  };
}

/** `node groups` → `Node groups`. */
export function capitalize(label: string): string {
  return `${label.charAt(0).toUpperCase()}${label.slice(1)}`;
}

/**
 * Where a workload-identity finding breaks, one line: `pods on node groups a, b; 3 nodes: n1, n2
 * (+1 more); Fargate profiles fp`; `list(names, total)` formats each list (names are the first of `total`).
 */
export function podsRunOnLine(
  rows: readonly BlastRow[],
  list: (names: readonly string[], total: number) => string,
): string {
  const on = rows
    .map((r) => {
      if (r.label !== 'nodes') return `${r.label} ${list(r.names, r.total)}`;
      const n = plural(r.total, 'node');
      return r.names.length > 0 ? `${n}: ${list(r.names, r.total)}` : n;
    })
    .join('; ');
  return `pods on ${on}`;
}
