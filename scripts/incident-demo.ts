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
const SIDE_EFFECT_DELAY_MS = 3_000;
const NOT_READY_DELAY_MS = 3_000;
const LATENCY_MS = 20;
/** The follow-up re-check comes after the damage, so that it confirms it. */
const FOLLOW_UP_DELAY_SECONDS = Math.ceil((SIDE_EFFECT_DELAY_MS + NOT_READY_DELAY_MS) / 1000) + 1;

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
      await ctx.scheduledRun('next scheduled run (in AWS: within the schedule rate, default 5 minutes)');
    },
    damage: /Ready=Unknown/,
    damageLabel: 'the first Fargate node went NotReady',
    severity: 'critical',
  },
  {
    id: 'c',
    file: 'c-yaml-slip-in-maproles',
    title: 'A YAML slip in mapRoles (kubectl edit), caught by the next scheduled run',
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
      await ctx.scheduledRun('next scheduled run (in AWS: within the schedule rate, default 5 minutes)');
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

function usage(): string {
  return [
    'Usage: npm start [-- --scenario ID] [--verbose]',
    '',
    'The incident demo: the sandbox account, the real Lambda bundles of dist/functions invoked as',
    'Lambda invokes them, and a timeline of the incident. Exits 1 when an alert did not arrive',
    'before the damage (d, f: when it did not arrive at all; the access is lost at the call there).',
    '',
    'Scenarios:',
    ...SCENARIOS.map((s) => `  ${s.id}  ${s.title}${s.id === 'a' ? ' (default)' : ''}`),
    '',
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
  const needed: FunctionName[] = ['scheduler', 'snapshotWorker', 'onEksEvent'];
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
  return parseArgs({
    options: {
      scenario: { type: 'string', default: 'a' },
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
  const scenario = SCENARIOS.find((s) => s.id === values.scenario || s.file === values.scenario);
  if (scenario === undefined) {
    process.stderr.write(`unknown scenario ${values.scenario}\n\n${usage()}\n`);
    return 2;
  }
  const functionsDir = values.functions ?? join(ROOT, 'dist', 'functions');
  if (values.functions === undefined) ensureBundles(functionsDir);
  const began = Date.now();
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const file = loadScenarioSnapshot(scenario.file);
  const snapshot = scenario.seed ? scenario.seed(file) : file;
  const { accountId, region, clusterName } = snapshot;

  const sandbox = await startSandbox({
    clusters: [{ snapshot }],
    latencyMs: LATENCY_MS,
    sideEffectDelayMs: SIDE_EFFECT_DELAY_MS,
    notReadyDelayMs: NOT_READY_DELAY_MS,
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
    const lambdaEnv = lambdaEnvironment(sandbox, st, {
      accountId,
      region,
      verbose: values.verbose,
      followUpDelaySeconds: FOLLOW_UP_DELAY_SECONDS,
    });
    const functions = new Map<FunctionName, LocalFunction>();
    /** Set when the last invocation started its function (a cold start): the module init, ms. */
    let coldInitMs: number | undefined;
    const invoke = async (fn: FunctionName, event: unknown): Promise<unknown> => {
      let running = functions.get(fn);
      coldInitMs = undefined;
      if (running === undefined) {
        running = await startFunction(functionsDir, fn, lambdaEnv, {
          accountId,
          region,
          showLogs: values.verbose,
        });
        functions.set(fn, running);
        coldInitMs = running.initMs;
      }
      return (await running.invoke(event)).result;
    };
    closers.push(() => {
      for (const f of functions.values()) f.close();
    });

    const entries: Entry[] = [];
    let incidentAt: number | undefined;
    const note = (what: string, lines: string[] = []): void => {
      entries.push({ at: Date.now(), what, lines });
    };
    const queueArn = `arn:aws:sqs:${region}:${accountId}:eks-auth-sentinel-work`;
    /** Delivers the queued messages whose delay has passed to the worker, one SQS batch. */
    const deliverDue = async (label: (m: QueuedMessage) => string): Promise<number> => {
      const now = Date.now();
      const due = st.queue.filter((m) => m.sentAt + m.delaySeconds * 1000 <= now);
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
    process.stdout.write(
      `Incident demo (${scenario.id}): ${scenario.title}\nSandbox account ${accountId}, cluster ${clusterName} in ${region}; EKS acts ${SIDE_EFFECT_DELAY_MS / 1000} s after a call, nodes that lost access go NotReady ${NOT_READY_DELAY_MS / 1000} s later; ${scenario.sandboxNote === undefined ? '' : `${scenario.sandboxNote}; `}${LATENCY_MS} ms per AWS call.\n\n`,
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

    // 2–3. The incident and the event path.
    await scenario.act(ctx);
    const t0 = incidentAt ?? Date.now();

    // 4. Follow-ups, until the damage happened and nothing is queued (bounded).
    const deadline = Date.now() + FOLLOW_UP_DELAY_SECONDS * 1000 + 6_000;
    const damaged = () => sandbox.timeline.slice(timelineStart).some((e) => scenario.damage.test(e.what));
    while (Date.now() < deadline && (st.queue.length > 0 || !damaged())) {
      await deliverDue(itemLabel);
      await new Promise((r) => setTimeout(r, 50));
    }

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
    if (damage === undefined) {
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
    const counts = countCheck(firstAlert ? renderSlackMessage(firstAlert.body) : [], sandboxLines);
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
