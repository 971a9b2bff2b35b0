import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DeliveryError,
  EventProcessingError,
  ReportRequestError,
  ScheduleError,
} from '../../shared/app/errors.ts';
import { CliError } from '../../shared/cli/errors.ts';
import { SimulationError } from '../../shared/core/predict/simulate.ts';
import {
  AwsApiError,
  CollectionError,
  ConcurrentUpdateError,
  KubernetesApiError,
  MonitorIoError,
  QueueSendError,
  redactSecrets,
  SecretReadError,
  SentinelError,
  safeErrorMessage,
  TlsVerificationError,
  TokenError,
} from '../../shared/errors.ts';

const collection = { code: 'forbidden', service: 'eks', operation: 'DescribeCluster' } as const;
const kube = { ...collection, service: 'kubernetes', verb: 'get', resource: 'configmaps' } as const;
const io = { code: 'conflict', service: 'dynamodb', operation: 'PutItem', resource: 't pk/sk' } as const;

describe('the error hierarchy', () => {
  const cause = new Error('the SDK said no');
  const cases: Array<[SentinelError, string, string]> = [
    [new CollectionError('m', collection), 'CollectionError', 'forbidden'],
    [new AwsApiError('m', { ...collection, iamAction: 'eks:DescribeCluster' }), 'AwsApiError', 'forbidden'],
    [new KubernetesApiError('m', kube), 'KubernetesApiError', 'forbidden'],
    [new TlsVerificationError('m', kube), 'TlsVerificationError', 'forbidden'],
    [new TokenError('m', { ...collection, service: 'sts' }), 'TokenError', 'forbidden'],
    [new MonitorIoError('m', io), 'MonitorIoError', 'conflict'],
    [new ConcurrentUpdateError('m', io), 'ConcurrentUpdateError', 'conflict'],
    [new SecretReadError('m', { ...io, code: 'not-found', service: 'ssm' }), 'SecretReadError', 'not-found'],
    [
      new QueueSendError('m', { ...io, code: 'partial-failure', failed: [] }),
      'QueueSendError',
      'partial-failure',
    ],
    [new ConfigError(['required: x']), 'ConfigError', 'invalid-config'],
    [new ReportRequestError('m'), 'ReportRequestError', 'invalid-request'],
    [new SimulationError('m'), 'SimulationError', 'invalid-change'],
    [new CliError('m'), 'CliError', 'usage'],
    [new EventProcessingError('m', { cause }), 'EventProcessingError', 'event-failed'],
    [
      new ScheduleError('m', { enqueued: 0, clusters: [], failedRegions: [] }),
      'ScheduleError',
      'schedule-incomplete',
    ],
    [
      new DeliveryError('m', {
        cluster: {
          accountId: '111122223333',
          region: 'eu-west-1',
          clusterName: 'prod',
        } as DeliveryError['cluster'],
        exhausted: {},
        summary: { sent: 0, failed: 0, pending: 1, errors: {} },
      }),
      'DeliveryError',
      'delivery-exhausted',
    ],
  ];

  it.each(cases)('%s has a stable name and code and is a SentinelError', (error, name, code) => {
    expect(error).toBeInstanceOf(SentinelError);
    expect(error).toBeInstanceOf(Error);
    // An own string, not constructor.name: it survives minification.
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
  });

  it('keeps the cause, and sets none when none is given', () => {
    expect(new MonitorIoError('m', { ...io, cause }).cause).toBe(cause);
    expect('cause' in new MonitorIoError('m', io)).toBe(false);
  });

  it('never carries a token in a message', () => {
    const error = new ReportRequestError('bad header Bearer abc.def and k8s-aws-v1.aHR0cHM6');
    expect(error.message).toBe('bad header Bearer <redacted> and k8s-aws-v1.<redacted>');
  });
});

describe('redactSecrets', () => {
  it('removes Slack tokens (xoxb- and the other kinds), in a header or alone, and a known token verbatim', () => {
    expect(redactSecrets('authorization: Bearer xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp')).toBe(
      'authorization: Bearer <redacted>',
    );
    expect(redactSecrets('token=xoxb-1-2-abc, user xoxp-9-z, app xapp-1-A1-x')).toBe(
      'token=xoxb-<redacted>, user xoxp-<redacted>, app xapp-<redacted>',
    );
    expect(redactSecrets('echo secret-value-123 back', { token: 'secret-value-123' })).toBe(
      'echo <token> back',
    );
  });

  it('removes EKS tokens, bearer headers, presigned credentials and webhook URLs', () => {
    expect(
      redactSecrets(
        'k8s-aws-v1.aHR0cHM6Ly9zdHM Bearer x.y-z https://sts.amazonaws.com/?X-Amz-Signature=abc&X-Amz-Credential=AKIA%2F',
      ),
    ).toBe(
      'k8s-aws-v1.<redacted> Bearer <redacted> https://sts.amazonaws.com/?X-Amz-Signature=<redacted>&X-Amz-Credential=<redacted>',
    );
    expect(redactSecrets('post to https://hooks.slack.com/services/T0/B0/xyz failed')).toBe(
      'post to <webhook> failed',
    );
    expect(redactSecrets('"http://127.0.0.1:9/services/T0/B0/xyz"')).toBe('"<webhook>"');
  });

  it('removes the webhook host and path without the scheme, the path alone and the token alone', () => {
    const secret = 'T0A1B2C3D/B0E4F5G6H/xYz123SecretToken456abc';
    for (const [text, want] of [
      [`502 from hooks.slack.com/services/${secret}: bad gateway`, '502 from <webhook>: bad gateway'],
      [`<p>upstream /services/${secret} timed out</p>`, '<p>upstream <webhook> timed out</p>'],
      [`path services/${secret}?x=1`, 'path <webhook>?x=1'],
      [`token=${secret};`, 'token=<webhook>;'],
      ['"HOOKS.SLACK.COM/services/T0/B0/xyz"', '"<webhook>"'],
    ] as const) {
      expect(redactSecrets(text)).toBe(want);
      expect(redactSecrets(text)).not.toContain('xYz123SecretToken456abc');
    }
  });

  it('keeps ordinary paths and ARNs that only look alike', () => {
    const text = 'GET /api/v1/services/kube-dns in arn:aws:iam::111122223333:role/T1/B2 (microservices/T1)';
    expect(redactSecrets(text)).toBe(text);
  });

  it('removes a known webhook URL verbatim even without a /services/ path', () => {
    expect(
      redactSecrets('POST http://127.0.0.1:4000/slack/hook: 500', {
        webhookUrl: 'http://127.0.0.1:4000/slack/hook',
      }),
    ).toBe('POST <webhook>: 500');
  });

  it('is what safeErrorMessage applies to foreign errors', () => {
    expect(safeErrorMessage(new TypeError('at https://hooks.slack.com/services/a/b'))).toBe(
      'TypeError: at <webhook>',
    );
    expect(safeErrorMessage(new CollectionError('DescribeCluster failed', collection))).toBe(
      'DescribeCluster failed',
    );
  });
});
