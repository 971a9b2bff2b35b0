/**
 * JSON rendering for machines: a stable key order (fixed for the contract's fields, sorted for
 * free-form evidence), pretty-printed, findings most severe first. Unbounded unless `maxChars`
 * is given; then the most severe findings are kept and the rest counted under `omitted`.
 */
import type { Actor, BlastRadius, ClusterRef, Finding, Remediation } from '../model.ts';
import { jsonText } from '../quote/json.ts';
import { countBySeverity, oneLine, type RenderOptions, type SeverityCounts, sortFindings } from './layout.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface JsonReport {
  title?: string;
  cluster?: ClusterRef;
  change?: string;
  effects?: Array<{ summary: string; assumed: boolean }>;
  actor?: Actor;
  summary: { total: number; bySeverity: SeverityCounts };
  findings: Json[];
  omitted?: { count: number; bySeverity: SeverityCounts };
}

/** Plain JSON data with object keys sorted; cycles, functions and symbols cannot leak through. */
function normalize(value: unknown, seen: Set<object>): Json | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (Array.isArray(value)) return value.map((v) => normalize(v, seen) ?? null);
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value).sort()) {
      const v = normalize((value as Record<string, unknown>)[key], seen);
      if (v !== undefined) out[key] = v;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

function clusterJson(c: ClusterRef): { accountId: string; region: string; name: string } {
  return { accountId: c.accountId, region: c.region, name: c.name };
}

function blastRadiusJson(b: BlastRadius): Json {
  return {
    nodegroups: [...b.nodegroups],
    fargateProfiles: [...b.fargateProfiles],
    nodeClasses: [...b.nodeClasses],
    nodeCount: b.nodeCount,
    firstNodes: [...b.firstNodes],
    timeToImpact: b.timeToImpact,
    ...(b.serviceAccounts === undefined ? {} : { serviceAccounts: [...b.serviceAccounts] }),
    ...(b.namespaces === undefined ? {} : { namespaces: [...b.namespaces] }),
  };
}

function remediationJson(r: Remediation): Json {
  const out: { [key: string]: Json } = { summary: r.summary };
  if (r.awsCli !== undefined) out.awsCli = r.awsCli;
  if (r.alternatives !== undefined)
    out.alternatives = r.alternatives.map((x) => ({ label: x.label, shell: x.shell }));
  if (r.terraform !== undefined) out.terraform = r.terraform;
  if (r.terraformFragmentOf !== undefined) out.terraformFragmentOf = r.terraformFragmentOf;
  if (r.awsAuthYaml !== undefined) out.awsAuthYaml = r.awsAuthYaml;
  if (r.trustPolicyJson !== undefined) out.trustPolicyJson = r.trustPolicyJson;
  if (r.trustPolicyReplaces === true) out.trustPolicyReplaces = true;
  if (r.notes !== undefined) out.notes = [...r.notes];
  return out;
}

/** One finding with the contract's fields in a fixed order. */
export function findingToJson(f: Finding): Json {
  const out: { [key: string]: Json } = {
    ruleId: f.ruleId,
    severity: f.severity,
    title: f.title,
    cluster: clusterJson(f.cluster),
    subject: f.subject,
    detail: f.detail,
  };
  if (f.blastRadius !== undefined) out.blastRadius = blastRadiusJson(f.blastRadius);
  if (f.remediation !== undefined) out.remediation = remediationJson(f.remediation);
  out.trigger = f.trigger;
  out.fingerprint = f.fingerprint;
  out.evidence = normalize(f.evidence, new Set()) ?? {};
  return out;
}

function buildReport(all: readonly Finding[], shown: readonly Json[], options: RenderOptions): JsonReport {
  const head: Omit<JsonReport, 'summary' | 'findings'> = {};
  if (options.title !== undefined) head.title = oneLine(options.title);
  if (options.cluster !== undefined) head.cluster = clusterJson(options.cluster);
  if (options.change !== undefined) head.change = options.change;
  if (options.effects !== undefined) {
    head.effects = options.effects.map((e) => ({ summary: e.summary, assumed: e.assumed }));
  }
  if (options.actor !== undefined) head.actor = { ...options.actor };
  const report: JsonReport = {
    ...head,
    summary: { total: all.length, bySeverity: countBySeverity(all) },
    findings: [...shown],
  };
  if (shown.length < all.length) {
    const rest = all.slice(shown.length);
    report.omitted = { count: rest.length, bySeverity: countBySeverity(rest) };
  }
  return report;
}

/** The report as data (for callers that embed it in a larger JSON document). */
export function toJsonReport(findings: readonly Finding[], options: RenderOptions = {}): JsonReport {
  const sorted = sortFindings(findings);
  return buildReport(sorted, sorted.map(findingToJson), options);
}

function stringify(report: JsonReport): string {
  return `${jsonText(report, 2)}\n`;
}

/**
 * Renders findings as pretty JSON. With `maxChars`, keeps the longest prefix of the sorted
 * findings that fits (best effort below ~400 characters, where even an empty report may not fit).
 */
export function renderJson(findings: readonly Finding[], options: RenderOptions = {}): string {
  return stringify(fitJsonReport(findings, options));
}

/** The report as data, cut to the findings that fit `options.maxChars` once written (renderJson's text). */
export function fitJsonReport(findings: readonly Finding[], options: RenderOptions = {}): JsonReport {
  const sorted = sortFindings(findings);
  const all = sorted.map(findingToJson);
  const full = buildReport(sorted, all, options);
  const limit = options.maxChars;
  if (limit === undefined || stringify(full).length <= limit) return full;
  const withFirst = (k: number) => buildReport(sorted, all.slice(0, k), options);
  // Largest k that fits; the length grows with k (save for the last step, handled above).
  let lo = 0;
  let hi = all.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (stringify(withFirst(mid)).length <= limit) lo = mid;
    else hi = mid - 1;
  }
  return withFirst(lo);
}
