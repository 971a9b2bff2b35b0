import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../shared/app/config.ts';
import { ConfigError } from '../../shared/app/errors.ts';

const VALID_ENV = {
  SENTINEL_REGIONS: 'eu-west-1, us-east-1',
  SENTINEL_TABLE_NAME: 'eks-auth-sentinel-prod',
  SENTINEL_BUCKET_NAME: 'eks-auth-sentinel-prod-snapshots',
  SENTINEL_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/111122223333/eks-auth-sentinel-prod-work',
  SENTINEL_TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:eks-auth-sentinel-prod-alerts',
  SENTINEL_SLACK_WEBHOOK_PARAMETER: '/eks-auth-sentinel/slack-webhook',
  SENTINEL_MONITOR_PRINCIPAL_ARN: 'arn:aws:iam::111122223333:role/eks-auth-sentinel-prod-worker',
};

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('reads a complete environment, with the documented defaults for the optional values', () => {
    const config = loadConfig({ ...VALID_ENV, PATH: '/usr/bin' });
    expect(config.regions).toEqual(['eu-west-1', 'us-east-1']);
    expect(config.channels).toEqual({ sns: { minSeverity: 'medium' }, slack: { minSeverity: 'high' } });
    expect(config.followUpDelaySeconds).toBe(60);
    expect(config.followUpMaxAttempts).toBe(15);
    expect(config.scheduleRate).toBe('rate(5 minutes)');
    expect(config.slackWebhookParameter).toBe('/eks-auth-sentinel/slack-webhook');
  });

  it('remediation is off unless set to dry-run or on, with at most N actions per cluster per hour', () => {
    expect(loadConfig(VALID_ENV)).toMatchObject({ remediation: 'off', remediationMaxActionsPerHour: 10 });
    expect(
      loadConfig({
        ...VALID_ENV,
        SENTINEL_REMEDIATION: 'dry-run',
        SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR: '3',
      }),
    ).toMatchObject({ remediation: 'dry-run', remediationMaxActionsPerHour: 3 });
    expect(
      problemsOf({
        ...VALID_ENV,
        SENTINEL_REMEDIATION: 'yes',
        SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR: '0',
      }),
    ).toEqual([
      'SENTINEL_REMEDIATION: expected one of off, dry-run, on, got "yes"',
      'SENTINEL_REMEDIATION_MAX_ACTIONS_PER_HOUR: expected an integer from 1 to 100, got "0"',
    ]);
  });

  it('accepts every shape of AWS Region code, GovCloud and two-digit numbers included', () => {
    const config = loadConfig({
      ...VALID_ENV,
      SENTINEL_REGIONS: 'us-gov-west-1,ap-southeast-10,eusc-de-east-1',
    });
    expect(config.regions).toEqual(['us-gov-west-1', 'ap-southeast-10', 'eusc-de-east-1']);
  });

  it('reports every problem at once: missing required values, bad values and unknown SENTINEL_ keys', () => {
    const problems = problemsOf({
      SENTINEL_REGIONS: 'eu-west-1,mars-north-9x',
      SENTINEL_MIN_SEVERITY_SLACK: 'urgent',
      SENTINEL_FOLLOW_UP_DELAY_SECONDS: '901',
      SENTINEL_TOPIC: 'typo',
    });
    const text = problems.join('\n');
    for (const key of [
      'SENTINEL_REGIONS',
      'SENTINEL_TABLE_NAME',
      'SENTINEL_BUCKET_NAME',
      'SENTINEL_QUEUE_URL',
      'SENTINEL_TOPIC_ARN',
      'SENTINEL_SLACK_WEBHOOK_PARAMETER',
      'SENTINEL_MONITOR_PRINCIPAL_ARN',
      'SENTINEL_MIN_SEVERITY_SLACK',
      'SENTINEL_FOLLOW_UP_DELAY_SECONDS',
      'SENTINEL_TOPIC: unknown variable',
    ]) {
      expect(text).toContain(key);
    }
  });

  it('Slack can be disabled explicitly, never by leaving the value out', () => {
    const config = loadConfig({ ...VALID_ENV, SENTINEL_SLACK_WEBHOOK_PARAMETER: 'disabled' });
    expect(config.slackWebhookParameter).toBeUndefined();
    expect(config.channels.slack).toBeUndefined();
    const { SENTINEL_SLACK_WEBHOOK_PARAMETER: _omitted, ...rest } = VALID_ENV;
    expect(problemsOf(rest).join()).toContain('SENTINEL_SLACK_WEBHOOK_PARAMETER');
  });

  it('takes a Slack bot token with its channel instead of the webhook, and refuses both or no channel', () => {
    const bot = {
      ...VALID_ENV,
      SENTINEL_SLACK_WEBHOOK_PARAMETER: 'disabled',
      SENTINEL_SLACK_BOT_TOKEN_PARAMETER: '/eks-auth-sentinel/slack-bot-token',
      SENTINEL_SLACK_CHANNEL: 'C0123456789',
    };
    const config = loadConfig(bot);
    expect(config.slackBot).toEqual({
      tokenParameter: '/eks-auth-sentinel/slack-bot-token',
      channel: 'C0123456789',
      apiUrl: 'https://slack.com/api',
    });
    expect(config.slackWebhookParameter).toBeUndefined();
    expect(config.channels.slack).toEqual({ minSeverity: 'high' });
    expect(loadConfig(VALID_ENV).slackBot).toBeUndefined();
    expect(
      problemsOf({ ...bot, SENTINEL_SLACK_WEBHOOK_PARAMETER: '/eks-auth-sentinel/slack-webhook' }),
    ).toEqual([
      'SENTINEL_SLACK_BOT_TOKEN_PARAMETER: set either it or SENTINEL_SLACK_WEBHOOK_PARAMETER, not both (the other "disabled")',
    ]);
    expect(problemsOf({ ...bot, SENTINEL_SLACK_CHANNEL: undefined })).toEqual([
      'SENTINEL_SLACK_CHANNEL: required with SENTINEL_SLACK_BOT_TOKEN_PARAMETER (a channel ID, C…)',
    ]);
    expect(problemsOf({ ...bot, SENTINEL_SLACK_CHANNEL: '#alerts' }).join()).toContain(
      'expected a Slack channel ID',
    );
    expect(problemsOf({ ...bot, SENTINEL_SLACK_BOT_TOKEN_PARAMETER: 'xoxb-1-2-3' }).join()).toContain(
      'expected an SSM parameter name',
    );
    expect(problemsOf({ ...bot, SENTINEL_SLACK_BOT_TOKEN_PARAMETER: 'xoxb-1-2-3' }).join()).not.toContain(
      'xoxb-1-2-3',
    );
  });

  it('refuses a Slack parameter outside /eks-auth-sentinel/, which the functions could not read', () => {
    for (const name of [
      '/sentinel/slack-webhook',
      '/eks-auth-sentinel',
      '/eks-auth-sentinel-x/hook',
      '/other/eks-auth-sentinel/hook',
    ]) {
      expect(problemsOf({ ...VALID_ENV, SENTINEL_SLACK_WEBHOOK_PARAMETER: name }).join(), name).toContain(
        'under /eks-auth-sentinel/',
      );
    }
    expect(
      problemsOf({ ...VALID_ENV, SENTINEL_SLACK_WEBHOOK_PARAMETER: '/eks-auth-sentinel/team/hook' }),
    ).toEqual([]);
  });

  it('documents a default for every optional variable', () => {
    for (const [key, spec] of Object.entries(CONFIG_VARIABLES)) {
      if (!spec.required) expect(spec, key).toHaveProperty('default');
    }
  });
});
