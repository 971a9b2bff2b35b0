/**
 * `npm start`: the incident demo. The sandbox account (EKS, Kubernetes, SNS, SSM, a Slack sink),
 * the monitor's state in-process (dynalite, s3rver, a local SQS endpoint — scripts/demo/local-state.ts)
 * and the REAL function bundles of dist/functions, invoked as Lambda invokes them: the schedule's
 * event, SQS batches, the CloudTrail record as EventBridge delivers it, a Lambda context.
 *
 *   1. baseline: scheduler → work queue → snapshot worker (snapshot stored, no critical alert);
 *   2. the incident: a write call through the real SDK client (or an aws-auth edit);
 *   3. onEksEvent with the CloudTrail record the sandbox emitted (or the next scheduled run);
 *   4. the follow-ups the function queued, delivered to the worker once their delay has passed;
 * then a timeline relative to the incident: the call, the alert as Slack and SNS received it,
 * EKS's side effects, nodes going NotReady, the follow-up. The demo checks that both alerts
 * arrived before the damage (first node NotReady, or the mode switch taking effect) and exits 1
 * when they did not.
 *
 * Incidents g and h (scripts/demo/workload-identity-incidents.ts) are the workload-identity ones:
 * the damage is the sandbox's pods failing to get AWS credentials (Pod Identity, IRSA). In d and f
 * (scripts/demo/access-incidents.ts) the access is lost at the call or edit itself: the demo
 * reports how long after it the alert came, never that it came before.
 *
 *   npx tsx scripts/incident-demo.ts [--scenario a|b|c|d|e|f|g|h] [--verbose]   (npm start -- --scenario e)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { DeleteNodegroupCommand, EKSClient, UpdateClusterConfigCommand } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { GUARD_MAX_MS } from '../functions/wiring/prevention.ts';
import { type SnsRecord, startSandbox } from '../infra/sandbox/index.ts';
import { ACCESS_SCENARIOS } from './demo/access-incidents.ts';
import {
  bundlePath,
  type FunctionName,
  type LocalFunction,
  lambdaEnvironment,
  scheduledEvent,
  startFunction,
} from './demo/lambda.ts';
import { type LocalState, type QueuedMessage, sqsEvent, startLocalState } from './demo/local-state.ts';
import { renderSlackMessage, renderSnsMessage } from './demo/render.ts';
import { type DemoContext, loadScenarioSnapshot, type Scenario } from './demo/scenario.ts';
import { WORKLOAD_IDENTITY_SCENARIOS } from './demo/workload-identity-incidents.ts';

const ROOT = join(import.meta.dirname, '..');
/**
 * The world's delays, in seconds of AWS's clock (docs/design.md "The incident demo's clock"):
 * EKS edits aws-auth some tens of seconds into a node group deletion (when exactly is not
 * documented); a node goes NotReady 1–3 minutes after its mapping is lost (the low end here, so
 * the lead time is not flattered); awsAuthCheck runs every minute with a second check 30 s later;
 * the audit log reaches its subscription with no documented delay ("best effort").
 */
const AWS = { eksEditS: 30, notReadyS: 60, checkRateS: 60, recheckS: 30, auditDeliveryS: 30 };
/** The demo's clock runs this many times faster than AWS's unless --clock or --realistic says otherwise. */
const DEFAULT_CLOCK = 5;
const LATENCY_MS = 20;
const WORK_QUEUE = 'eks-auth-sentinel-work';
const RECHECK_QUEUE = 'eks-auth-sentinel-aws-auth-recheck';

const SLIP = 'username: "developer:{{SessionName}}\n';
const FARGATE_ENTRY = [
  '- groups:',
  '  - system:bootstrappers',
  '  - system:nodes',
  '  - system:node-proxier',
  '  rolearn: arn:aws:iam::111122223333:role/prod-fargate-pod-execution',
  '  username: system:node:{{SessionName}}',
  '',
].join('\n');

const SCENARIOS: Scenario[] = [
  {
    id: 'a',
    file: 'a-karpenter-shares-last-nodegroup-role',
    title: 'DeleteNodegroup of the last managed node group whose role Karpenter nodes share',
    async act(ctx) {
      ctx.note('API call  eks:DeleteNodegroup cluster=prod nodegroup=general (AWS SDK EKSClient)');
      await ctx.eks.send(
        new DeleteNodegroupCommand({ clusterName: ctx.clusterName, nodegroupName: 'general' }),
      );
      await ctx.deliverCloudTrail();
    },
    damage: /Ready=Unknown/,
    damageLabel: 'the first node went NotReady',
    severity: 'critical',
  },
  {
    id: 'b',
    file: 'b-fargate-entry-removed-by-terraform',
    title: "Terraform's next apply removes the aws-auth entry EKS added for a Fargate profile",
    seed(snapshot) {
      // Start from aws-auth with the entry EKS added for the profile's pod execution role.
      const s = structuredClone(snapshot);
      if (s.awsAuth.status === 'ok') {
        s.awsAuth.data.data.mapRoles = `${s.awsAuth.data.data.mapRoles ?? ''}${FARGATE_ENTRY}`;
      }
      return s;
    },
    async act(ctx) {
      const cluster = ctx.sandbox.cluster(ctx.clusterName);
      const data = cluster.awsAuth?.data ?? {};
      ctx.note(
        'terraform apply: Terraform owns mapRoles and writes it without the Fargate entry (server-side apply)',
      );
      cluster.putAwsAuth(
        { ...data, mapRoles: (data.mapRoles ?? '').replace(FARGATE_ENTRY, '') },
        { manager: 'Terraform', operation: 'Apply' },
      );
    },
    damage: /Ready=Unknown/,
    damageLabel: 'the first Fargate node went NotReady',
    severity: 'critical',
  },
  {
    id: 'c',
    file: 'c-yaml-slip-in-maproles',
    title: 'A YAML slip in mapRoles (kubectl edit), no CloudTrail record: caught by the aws-auth check',
    seed(snapshot) {
      // Start from the aws-auth before the slip: the same mapRoles with the quote closed.
      const s = structuredClone(snapshot);
      if (s.awsAuth.status === 'ok' && s.awsAuth.data.data.mapRoles !== undefined) {
        s.awsAuth.data.data.mapRoles = s.awsAuth.data.data.mapRoles.replace(
          SLIP,
          'username: developer:{{SessionName}}\n',
        );
      }
      return s;
    },
    async act(ctx) {
      const cluster = ctx.sandbox.cluster(ctx.clusterName);
      const mapRoles = cluster.awsAuth?.data.mapRoles ?? '';
      ctx.note('kubectl edit configmap aws-auth: an unterminated quote in the last mapRoles entry', [
        `    │ ${SLIP.trim()}`,
      ]);
      cluster.putAwsAuth(
        {
          ...(cluster.awsAuth?.data ?? {}),
          mapRoles: mapRoles.replace('username: developer:{{SessionName}}\n', SLIP),
        },
        { manager: 'kubectl-edit' },
      );
    },
    damage: /Ready=Unknown/,
    damageLabel: 'the first node went NotReady',
    severity: 'critical',
  },
  ...ACCESS_SCENARIOS.filter((s) => s.id === 'd'),
  {
    id: 'e',
    file: 'e-switch-to-api-mode',
    title: 'UpdateClusterConfig to API mode while aws-auth maps a role that has no access entry',
    async act(ctx) {
      ctx.note(
        'API call  eks:UpdateClusterConfig cluster=prod accessConfig.authenticationMode=API (AWS SDK EKSClient)',
      );
      await ctx.eks.send(
        new UpdateClusterConfigCommand({
          name: ctx.clusterName,
          accessConfig: { authenticationMode: 'API' },
        }),
      );
      await ctx.deliverCloudTrail();
    },
    damage: /authentication mode is now API/,
    damageLabel: 'EKS switched the cluster to API mode',
    severity: 'critical',
  },
  ...ACCESS_SCENARIOS.filter((s) => s.id === 'f'),
  ...WORKLOAD_IDENTITY_SCENARIOS,
];

/** Scenario a in API_AND_CONFIG_MAP: the same incident, the node role without an access entry. */
const A_API_AND_CONFIG_MAP = 'a-karpenter-shares-role-api-and-config-map-no-entry';

function usage(): string {
  return [
    'Usage: npm start [-- --scenario ID] [--realistic | --clock N] [--mode default|continuous]',
    '                 [--remediate [on|dry-run|off]] [--auth-mode config-map|api-and-config-map] [--verbose]',
    '',
    'The incident demo: the sandbox account, the real Lambda bundles of dist/functions invoked as',
    'Lambda invokes them, each incident caught by the path that catches it deployed (CloudTrail →',
    'onEksEvent; an aws-auth edit → awsAuthCheck on its schedule or awsAuthWatch, its writer from the',
    'audit log → onAuditEvent), and a timeline. Exits 1 when an alert did not arrive before the damage',
    '(d, f: when it did not arrive at all; the access is lost at the call there), or when a',
    'remediation run ends with a node NotReady (on) or made a write (dry-run).',
    '',
    'Scenarios:',
    ...SCENARIOS.map((s) => `  ${s.id}  ${s.title}${s.id === 'a' ? ' (default)' : ''}`),
    '',
    `  --clock N         the world runs N times faster than AWS's (default ${DEFAULT_CLOCK}; 1–30): EKS's aws-auth edit`,
    `                    ${AWS.eksEditS} s into a deletion, NotReady ${AWS.notReadyS} s after a lost mapping, awsAuthCheck every`,
    `                    ${AWS.checkRateS} s + a re-check ${AWS.recheckS} s later, audit log delivered ${AWS.auditDeliveryS} s after a write — all ÷ N`,
    '  --realistic       the same delays on the AWS clock (--clock 1): a run takes minutes',
    '  --mode M          default (awsAuthCheck on its schedule) or continuous (awsAuthWatch holds a watch)',
    '  --remediate [M]   the remediation parameter: on (the default of a bare --remediate), dry-run or off',
    '  --auth-mode M     scenario a only: config-map (default) or api-and-config-map',
    "  --verbose         show the functions' Powertools log lines (JSON) as they happen",
    '  --functions DIR   run the bundles in DIR (as scripts/bundle-functions.mjs --outdir DIR writes them);',
    '                    default dist/functions, bundled first unless newer than the sources',
  ].join('\n');
}

/** Newest modification time under `path` (a file or a directory tree). */
function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newestMtime(join(path, name))), stat.mtimeMs);
}

/**
 * Bundles the functions into dist/functions (scripts/bundle-functions.mjs) unless every bundle
 * the demo runs is newer than its sources (functions/, shared/, the bundler, the lockfile).
 */
function ensureBundles(dir: string): void {
  const needed: FunctionName[] = [
    'scheduler',
    'snapshotWorker',
    'onEksEvent',
    'awsAuthCheck',
    'awsAuthWatch',
    'onAuditEvent',
  ];
  const sources = [
    'functions',
    'shared',
    'scripts/bundle-functions.mjs',
    'scripts/bundle-options.mjs',
    'scripts/keep-class-names.mjs',
    'scripts/sdk-bundle-plugins.mjs',
    'package-lock.json',
  ].map((p) => newestMtime(join(ROOT, p)));
  const newestSource = Math.max(...sources);
  const fresh = needed.every((fn) => {
    const file = bundlePath(dir, fn);
    return existsSync(file) && statSync(file).mtimeMs > newestSource;
  });
  if (fresh) return;
  process.stdout.write('Bundling the functions (scripts/bundle-functions.mjs)…\n');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-functions.mjs'), '--outdir', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.stdout.write('\n');
}

const seconds = (ms: number): string => `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1000).toFixed(2)}s`;

interface Entry {
  at: number;
  what: string;
  lines: string[];
}

/** `→ confirmed nodes/role-unauthorized, new aws-auth/entry-removed`: what SNS received from one invocation. */
function noticeSummary(records: readonly SnsRecord[]): string[] {
  const WORD: Record<string, string> = {
    opened: 'new',
    escalated: 'escalated',
    confirmed: 'confirmed (the prediction came true, the damage stays open)',
    resolved: 'resolved',
  };
  const said = records.flatMap((r) => {
    try {
      const doc = JSON.parse(JSON.parse(r.message).sqs) as {
        notices?: Array<{ kind?: string; finding?: { ruleId?: string } }>;
      };
      return (doc.notices ?? []).map((n) => `${WORD[n.kind ?? ''] ?? n.kind} ${n.finding?.ruleId ?? '?'}`);
    } catch {
      return [];
    }
  });
  if (said.length > 0) return [`→ ${said.join(', ')}`];
  return records.length === 0 ? ['→ no notice: no alert opened, escalated, confirmed or resolved'] : [];
}

/**
 * The counts the first alert printed against the sandbox's own lines: nodes that lose access
 * vs. nodes that went NotReady; aws-auth principals dropped vs. principals that lost access.
 * Undefined when the alert gives no count to check.
 */
function countCheck(
  alert: readonly string[],
  sandboxLines: readonly string[],
): { ok: boolean; line: string } | undefined {
  const text = alert.join('\n');
  // A workload-identity alert names service accounts (its "0 nodes" is not the count that matters).
  const workload = workloadCount(text, sandboxLines);
  if (workload !== undefined) return workload;
  const nodes = /Who loses access\*? — (\d+) node/.exec(text)?.[1];
  if (nodes !== undefined) {
    const down = new Set(sandboxLines.flatMap((l) => /node (\S+) Ready=Unknown/.exec(l)?.[1] ?? [])).size;
    const said = Number(nodes);
    return said === down
      ? {
          ok: true,
          line: `Counts agree: the alert said ${said} node(s) lose access; the sandbox saw ${down} go NotReady.`,
        }
      : {
          ok: false,
          line: `FAIL: the alert said ${said} node(s) lose access, the sandbox saw ${down} go NotReady.`,
        };
  }
  const principals = /drops (\d+) aws-auth principal/.exec(text)?.[1];
  if (principals !== undefined) {
    const lost = Number(
      sandboxLines.map((l) => /(\d+) principal\(s\) lost access/.exec(l)?.[1]).find(Boolean) ?? 0,
    );
    const said = Number(principals);
    return said === lost
      ? {
          ok: true,
          line: `Counts agree: the alert said ${said} aws-auth principal(s) lose access; the sandbox saw ${lost} lose it.`,
        }
      : {
          ok: false,
          line: `FAIL: the alert said ${said} aws-auth principal(s) lose access, the sandbox saw ${lost} lose it.`,
        };
  }
  return undefined;
}

/**
 * Service accounts the alert said get no credentials vs. those whose credential request failed
 * in the sandbox (Pod Identity refresh, IRSA AssumeRoleWithWebIdentity).
 */
function workloadCount(
  text: string,
  sandboxLines: readonly string[],
): { ok: boolean; line: string } | undefined {
  const kinds = [
    {
      said: /(\d+) Pod Identity service account\(s\) get no credentials/,
      saw: /: pod identity (\S+): credential refresh failed/,
      what: 'Pod Identity service account(s) get no credentials',
      verb: 'fail their credential refresh',
    },
    {
      said: /OIDC provider for (\d+) IRSA service account\(s\)/,
      saw: /: IRSA (\S+): AssumeRoleWithWebIdentity failed/,
      what: 'IRSA service account(s) get no credentials',
      verb: 'fail AssumeRoleWithWebIdentity',
    },
  ];
  for (const k of kinds) {
    const said = k.said.exec(text)?.[1];
    if (said === undefined) continue;
    const saw = new Set(sandboxLines.flatMap((l) => k.saw.exec(l)?.[1] ?? [])).size;
    return Number(said) === saw
      ? {
          ok: true,
          line: `Counts agree: the alert said ${said} ${k.what}; the sandbox saw ${saw} ${k.verb}.`,
        }
      : { ok: false, line: `FAIL: the alert said ${said} ${k.what}, the sandbox saw ${saw} ${k.verb}.` };
  }
  return undefined;
}

function parseDemoArgs() {
  // A bare `--remediate` means `on`: parseArgs wants a value for a string option.
  const args = process.argv
    .slice(2)
    .flatMap((a, i, all) =>
      a === '--remediate' && (all[i + 1] === undefined || all[i + 1]?.startsWith('--')) ? [a, 'on'] : [a],
    );
  return parseArgs({
    args,
    options: {
      scenario: { type: 'string', default: 'a' },
      clock: { type: 'string' },
      realistic: { type: 'boolean', default: false },
      mode: { type: 'string', default: 'default' },
      remediate: { type: 'string', default: 'off' },
      'auth-mode': { type: 'string', default: 'config-map' },
      verbose: { type: 'boolean', default: false },
      functions: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseDemoArgs>;
  try {
    parsed = parseDemoArgs();
  } catch (error) {
    // A mistyped option is the user's, not a crash: one line and where to look, no stack trace.
    const message = error instanceof Error ? (error.message.split('. ')[0] ?? error.message) : String(error);
    process.stderr.write(`incident demo: ${message}; see npm start -- --help\n`);
    return 2;
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const found = SCENARIOS.find((s) => s.id === values.scenario || s.file === values.scenario);
  if (found === undefined) {
    process.stderr.write(`unknown scenario ${values.scenario}\n\n${usage()}\n`);
    return 2;
  }
  const refuse = (what: string): number => {
    process.stderr.write(`incident demo: ${what}; see npm start -- --help\n`);
    return 2;
  };
  const clock = values.clock === undefined ? (values.realistic ? 1 : DEFAULT_CLOCK) : Number(values.clock);
  if (!Number.isInteger(clock) || clock < 1 || clock > 30)
    return refuse(`--clock takes a whole number from 1 to 30, got ${JSON.stringify(values.clock)}`);
  if (values.realistic && clock !== 1 && values.clock !== undefined)
    process.stdout.write(`--realistic with --clock ${clock}: AWS's delays on a clock ${clock}× faster.\n`);
  const mode = values.mode;
  if (mode !== 'default' && mode !== 'continuous')
    return refuse(`--mode takes default or continuous, got ${JSON.stringify(mode)}`);
  const remediation = values.remediate;
  if (remediation !== 'off' && remediation !== 'dry-run' && remediation !== 'on')
    return refuse(`--remediate takes on, dry-run or off, got ${JSON.stringify(remediation)}`);
  const authMode = values['auth-mode'];
  if (authMode !== 'config-map' && authMode !== 'api-and-config-map')
    return refuse(`--auth-mode takes config-map or api-and-config-map, got ${JSON.stringify(authMode)}`);
  if (authMode !== 'config-map' && found.id !== 'a') return refuse('--auth-mode applies to scenario a only');
  const scenario: Scenario =
    authMode === 'api-and-config-map'
      ? { ...found, file: A_API_AND_CONFIG_MAP, title: `${found.title} (API_AND_CONFIG_MAP)` }
      : found;
  /** A duration on AWS's clock, in ms of the demo's. */
  const worldMs = (awsSeconds: number): number => (awsSeconds * 1000) / clock;
  const sideEffectDelayMs = worldMs(AWS.eksEditS);
  const notReadyDelayMs = worldMs(AWS.notReadyS);
  /** The follow-up re-check comes after the damage, so that it confirms it. */
  const followUpDelaySeconds = Math.ceil((sideEffectDelayMs + notReadyDelayMs) / 1000) + 1;
  // SQS DelaySeconds are whole seconds: the re-check on this clock, rounded.
  const recheckSeconds = Math.max(1, Math.round(AWS.recheckS / clock));
  const functionsDir = values.functions ?? join(ROOT, 'dist', 'functions');
  if (values.functions === undefined) ensureBundles(functionsDir);
  const began = Date.now();
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const file = loadScenarioSnapshot(scenario.file);
  const snapshot = scenario.seed ? scenario.seed(file) : file;
  const { accountId, region, clusterName } = snapshot;

  const sandbox = await startSandbox({
    // The audit log is on: its subscription feeds onAuditEvent (the writer of each aws-auth edit).
    clusters: [{ snapshot, logging: ['audit'] }],
    latencyMs: LATENCY_MS,
    sideEffectDelayMs,
    notReadyDelayMs,
    ...(scenario.credentialRefreshDelayMs === undefined
      ? {}
      : { credentialRefreshDelayMs: scenario.credentialRefreshDelayMs }),
  });
  let state: LocalState | undefined;
  const closers: Array<() => void> = [];
  try {
    state = await startLocalState({
      accountId,
      region,
      credentials: sandbox.credentials,
      latencyMs: LATENCY_MS,
    });
    const st = state;
    const recheckQueueUrl = st.queueUrl.replace(new RegExp(`${WORK_QUEUE}$`), RECHECK_QUEUE);
    const lambdaEnv = {
      ...lambdaEnvironment(sandbox, st, {
        accountId,
        region,
        verbose: values.verbose,
        followUpDelaySeconds,
      }),
      SENTINEL_AWS_AUTH_RECHECK_QUEUE_URL: recheckQueueUrl,
      SENTINEL_AWS_AUTH_RECHECK_SECONDS: String(recheckSeconds),
      // The shortest window the function takes; the demo re-invokes it when it returns.
      SENTINEL_AWS_AUTH_WATCH_SECONDS: '60',
      SENTINEL_REMEDIATION: remediation,
    };
    const functions = new Map<FunctionName, Promise<LocalFunction>>();
    /** `initMs` set when this invocation started its function (a cold start): the module init. */
    const invokeTimed = async (
      fn: FunctionName,
      event: unknown,
      timeoutMs?: number,
    ): Promise<{ result: unknown; initMs?: number }> => {
      let running = functions.get(fn);
      let cold = false;
      if (running === undefined) {
        running = startFunction(functionsDir, fn, lambdaEnv, {
          accountId,
          region,
          showLogs: values.verbose,
          ...(timeoutMs === undefined ? {} : { timeoutMs }),
        });
        functions.set(fn, running);
        cold = true;
      }
      const f = await running;
      const { result } = await f.invoke(event);
      return cold ? { result, initMs: f.initMs } : { result };
    };
    let coldInitMs: number | undefined;
    const invoke = async (fn: FunctionName, event: unknown): Promise<unknown> => {
      const { result, initMs } = await invokeTimed(fn, event);
      coldInitMs = initMs;
      return result;
    };
    closers.push(() => {
      for (const f of functions.values()) f.then((x) => x.close()).catch(() => undefined);
    });

    const entries: Entry[] = [];
    let incidentAt: number | undefined;
    /** sandbox.calls from here on are the monitor's (the incident's own call comes before). */
    let writesFrom: number | undefined;
    const note = (what: string, lines: string[] = []): void => {
      entries.push({ at: Date.now(), what, lines });
    };
    const queueArn = `arn:aws:sqs:${region}:${accountId}:${WORK_QUEUE}`;
    const isDue = (m: QueuedMessage, now: number) => m.sentAt + m.delaySeconds * 1000 <= now;
    const workQueued = () => st.queue.filter((m) => m.queueUrl !== recheckQueueUrl);
    /** Delivers the queued messages whose delay has passed to the worker, one SQS batch. */
    const deliverDue = async (label: (m: QueuedMessage) => string): Promise<number> => {
      const now = Date.now();
      const due = workQueued().filter((m) => isDue(m, now));
      if (due.length === 0) return 0;
      for (const m of due) st.queue.splice(st.queue.indexOf(m), 1);
      const snsBefore = sandbox.sns.length;
      const started = Date.now();
      const result = (await invoke('snapshotWorker', sqsEvent(due, queueArn, region))) as {
        batchItemFailures?: unknown[];
      };
      const failures = result.batchItemFailures?.length ?? 0;
      const labels = [...new Set(due.map(label))].join(', ');
      entries.push({
        at: started,
        what: `snapshotWorker  SQS batch: ${labels}`,
        lines: [
          `returned after ${Date.now() - started} ms${failures ? `: ${failures} item(s) FAILED` : ': no failures'}`,
          ...noticeSummary(sandbox.sns.slice(snsBefore)),
        ],
      });
      if (failures > 0) throw new Error(`the snapshot worker failed ${failures} message(s)`);
      return due.length;
    };
    const itemLabel = (m: QueuedMessage): string => {
      const item = JSON.parse(m.body) as {
        reason?: string;
        followUp?: { eventName?: string; attempt?: number };
      };
      return item.reason === 'follow-up'
        ? `follow-up #${item.followUp?.attempt ?? '?'} of ${item.followUp?.eventName ?? '?'}`
        : 'scheduled snapshot';
    };

    const ctx: DemoContext = {
      sandbox,
      clusterName,
      eks: new EKSClient({
        region,
        endpoint: sandbox.env.AWS_ENDPOINT_URL_EKS,
        credentials: sandbox.outsiderCredentials,
        maxAttempts: 1,
      }),
      iam: new IAMClient({
        region: 'us-east-1',
        endpoint: sandbox.env.AWS_ENDPOINT_URL_IAM,
        credentials: sandbox.outsiderCredentials,
        maxAttempts: 1,
      }),
      async cli(label, args, show = (lines) => lines) {
        // The CLI's own code in this process (createNodeIo, runCli), its AWS clients configured
        // from the environment as on an operator's machine: the sandbox's endpoints and the
        // monitor's keys. The demo's other clients name their endpoints and keys explicitly.
        Object.assign(process.env, sandbox.env, { NO_COLOR: '1' });
        const { createNodeIo } = await import('../shared/cli/node-io.ts');
        const { runCli } = await import('../shared/cli/run-cli.ts');
        let stdout = '';
        let stderr = '';
        const io = {
          ...createNodeIo(pathToFileURL(join(ROOT, 'shared', 'cli', 'main.ts')).href),
          stdout: (text: string) => {
            stdout += text;
          },
          stderr: (text: string) => {
            stderr += text;
          },
          isTTY: false,
          stderrIsTTY: false,
        };
        const started = Date.now();
        const code = await runCli(args, io);
        // Placed when it printed: a reader sees the report then, not when it started.
        entries.push({
          at: Date.now(),
          what: `CLI  ${label}`,
          lines: [
            `exit ${code} after ${Date.now() - started} ms${code > 1 ? `: ${stderr.trim()}` : ''}`,
            ...show(stdout.split('\n')),
          ],
        });
        return code;
      },
      note(what, lines = []) {
        incidentAt ??= Date.now();
        note(what, lines);
      },
      async scheduledRun(label) {
        const started = Date.now();
        const result = await invoke('scheduler', scheduledEvent(accountId, region));
        entries.push({
          at: started,
          what: `scheduler  ${label}`,
          lines: [`returned after ${Date.now() - started} ms: ${JSON.stringify(result)}`],
        });
        await deliverDue(itemLabel);
      },
      async deliverCloudTrail() {
        const record = sandbox.cloudTrail.at(-1) as { detail?: { eventID?: string; eventName?: string } };
        writesFrom ??= sandbox.calls.length;
        const started = Date.now();
        const result = (await invoke('onEksEvent', record)) as Record<string, unknown>;
        const value = (v: unknown): string =>
          Array.isArray(v)
            ? v
                .map((x) =>
                  typeof x === 'object' && x !== null && 'cluster' in x
                    ? `${String(x.cluster)}(${'ruleIds' in x && Array.isArray(x.ruleIds) ? x.ruleIds.join(',') : ''})`
                    : String(x),
                )
                .join(',')
            : String(v);
        const summary = ['outcome', 'findings', 'ruleIds', 'clusters', 'basis', 'followUpQueued']
          .filter((k) => result[k] !== undefined)
          .map((k) => `${k}=${value(result[k])}`)
          .join(' ');
        const envelope = record as { source?: string; region?: string };
        const via = envelope.source === 'aws.iam' ? ` (IAM: recorded in ${envelope.region}, forwarded)` : '';
        entries.push({
          at: started,
          what: `onEksEvent  EventBridge delivers CloudTrail ${record.detail?.eventName}${via} (eventID ${record.detail?.eventID?.slice(0, 8)}…)`,
          lines: [
            `returned after ${Date.now() - started} ms${coldInitMs === undefined ? '' : ` (a cold start: new process, module init ${coldInitMs.toFixed(0)} ms)`}: ${summary}`,
          ],
        });
      },
    };

    // 1. Baseline.
    const onClock = (awsS: number): string =>
      clock === 1 ? `${awsS} s` : `${awsS} s (${(worldMs(awsS) / 1000).toFixed(1)} s here)`;
    const path =
      mode === 'default'
        ? `default mode: awsAuthCheck every ${onClock(AWS.checkRateS)} and its re-check ${recheckSeconds * clock === AWS.recheckS ? onClock(AWS.recheckS) : `${recheckSeconds} s here (SQS delays are whole seconds)`} later`
        : 'continuous mode: awsAuthWatch holds a watch on aws-auth';
    process.stdout.write(
      [
        `Incident demo (${scenario.id}): ${scenario.title}`,
        `Sandbox account ${accountId}, cluster ${clusterName} in ${region}; ${LATENCY_MS} ms per AWS call${scenario.sandboxNote === undefined ? '' : `; ${scenario.sandboxNote}`}.`,
        clock === 1
          ? "Clock: AWS's (--realistic)."
          : `Clock: ${clock}× faster than AWS's (--clock ${clock}; --realistic runs on AWS's): every delay of the world below is ÷ ${clock}; the functions run at their own speed, so their share of each figure is ${clock}× what it would be in AWS.`,
        `World: EKS edits aws-auth ${onClock(AWS.eksEditS)} into a node group deletion (AWS: "some tens of seconds", not documented); a node goes NotReady ${onClock(AWS.notReadyS)} after its mapping is lost (AWS: 1–3 min; the low end); the audit log reaches onAuditEvent ${onClock(AWS.auditDeliveryS)} after a write (AWS: best effort, no figure).`,
        `Monitor: CloudTrail → onEksEvent; aws-auth edits → ${path}; the audit log → onAuditEvent (the writer); remediation ${remediation}.`,
        // Only a node group deletion is guarded.
        ...(remediation !== 'off' && clock > 1 && scenario.id === 'a'
          ? [
              `Note: onEksEvent's CONFIG_MAP guard reads aws-auth for ${GUARD_MAX_MS / 1000} s of its own time, ${(GUARD_MAX_MS * clock) / 1000} s of this world's: ${GUARD_MAX_MS / 1000 < AWS.eksEditS ? `here it covers EKS's edit ${AWS.eksEditS} s in, on AWS's clock it ends before it and awsAuthCheck's restore comes instead (--realistic shows it)` : `it covers EKS's edit ${AWS.eksEditS} s in on AWS's clock too`}.`,
            ]
          : []),
        '',
        '',
      ].join('\n'),
    );
    await ctx.scheduledRun('baseline');
    const baselineSlack = sandbox.slack.length;
    const baselineSns = sandbox.sns.length;
    const baselineCritical = sandbox.sns.filter(
      (r) => r.messageAttributes.severity?.StringValue === 'critical',
    );
    process.stdout.write(
      `Baseline: scheduler + snapshotWorker stored the snapshot; ${baselineSns} SNS / ${baselineSlack} Slack notice(s) (${sandbox.sns.map((r) => r.subject ?? '').join('; ') || 'none'}).\n`,
    );
    if (baselineCritical.length > 0) {
      process.stdout.write('FAIL: the baseline already raised a critical alert\n');
      return 1;
    }
    const timelineStart = sandbox.timeline.length;
    const baselineEntries = entries.length;

    // The aws-auth paths as deployed, from the baseline on: awsAuthCheck on its schedule (and its
    // re-check message) or awsAuthWatch holding a watch; the audit subscription's payloads to
    // onAuditEvent. Only what they do after the incident goes into the timeline.
    let stopped = false;
    const pendingAudit: Array<{ at: number; payload: unknown }> = [];
    const recheckArn = `arn:aws:sqs:${region}:${accountId}:${RECHECK_QUEUE}`;
    const shown = (e: Entry): void => {
      if (incidentAt !== undefined) entries.push(e);
    };
    const cold = (initMs: number | undefined) =>
      initMs === undefined ? '' : ` (a cold start: new process, module init ${initMs.toFixed(0)} ms)`;
    const check = async (label: string, event: unknown): Promise<void> => {
      const snsBefore = sandbox.sns.length;
      const started = Date.now();
      const { result, initMs } = await invokeTimed('awsAuthCheck', event);
      const r = result as { clusters?: Array<{ cluster: string; outcome: string; findings?: number }> };
      const clusters = (r.clusters ?? [])
        .map(
          (c) => `${c.cluster}: ${c.outcome}${c.findings === undefined ? '' : ` (${c.findings} finding(s))`}`,
        )
        .join(', ');
      shown({
        at: started,
        what: `awsAuthCheck  ${label}`,
        lines: [
          `returned after ${Date.now() - started} ms${cold(initMs)}: ${clusters || 'no cluster'}`,
          ...(sandbox.sns.length > snsBefore ? noticeSummary(sandbox.sns.slice(snsBefore)) : []),
        ],
      });
    };
    const pump = async (): Promise<void> => {
      let nextTick = Date.now() + worldMs(AWS.checkRateS);
      while (!stopped) {
        if (mode === 'default' && Date.now() >= nextTick) {
          nextTick += worldMs(AWS.checkRateS);
          await check(
            `schedule tick, rate(1 minute)${clock === 1 ? '' : ` on the ${clock}× clock`}`,
            scheduledEvent(accountId, region),
          );
        }
        const rechecks = st.queue.filter((m) => m.queueUrl === recheckQueueUrl && isDue(m, Date.now()));
        for (const m of rechecks) {
          st.queue.splice(st.queue.indexOf(m), 1);
          await check(`re-check, SQS DelaySeconds ${m.delaySeconds}`, sqsEvent([m], recheckArn, region));
        }
        for (const payload of sandbox.audit.drain()) pendingAudit.push({ at: Date.now(), payload });
        const dueAudit = pendingAudit.filter((a) => a.at + worldMs(AWS.auditDeliveryS) <= Date.now());
        for (const a of dueAudit) {
          pendingAudit.splice(pendingAudit.indexOf(a), 1);
          const snsBefore = sandbox.sns.length;
          const slackBefore = sandbox.slack.length;
          const started = Date.now();
          const { result, initMs } = await invokeTimed('onAuditEvent', a.payload);
          const r = result as { outcome?: string; results?: unknown };
          shown({
            at: started,
            what: 'onAuditEvent  CloudWatch Logs subscription: the audit log of an aws-auth write',
            lines: [
              `returned after ${Date.now() - started} ms${cold(initMs)}: ${JSON.stringify(r).slice(0, 300)}`,
              ...(sandbox.sns.length > snsBefore || sandbox.slack.length > slackBefore
                ? noticeSummary(sandbox.sns.slice(snsBefore))
                : []),
            ],
          });
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // The first look is made before the incident (the function is warm, as a per-minute schedule
    // keeps it), so the incident lands just after a look: the default mode's worst case.
    if (mode === 'default') await check('first look', scheduledEvent(accountId, region));
    const pumping = pump();
    /** When the awsAuthWatch invocation still open at the end started (it shows as open). */
    let watchOpenSince: number | undefined;
    const watching = (async () => {
      while (mode === 'continuous' && !stopped) {
        const started = Date.now();
        watchOpenSince = started;
        const { result, initMs } = await invokeTimed(
          'awsAuthWatch',
          scheduledEvent(accountId, region),
          120_000,
        );
        watchOpenSince = undefined;
        shown({
          at: started,
          what: 'awsAuthWatch  one window of the continuous mode',
          lines: [
            `returned after ${Date.now() - started} ms${cold(initMs)}: ${JSON.stringify(result).slice(0, 300)}`,
          ],
        });
      }
    })().catch((error: unknown) => {
      if (!stopped) throw error;
    });
    if (mode === 'continuous') {
      // The watch is open before the incident, as the overlapping windows keep it deployed.
      const kube = sandbox.kube(clusterName);
      const until = Date.now() + 20_000;
      while (kube.openWatches === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    }

    // 2–3. The incident and the event path.
    await scenario.act(ctx);
    const t0 = incidentAt ?? Date.now();
    writesFrom ??= sandbox.calls.length;

    // 4. Follow-ups and the aws-auth paths, until the damage happened (or, with remediation, the
    // time it would have), nothing is queued and the audit log is delivered (bounded).
    const horizon = t0 + sideEffectDelayMs + notReadyDelayMs + 1_500;
    const deadline = Math.max(horizon, Date.now() + followUpDelaySeconds * 1000 + 6_000);
    const damaged = () => sandbox.timeline.slice(timelineStart).some((e) => scenario.damage.test(e.what));
    const settled = () =>
      workQueued().length === 0 &&
      pendingAudit.length === 0 &&
      (remediation === 'on' ? Date.now() >= horizon : damaged());
    while (Date.now() < deadline && !settled()) {
      await deliverDue(itemLabel);
      await new Promise((r) => setTimeout(r, 50));
    }
    stopped = true;
    await pumping;
    if (watchOpenSince !== undefined)
      entries.push({
        at: watchOpenSince,
        what: 'awsAuthWatch  one window of the continuous mode, invoked before the incident',
        lines: ['still holding the watch at the end of the demo (it returns when its window ends)'],
      });
    // An open watch window is not waited for: closing the function's process ends it.
    void watching;

    // The timeline.
    for (const e of sandbox.timeline.slice(timelineStart))
      entries.push({ at: e.at, what: `sandbox  ${e.what}`, lines: [] });
    const slack = sandbox.slack.slice(baselineSlack);
    // The first message in full; later ones by their headline and fields (the fix code repeats).
    slack.forEach((m, i) => {
      const lines = renderSlackMessage(m.body);
      const short = lines.filter(
        (l) => l.startsWith('▌') || l.startsWith('Cluster:') || l.startsWith('Prediction confirmed'),
      );
      entries.push({ at: m.at, what: 'Slack received', lines: i === 0 ? lines : short });
    });
    const publishes = sandbox.calls.filter(
      (c) => c.service === 'sns' && c.operation === 'Publish' && c.status === 200,
    );
    const sns: Array<{ at: number; record: SnsRecord }> = sandbox.sns
      .map((record, i) => ({ at: publishes[i]?.at ?? Number.NaN, record }))
      .slice(baselineSns);
    sns.forEach((m, i) => {
      entries.push({ at: m.at, what: 'SNS received', lines: renderSnsMessage(m.record, i === 0 ? 4 : 0) });
    });

    const out: string[] = ['', `Timeline (T = the incident, ${new Date(t0).toISOString()}):`, ''];
    for (const e of entries.slice(baselineEntries).sort((a, b) => a.at - b.at)) {
      out.push(`T${seconds(e.at - t0).padStart(7)}  ${e.what}`);
      for (const line of e.lines) out.push(`            ${line}`);
    }

    // The alert: the first notice that opened a finding of the scenario's severity.
    const severity = scenario.severity;
    const damage = sandbox.timeline.slice(timelineStart).find((e) => scenario.damage.test(e.what));
    const attr = (r: SnsRecord, name: string) => r.messageAttributes[name]?.StringValue;
    const firstSns = sns.find(
      (m) => attr(m.record, 'severity') === severity && attr(m.record, 'kind') === 'opened',
    )?.at;
    // A new notice's header: `<emoji> CRITICAL · <cluster> · …` (escalations say `(escalated)`).
    const slackHeadline = `${severity.toUpperCase()} · `;
    const firstSlack = slack.find((m) => JSON.stringify(m.body).includes(slackHeadline))?.at;
    out.push('');
    let ok = true;
    const notReady = sandbox.timeline.slice(timelineStart).filter((e) => /Ready=Unknown/.test(e.what));
    if (remediation === 'on') {
      // Prevention: the damage must not happen; the alert that predicted it still comes.
      const lost = notReady.length;
      ok = lost === 0 && firstSlack !== undefined && firstSns !== undefined;
      out.push(
        lost === 0
          ? `OK: remediation on — zero nodes NotReady (Fargate nodes included: each Fargate pod runs on its own node, so zero failed Fargate pods) ${((Date.now() - t0) / 1000).toFixed(1)} s after the incident, past the ${onClock(AWS.notReadyS)} a lost mapping takes.`
          : `FAIL: remediation on — ${lost} node(s) went NotReady (first at T${seconds((notReady[0]?.at ?? t0) - t0)}).`,
      );
      if (firstSlack === undefined || firstSns === undefined)
        out.push(`FAIL: no ${severity} alert reached Slack and SNS`);
    } else if (damage === undefined) {
      out.push(`FAIL: the damage (${scenario.damageLabel}) did not happen in the sandbox`);
      ok = false;
    } else if (firstSlack === undefined || firstSns === undefined) {
      const missing = [firstSlack === undefined ? 'Slack' : '', firstSns === undefined ? 'SNS' : '']
        .filter(Boolean)
        .join(' nor ');
      out.push(`FAIL: no ${severity} alert reached ${missing}`);
      ok = false;
    } else if (scenario.lostAtCall !== undefined) {
      // The loss is the call itself: report the time from it to the alert, claim nothing before.
      const after = (at: number) => `${((at - t0) / 1000).toFixed(2)} s`;
      out.push(
        `OK: ${scenario.lostAtCall}, T+0.00s, so no alert can come before the loss: the ${severity} alert reached Slack ${after(firstSlack)} and SNS ${after(firstSns)} after it.`,
      );
    } else {
      const lead = (at: number) => `${((damage.at - at) / 1000).toFixed(2)} s`;
      ok = firstSlack < damage.at && firstSns < damage.at;
      out.push(
        ok
          ? `OK: the ${severity} alert reached Slack ${lead(firstSlack)} and SNS ${lead(firstSns)} before ${scenario.damageLabel} (T${seconds(damage.at - t0)}).`
          : `FAIL: the ${severity} alert reached Slack at T${seconds(firstSlack - t0)} and SNS at T${seconds(firstSns - t0)}, not before ${scenario.damageLabel} (T${seconds(damage.at - t0)}).`,
      );
    }
    const sandboxLines = sandbox.timeline.slice(timelineStart).map((e) => e.what);
    const firstAlert = slack.find((m) => JSON.stringify(m.body).includes(slackHeadline));
    // With remediation on the alert's count is what would have been lost: nothing to compare.
    const counts =
      remediation === 'on'
        ? undefined
        : countCheck(firstAlert ? renderSlackMessage(firstAlert.body) : [], sandboxLines);
    if (counts !== undefined) {
      out.push(counts.line);
      ok &&= counts.ok;
    }
    const resolvedAfterDamage = slack.filter(
      (m) => damage !== undefined && m.at > damage.at && /Resolved/.test(renderSlackMessage(m.body)[0] ?? ''),
    );
    if (resolvedAfterDamage.length > 0) {
      out.push('FAIL: a notice said "Resolved" after the damage happened');
      ok = false;
    }
    if (damage !== undefined && scenario.lostAtCall === undefined && firstSlack !== undefined) {
      const leadS = (damage.at - firstSlack) / 1000;
      out.push(
        clock === 1
          ? `Lead time (alert in Slack → ${scenario.damageLabel}): ${leadS.toFixed(2)} s, on AWS's clock.`
          : `Lead time (alert in Slack → ${scenario.damageLabel}): ${leadS.toFixed(2)} s on this ${clock}× clock ≈ ${(leadS * clock).toFixed(0)} s on AWS's, counting the functions' own time ${clock}× over (at least that if they run as fast in AWS as here; npm start -- --realistic measures it).`,
      );
    }
    if (remediation !== 'off') {
      // What was done, by whom: each remediation alert, and the monitor's writes the sandbox saw.
      const actions = sns.filter((m) => attr(m.record, 'ruleId') === 'remediation/action');
      const writes = sandbox.calls
        .slice(writesFrom ?? 0)
        .filter(
          (c) =>
            (c.service === 'eks' &&
              /^(Create|Update|Delete|Associate|Disassociate|Tag|Untag)/.test(c.operation)) ||
            (c.service === 'kube' && /^(Create|Replace|Patch|Delete)ConfigMap$/.test(c.operation)),
        );
      const invoked = entries
        .slice(baselineEntries)
        .filter((e) => /^(onEksEvent|awsAuthCheck|awsAuthWatch|onAuditEvent) /.test(e.what));
      const by = (at: number): string =>
        invoked
          .filter((e) => e.at <= at)
          .at(-1)
          ?.what.split(' ')[0] ?? 'the monitor';
      out.push(`Remediation (${remediation}): ${actions.length} action alert(s):`);
      for (const a of actions)
        out.push(`  T${seconds(a.at - t0)}  by ${by(a.at)} (the monitor's role): ${a.record.subject ?? ''}`);
      out.push(
        `Writes by the monitor after the incident: ${writes.length}${writes.length === 0 ? '' : ` (${writes.map((w) => `${w.service} ${w.operation} ${w.status} at T${seconds(w.at - t0)}`).join('; ')})`}.`,
      );
      if (remediation === 'dry-run') {
        const wouldDo = actions.length > 0;
        if (writes.length > 0 || !wouldDo) ok = false;
        out.push(
          writes.length === 0 && wouldDo
            ? 'OK: dry-run wrote nothing (zero Kubernetes writes, zero EKS create/update/delete calls) and alerted what it would do.'
            : `FAIL: dry-run ${writes.length > 0 ? `made ${writes.length} write(s)` : 'alerted no "would do"'}.`,
        );
      } else if (actions.length === 0) {
        ok = false;
        out.push('FAIL: remediation on, and no action was alerted.');
      }
    }
    out.push(`Demo ran ${((Date.now() - began) / 1000).toFixed(1)} s. Other scenarios: npm start -- --help`);
    process.stdout.write(`${out.join('\n')}\n`);
    ctx.eks.destroy();
    ctx.iam.destroy();
    return ok ? 0 : 1;
  } finally {
    for (const close of closers) close();
    await state?.close();
    await sandbox.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    // The bundles' SDK clients keep sockets alive; the demo is done.
    setTimeout(() => process.exit(code), 200).unref();
  },
  (error: unknown) => {
    process.stderr.write(
      `incident demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(3);
  },
);
