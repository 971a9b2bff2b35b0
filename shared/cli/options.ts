/**
 * The CLI's option table: every option once (its type for the parser, its value placeholder,
 * description and default for the help), and per command the options it takes. `args.ts` parses
 * with it and `help.ts` renders the help from it, so the two cannot drift.
 */
import { AUTHENTICATION_MODES, SEVERITIES, type Severity } from '../core/model.ts';
import { MIGRATE_FORMATS, RENDER_FORMATS, REPORT_FORMATS } from '../core/render/index.ts';

/** The `--format` values a command takes where they differ from the findings' formats. */
export const COMMAND_FORMATS: Partial<Record<CommandName, readonly string[]>> = {
  migrate: MIGRATE_FORMATS,
  report: REPORT_FORMATS,
  // What it wrote: one line per file, or JSON (a Markdown list would add nothing).
  snapshot: ['text', 'json'],
  // One line per event: readable, or NDJSON.
  watch: ['text', 'json'],
};

export const COMMANDS = [
  'assess',
  'diff',
  'whatif',
  'compare',
  'snapshot',
  'report',
  'migrate',
  'watch',
  'rules',
  'demo',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export const FAIL_ON_VALUES = [...SEVERITIES, 'none'] as const;
export type FailOn = Severity | 'none';

export const REMEDIATE_MODES = ['off', 'dry-run', 'on'] as const;
/** `watch` reads the EKS side this often unless --interval says otherwise (seconds). */
export const DEFAULT_WATCH_INTERVAL_SECONDS = 30;

/** Clusters in flight at once for `report` and `snapshot --all` unless --concurrency says otherwise. */
export const DEFAULT_CLUSTER_CONCURRENCY = 4;
export const MAX_CLUSTER_CONCURRENCY = 32;

export interface OptionRow {
  /** For `node:util` parseArgs (which ignores the other fields). */
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  /** The value's placeholder in the help: FILE, NAME, N. */
  readonly value?: string;
  /** One line, or several: the help aligns the later ones under the first. */
  readonly description: string | readonly string[];
  /** What applies when the option is not given, as the help states it. */
  readonly defaultText?: string;
}

export const OPTIONS = {
  help: { type: 'boolean', short: 'h', description: 'show help' },
  version: { type: 'boolean', short: 'V', description: 'show the version' },
  debug: { type: 'boolean', description: 'show the stack trace of an internal error' },
  format: {
    type: 'string',
    value: RENDER_FORMATS.join('|'),
    description: 'output format',
    defaultText: 'text',
  },
  'fail-on': {
    type: 'string',
    value: 'SEVERITY',
    description: `exit 1 when a finding is at or above it: ${FAIL_ON_VALUES.join('|')}`,
    defaultText: 'critical for assess, diff, whatif, compare, report and migrate; none for demo',
  },
  'max-chars': {
    type: 'string',
    value: 'N',
    description: "bound the report's size; the most severe findings are kept whole",
  },
  snapshot: { type: 'string', value: 'FILE', description: 'the ClusterSnapshot JSON to read' },
  before: { type: 'string', value: 'FILE', description: 'the earlier snapshot' },
  after: { type: 'string', value: 'FILE', description: 'the later snapshot' },
  'delete-nodegroup': { type: 'string', value: 'NAME', description: 'delete a managed node group' },
  'delete-fargate-profile': { type: 'string', value: 'NAME', description: 'delete a Fargate profile' },
  'delete-access-entry': { type: 'string', value: 'ARN', description: 'delete an access entry' },
  'delete-role': {
    type: 'string',
    value: 'ARN',
    description: 'delete an IAM role: what breaks for nodes, Fargate, Pod Identity and IRSA',
  },
  'auth-mode': {
    type: 'string',
    value: 'MODE',
    description: `switch the authentication mode: ${AUTHENTICATION_MODES.join('|')}`,
  },
  event: {
    type: 'string',
    value: 'EVENT.json',
    description:
      'replay a CloudTrail record (or EventBridge event), or an aws-auth audit event (or its log payload)',
  },
  'terraform-plan': {
    type: 'string',
    value: 'PLAN.json',
    description: [
      'check a Terraform/OpenTofu plan (terraform show -json PLANFILE): every auth-relevant change',
      'simulated together, per cluster (cluster_name); with --region and no --cluster, the',
      "plan's clusters are read live",
    ],
  },
  'aws-auth': {
    type: 'string',
    value: 'FILE',
    description: 'check a proposed aws-auth: a ConfigMap manifest (YAML or JSON) or a mapRoles document',
  },
  scenarios: {
    type: 'string',
    value: 'DIR',
    description: 'the scenario files (DIR/*.json)',
    defaultText: "the package's scenarios/",
  },
  cluster: { type: 'string', value: 'NAME', description: 'the cluster to read live' },
  from: { type: 'string', value: 'FILE', description: 'the source cluster’s snapshot (blue)' },
  'from-cluster': { type: 'string', value: 'NAME', description: 'the source cluster, read live' },
  'from-region': {
    type: 'string',
    value: 'R',
    description: "the source cluster's Region",
    defaultText: 'AWS_REGION, then AWS_DEFAULT_REGION',
  },
  to: { type: 'string', value: 'FILE', description: 'the target cluster’s snapshot (green)' },
  'to-cluster': { type: 'string', value: 'NAME', description: 'the target cluster, read live' },
  'to-region': {
    type: 'string',
    value: 'R',
    description: "the target cluster's Region",
    defaultText: 'AWS_REGION, then AWS_DEFAULT_REGION',
  },
  region: {
    type: 'string',
    value: 'R',
    description: 'AWS Region codes, separated by commas',
    defaultText: 'AWS_REGION, then AWS_DEFAULT_REGION',
  },
  all: {
    type: 'boolean',
    description: `every cluster of the Regions (ListClusters), N at a time (default ${DEFAULT_CLUSTER_CONCURRENCY})`,
  },
  out: {
    type: 'string',
    value: 'FILE',
    description:
      'write to FILE instead of stdout (snapshot: the one snapshot, - for stdout; report: the page)',
  },
  store: {
    type: 'string',
    value: 'DIR',
    description: [
      'write into the local store (default .sentinel/snapshots):',
      'DIR/<account>/<region>/<cluster>.json, the one before kept as <cluster>.prev.json',
      '(eks-auth-sentinel diff --before …/<cluster>.prev.json --after …/<cluster>.json)',
    ],
  },
  duration: {
    type: 'string',
    value: 'SECONDS',
    description: 'watch: stop after this long (exit 0)',
    defaultText: 'until SIGINT or SIGTERM',
  },
  interval: {
    type: 'string',
    value: 'SECONDS',
    description: 'watch: read access entries, node groups, Fargate profiles and the mode this often',
    defaultText: String(DEFAULT_WATCH_INTERVAL_SECONDS),
  },
  remediate: {
    type: 'string',
    value: REMEDIATE_MODES.join('|'),
    description: 'watch: act on what running compute loses (dry-run: say what would be done)',
    defaultText: 'off',
  },
  concurrency: {
    type: 'string',
    value: 'N',
    description: `clusters read at once, 1 to ${MAX_CLUSTER_CONCURRENCY}`,
    defaultText: String(DEFAULT_CLUSTER_CONCURRENCY),
  },
} as const satisfies Record<string, OptionRow>;

export type OptionName = keyof typeof OPTIONS;

/** The options that name an input file; each takes `-` for standard input, one per command. */
export const FILE_INPUTS: readonly OptionName[] = [
  'snapshot',
  'before',
  'after',
  'event',
  'terraform-plan',
  'aws-auth',
  'from',
  'to',
];

/** Options every command takes, in the order the help lists them. */
export const GLOBAL: readonly OptionName[] = ['help', 'version', 'debug', 'format'];
const REPORTING: readonly OptionName[] = ['fail-on', 'max-chars'];

export const WHATIF_CHANGES = [
  'delete-nodegroup',
  'delete-fargate-profile',
  'delete-access-entry',
  'delete-role',
  'auth-mode',
  'event',
  'terraform-plan',
  'aws-auth',
] as const;
export type WhatIfChangeOption = (typeof WHATIF_CHANGES)[number];

/** The options each command takes besides the global ones. */
export const COMMAND_OPTIONS: Record<CommandName, readonly OptionName[]> = {
  assess: ['snapshot', 'cluster', 'region', ...REPORTING],
  diff: ['before', 'after', ...REPORTING],
  whatif: ['snapshot', 'cluster', 'region', ...WHATIF_CHANGES, ...REPORTING],
  compare: ['from', 'from-cluster', 'from-region', 'to', 'to-cluster', 'to-region', ...REPORTING],
  snapshot: ['cluster', 'region', 'all', 'out', 'store', 'concurrency'],
  report: ['snapshot', 'cluster', 'region', 'concurrency', 'out', ...REPORTING],
  // --fail-on: a blocker counts as critical (the switch would take that access for good).
  migrate: ['snapshot', 'cluster', 'region', 'fail-on'],
  watch: ['cluster', 'region', 'duration', 'interval', 'remediate'],
  rules: [],
  demo: ['scenarios', ...REPORTING],
};
