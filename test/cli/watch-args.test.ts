import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../shared/cli/args.ts';
import { CliError } from '../../shared/cli/errors.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { createFakeIo } from '../support/fake-io.ts';

function usageError(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseCommandLine(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return (error as CliError).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

const WATCH = ['watch', '--cluster', 'prod', '--region', 'eu-west-1'];

describe('parseCommandLine: watch', () => {
  it('defaults to no duration, a 30 s interval, remediation off and text', () => {
    expect(parseCommandLine(WATCH)).toMatchObject({
      kind: 'watch',
      clusterName: 'prod',
      region: 'eu-west-1',
      durationSeconds: undefined,
      intervalSeconds: 30,
      remediate: 'off',
      watchFormat: 'text',
    });
    expect(
      parseCommandLine([
        ...WATCH,
        '--duration',
        '90',
        '--interval',
        '5',
        '--remediate',
        'dry-run',
        '--format',
        'json',
      ]),
    ).toMatchObject({ durationSeconds: 90, intervalSeconds: 5, remediate: 'dry-run', watchFormat: 'json' });
    expect(parseCommandLine(['watch', '--cluster', 'prod'], { AWS_REGION: 'us-east-1' })).toMatchObject({
      region: 'us-east-1',
    });
  });

  it('refuses what it cannot honour, naming the option', () => {
    expect(usageError(['watch', '--region', 'eu-west-1'])).toMatch(/watch needs --cluster NAME --region R/);
    expect(usageError(['watch', '--cluster', 'prod'])).toMatch(/needs --region/);
    expect(usageError(['watch', '--cluster', 'prod', '--region', 'eu-west-1,us-east-1'])).toMatch(
      /exactly one Region/,
    );
    expect(usageError([...WATCH, '--remediate', 'yes'])).toBe(
      "--remediate must be one of off|dry-run|on, not 'yes'",
    );
    expect(usageError([...WATCH, '--interval', '0'])).toMatch(/--interval must be a whole number of seconds/);
    expect(usageError([...WATCH, '--duration', '1.5'])).toMatch(
      /--duration must be a whole number of seconds/,
    );
    expect(usageError([...WATCH, '--format', 'markdown'])).toMatch(/--format must be one of text\|json/);
    expect(usageError([...WATCH, '--fail-on', 'high'])).toMatch(/does not apply to watch/);
    expect(usageError(['assess', '--snapshot', 'f.json', '--interval', '5'])).toMatch(
      /does not apply to assess/,
    );
  });

  it('exits 2 saying so in a build without live collection', async () => {
    const fake = createFakeIo({}, { env: {} });
    expect(await runCli(WATCH, fake.io)).toBe(2);
    expect(fake.err()).toMatch(/^eks-auth-sentinel: live collection is not available in this build/);
    expect(fake.out()).toBe('');
  });
});
