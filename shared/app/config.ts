/**
 * Configuration of the serverless monitor, from the Lambda environment (`SENTINEL_*`).
 *
 * `loadConfig(env)` is pure (it reads only the object it is given), validates with zod, rejects
 * unknown `SENTINEL_*` keys (a typo would otherwise be a silently ignored setting) and reports
 * every problem at once in one `ConfigError`. Required values have no default; optional ones
 * have the documented defaults of `CONFIG_VARIABLES` (the README's Deploy table is checked
 * against it by a test).
 */

import { isRegionCode, SEVERITIES, type Severity } from '../core/model.ts';
import * as z from '../core/zod-mini.ts';
import { ConfigError } from './errors.ts';

export const CONFIG_PREFIX = 'SENTINEL_';

/** Documentation of every variable: the README's Deploy table lists each of them. */
export const CONFIG_VARIABLES = {
  SENTINEL_REGIONS: {
    required: true,
    doc: 'Comma-separated AWS Regions whose clusters are watched, e.g. `eu-west-1,us-east-1`.',
  },
  SENTINEL_TABLE_NAME: { required: true, doc: 'DynamoDB table of alert state and idempotency keys.' },
  SENTINEL_BUCKET_NAME: { required: true, doc: 'S3 bucket of the snapshot documents.' },
  SENTINEL_QUEUE_URL: { required: true, doc: 'SQS work queue URL (scheduler → worker, follow-ups).' },
  SENTINEL_TOPIC_ARN: { required: true, doc: 'SNS topic ARN of the alerts.' },
  SENTINEL_SLACK_WEBHOOK_PARAMETER: {
    required: true,
    doc: 'SSM SecureString parameter name (starting with `/`) holding the Slack webhook URL, or `disabled`.',
  },
  SENTINEL_SLACK_BOT_TOKEN_PARAMETER: {
    required: false,
    default: 'disabled',
    doc: 'SSM SecureString parameter name holding a Slack bot token (`xoxb-…`, scope `chat:write`), or `disabled`: alerts then thread and edit in place (needs `SENTINEL_SLACK_CHANNEL`; instead of the webhook).',
  },
  SENTINEL_SLACK_CHANNEL: {
    required: false,
    default: '',
    doc: 'Slack channel ID (`C0123456789`) the bot token posts to.',
  },
  SENTINEL_SLACK_API_URL: {
    required: false,
    default: 'https://slack.com/api',
    doc: 'Slack Web API base URL (the sandbox serves its own).',
  },
  SENTINEL_MONITOR_PRINCIPAL_ARN: {
    required: true,
    doc: "The function's own IAM role ARN: a change that would lock the monitor out is a finding.",
  },
  SENTINEL_SCHEDULE_RATE: {
    required: false,
    default: 'rate(5 minutes)',
    doc: 'EventBridge schedule of the scheduler (`rate(N minutes|hours)` or `cron(...)`).',
  },
  SENTINEL_MIN_SEVERITY_SNS: {
    required: false,
    default: 'medium',
    doc: `Least severity sent to SNS (${SEVERITIES.join(', ')}).`,
  },
  SENTINEL_MIN_SEVERITY_SLACK: {
    required: false,
    default: 'high',
    doc: `Least severity sent to Slack (${SEVERITIES.join(', ')}).`,
  },
  SENTINEL_FOLLOW_UP_DELAY_SECONDS: {
    required: false,
    default: '60',
    doc: 'Delay of each follow-up re-check after an event, seconds (1–900, the SQS limit).',
  },
  SENTINEL_FOLLOW_UP_MAX_ATTEMPTS: {
    required: false,
    default: '15',
    doc: 'Follow-up re-checks before giving up on a change that does not settle (1–100).',
  },
  SENTINEL_CAPTURE_CONCURRENCY: {
    required: false,
    default: '3',
    doc: 'Clusters captured at once by an all-cluster report (1–20).',
  },
  SENTINEL_IDEMPOTENCY_TTL_SECONDS: {
    required: false,
    default: '86400',
    doc: 'How long a CloudTrail eventID is remembered (EventBridge retries for up to 24 h).',
  },
  SENTINEL_AWS_AUTH_RECHECK_QUEUE_URL: {
    required: false,
    default: '',
    doc: 'awsAuthCheck: the SQS queue of its second check per minute (empty: one check per schedule tick).',
  },
  SENTINEL_AWS_AUTH_RECHECK_SECONDS: {
    required: false,
    default: '30',
    doc: 'awsAuthCheck: delay of the second check after the scheduled one, seconds (1–59).',
  },
  SENTINEL_AWS_AUTH_WATCH_SECONDS: {
    required: false,
    default: '330',
    doc: 'awsAuthWatch (continuous mode): how long one invocation holds the watches, seconds (60–870).',
  },
  SENTINEL_REMEDIATION: {
    required: false,
    default: 'off',
    doc: 'Opt-in prevention: `off`, `dry-run` (alerts what it would do, writes nothing) or `on` (creates the node access entry a node group deletion would take away, restores removed aws-auth entries running compute depends on). `on` needs the deployment parameter `remediation=on` (its IAM statement) and, for aws-auth, infra/kubernetes/remediation-role.yaml.',
  },
  SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR: {
    required: false,
    default: '10',
    doc: 'Remediation writes per cluster per hour at most (1–100); further actions are alerted as not done.',
  },
} as const satisfies Record<string, { required: boolean; default?: string; doc: string }>;

export type ConfigVariable = keyof typeof CONFIG_VARIABLES;

export interface ChannelSettings {
  minSeverity: Severity;
}

export interface SentinelConfig {
  regions: string[];
  tableName: string;
  bucketName: string;
  queueUrl: string;
  topicArn: string;
  /** SSM parameter name of the Slack webhook URL; undefined when Slack is disabled. */
  slackWebhookParameter: string | undefined;
  /** Bot-token mode (instead of the webhook): the token's SSM parameter, the channel ID and the API URL. */
  slackBot?: { tokenParameter: string; channel: string; apiUrl: string };
  monitorPrincipalArn: string;
  scheduleRate: string;
  channels: { sns: ChannelSettings; slack?: ChannelSettings };
  followUpDelaySeconds: number;
  followUpMaxAttempts: number;
  captureConcurrency: number;
  idempotencyTtlSeconds: number;
  /** awsAuthCheck's second check per minute: its queue (undefined: none) and delay. */
  awsAuthRecheck?: { queueUrl: string; delaySeconds: number };
  /** awsAuthWatch: the window of one invocation, seconds. */
  awsAuthWatchSeconds: number;
  remediation: RemediationMode;
  remediationMaxActionsPerHour: number;
}

export type RemediationMode = 'off' | 'dry-run' | 'on';
const REMEDIATION_MODES: readonly RemediationMode[] = ['off', 'dry-run', 'on'];

const required = (what: string) =>
  z.string({ error: `required: ${what}` }).check(z.trim(), z.minLength(1, `required: ${what}`));

const optionalText = () => z.optional(z.string());

const integer = (name: ConfigVariable, min: number, max: number) =>
  z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text =
        v === undefined || v.trim() === '' ? (CONFIG_VARIABLES[name] as { default: string }).default : v;
      const n = Number(text);
      if (!Number.isInteger(n) || n < min || n > max) {
        z.addIssue(ctx, `expected an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
        return z.NEVER;
      }
      return n;
    }),
  );

const severity = (name: ConfigVariable) =>
  z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text =
        v === undefined || v.trim() === ''
          ? (CONFIG_VARIABLES[name] as { default: string }).default
          : v.trim();
      if (!(SEVERITIES as readonly string[]).includes(text)) {
        z.addIssue(ctx, `expected one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(v)}`);
        return z.NEVER;
      }
      return text as Severity;
    }),
  );

/**
 * The functions' role (and its permissions boundary, infra/iam/function-boundary-policy.json) may
 * read SSM parameters only under /eks-auth-sentinel/: a name elsewhere would deploy and then fail
 * at the first alert with AccessDenied, so it is refused here.
 */
const SENTINEL_PARAMETER = /^\/eks-auth-sentinel\/[\w.\-/]+$/;
const schema = z.object({
  SENTINEL_REGIONS: z.pipe(
    required('comma-separated Regions'),
    z.transform((v: string, ctx) => {
      const regions = [
        ...new Set(
          v
            .split(',')
            .map((r) => r.trim())
            .filter((r) => r !== ''),
        ),
      ];
      const bad = regions.filter((r) => !isRegionCode(r));
      if (regions.length === 0) z.addIssue(ctx, 'no Region given');
      if (bad.length > 0) z.addIssue(ctx, `not a Region: ${bad.join(', ')}`);
      return regions;
    }),
  ),
  SENTINEL_TABLE_NAME: required('DynamoDB table name').check(
    z.regex(/^[\w.-]{3,255}$/, 'not a DynamoDB table name'),
  ),
  SENTINEL_BUCKET_NAME: required('S3 bucket name').check(
    z.regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'not an S3 bucket name'),
  ),
  SENTINEL_QUEUE_URL: required('SQS queue URL').check(
    z.regex(/^https?:\/\/\S+\/\d{12}\/[\w-]+(\.fifo)?$/, 'not an SQS queue URL'),
  ),
  SENTINEL_TOPIC_ARN: required('SNS topic ARN').check(
    z.regex(/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]+$/, 'not an SNS topic ARN'),
  ),
  SENTINEL_SLACK_WEBHOOK_PARAMETER: required('SSM parameter name or "disabled"').check(
    z.refine(
      (v: string) => v === 'disabled' || SENTINEL_PARAMETER.test(v),
      'expected an SSM parameter name under /eks-auth-sentinel/ (e.g. /eks-auth-sentinel/slack-webhook; the functions may read only there) or "disabled"',
    ),
  ),
  SENTINEL_SLACK_BOT_TOKEN_PARAMETER: z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text = v === undefined || v.trim() === '' ? 'disabled' : v.trim();
      if (text !== 'disabled' && !SENTINEL_PARAMETER.test(text)) {
        z.addIssue(
          ctx,
          'expected an SSM parameter name under /eks-auth-sentinel/ (e.g. /eks-auth-sentinel/slack-bot-token; the functions may read only there) or "disabled"',
        );
        return z.NEVER;
      }
      return text;
    }),
  ),
  SENTINEL_SLACK_CHANNEL: z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text = v?.trim() ?? '';
      if (text !== '' && !/^[CGD][A-Z0-9]{6,20}$/.test(text)) {
        z.addIssue(
          ctx,
          `expected a Slack channel ID such as C0123456789 (not a #name), got ${JSON.stringify(v)}`,
        );
        return z.NEVER;
      }
      return text;
    }),
  ),
  SENTINEL_SLACK_API_URL: z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text =
        v === undefined || v.trim() === '' ? CONFIG_VARIABLES.SENTINEL_SLACK_API_URL.default : v.trim();
      if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(text)) {
        z.addIssue(ctx, `expected an http(s) URL, got ${JSON.stringify(v)}`);
        return z.NEVER;
      }
      return text;
    }),
  ),
  SENTINEL_MONITOR_PRINCIPAL_ARN: required('IAM role ARN of the monitor').check(
    z.regex(/^arn:aws[\w-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'not an IAM role ARN'),
  ),
  SENTINEL_SCHEDULE_RATE: z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text =
        v === undefined || v.trim() === '' ? CONFIG_VARIABLES.SENTINEL_SCHEDULE_RATE.default : v.trim();
      if (!/^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\(.+\))$/.test(text)) {
        z.addIssue(ctx, `expected rate(N minutes) or cron(...), got ${JSON.stringify(v)}`);
        return z.NEVER;
      }
      return text;
    }),
  ),
  SENTINEL_MIN_SEVERITY_SNS: severity('SENTINEL_MIN_SEVERITY_SNS'),
  SENTINEL_MIN_SEVERITY_SLACK: severity('SENTINEL_MIN_SEVERITY_SLACK'),
  SENTINEL_FOLLOW_UP_DELAY_SECONDS: integer('SENTINEL_FOLLOW_UP_DELAY_SECONDS', 1, 900),
  SENTINEL_FOLLOW_UP_MAX_ATTEMPTS: integer('SENTINEL_FOLLOW_UP_MAX_ATTEMPTS', 1, 100),
  SENTINEL_CAPTURE_CONCURRENCY: integer('SENTINEL_CAPTURE_CONCURRENCY', 1, 20),
  SENTINEL_IDEMPOTENCY_TTL_SECONDS: integer('SENTINEL_IDEMPOTENCY_TTL_SECONDS', 60, 7 * 86400),
  SENTINEL_AWS_AUTH_RECHECK_QUEUE_URL: z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text = v?.trim() ?? '';
      if (text !== '' && !/^https?:\/\/\S+$/.test(text)) {
        z.addIssue(ctx, `expected an SQS queue URL, got ${JSON.stringify(v)}`);
        return z.NEVER;
      }
      return text;
    }),
  ),
  SENTINEL_AWS_AUTH_RECHECK_SECONDS: integer('SENTINEL_AWS_AUTH_RECHECK_SECONDS', 1, 59),
  SENTINEL_AWS_AUTH_WATCH_SECONDS: integer('SENTINEL_AWS_AUTH_WATCH_SECONDS', 60, 870),
  SENTINEL_REMEDIATION: z.pipe(
    optionalText(),
    z.transform((v: string | undefined, ctx) => {
      const text = v === undefined || v.trim() === '' ? 'off' : v.trim();
      if (!(REMEDIATION_MODES as readonly string[]).includes(text)) {
        z.addIssue(ctx, `expected one of ${REMEDIATION_MODES.join(', ')}, got ${JSON.stringify(v)}`);
        return z.NEVER;
      }
      return text as RemediationMode;
    }),
  ),
  SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR: integer('SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR', 1, 100),
});

/** Reads `SENTINEL_*` from `env`; throws one `ConfigError` listing every problem. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): SentinelConfig {
  const problems: string[] = [];
  const known = new Set<string>(Object.keys(CONFIG_VARIABLES));
  for (const key of Object.keys(env).sort()) {
    if (key.startsWith(CONFIG_PREFIX) && !known.has(key)) {
      problems.push(`${key}: unknown variable (known: ${[...known].join(', ')})`);
    }
  }
  const input: Record<string, string | undefined> = {};
  for (const key of known) input[key] = env[key];
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.') || '(config)'}: ${issue.message}`);
    }
  }
  if (parsed.success) {
    const bot = parsed.data.SENTINEL_SLACK_BOT_TOKEN_PARAMETER !== 'disabled';
    if (bot && parsed.data.SENTINEL_SLACK_WEBHOOK_PARAMETER !== 'disabled') {
      problems.push(
        'SENTINEL_SLACK_BOT_TOKEN_PARAMETER: set either it or SENTINEL_SLACK_WEBHOOK_PARAMETER, not both (the other "disabled")',
      );
    }
    if (bot && parsed.data.SENTINEL_SLACK_CHANNEL === '') {
      problems.push(
        'SENTINEL_SLACK_CHANNEL: required with SENTINEL_SLACK_BOT_TOKEN_PARAMETER (a channel ID, C…)',
      );
    }
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const v = parsed.data;
  const botParameter =
    v.SENTINEL_SLACK_BOT_TOKEN_PARAMETER === 'disabled' ? undefined : v.SENTINEL_SLACK_BOT_TOKEN_PARAMETER;
  const slackParameter =
    v.SENTINEL_SLACK_WEBHOOK_PARAMETER === 'disabled' ? undefined : v.SENTINEL_SLACK_WEBHOOK_PARAMETER;
  const slackOn = slackParameter !== undefined || botParameter !== undefined;
  return {
    regions: v.SENTINEL_REGIONS,
    tableName: v.SENTINEL_TABLE_NAME,
    bucketName: v.SENTINEL_BUCKET_NAME,
    queueUrl: v.SENTINEL_QUEUE_URL,
    topicArn: v.SENTINEL_TOPIC_ARN,
    slackWebhookParameter: slackParameter,
    ...(botParameter === undefined
      ? {}
      : {
          slackBot: {
            tokenParameter: botParameter,
            channel: v.SENTINEL_SLACK_CHANNEL,
            apiUrl: v.SENTINEL_SLACK_API_URL,
          },
        }),
    monitorPrincipalArn: v.SENTINEL_MONITOR_PRINCIPAL_ARN,
    scheduleRate: v.SENTINEL_SCHEDULE_RATE,
    channels: {
      sns: { minSeverity: v.SENTINEL_MIN_SEVERITY_SNS },
      ...(slackOn ? { slack: { minSeverity: v.SENTINEL_MIN_SEVERITY_SLACK } } : {}),
    },
    followUpDelaySeconds: v.SENTINEL_FOLLOW_UP_DELAY_SECONDS,
    followUpMaxAttempts: v.SENTINEL_FOLLOW_UP_MAX_ATTEMPTS,
    captureConcurrency: v.SENTINEL_CAPTURE_CONCURRENCY,
    idempotencyTtlSeconds: v.SENTINEL_IDEMPOTENCY_TTL_SECONDS,
    ...(v.SENTINEL_AWS_AUTH_RECHECK_QUEUE_URL === ''
      ? {}
      : {
          awsAuthRecheck: {
            queueUrl: v.SENTINEL_AWS_AUTH_RECHECK_QUEUE_URL,
            delaySeconds: v.SENTINEL_AWS_AUTH_RECHECK_SECONDS,
          },
        }),
    awsAuthWatchSeconds: v.SENTINEL_AWS_AUTH_WATCH_SECONDS,
    remediation: v.SENTINEL_REMEDIATION,
    remediationMaxActionsPerHour: v.SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR,
  };
}
