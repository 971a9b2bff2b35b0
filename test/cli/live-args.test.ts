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

describe('parseCommandLine: live options', () => {
  it('takes --cluster NAME --region R instead of --snapshot FILE for assess and whatif', () => {
    expect(parseCommandLine(['assess', '--cluster', 'prod', '--region', 'eu-west-1'])).toMatchObject({
      kind: 'assess',
      source: { kind: 'live', clusterName: 'prod', region: 'eu-west-1' },
    });
    expect(parseCommandLine(['whatif', '--snapshot', 'f.json', '--auth-mode', 'API'])).toMatchObject({
      kind: 'whatif',
      source: { kind: 'file', path: 'f.json' },
    });
    expect(usageError(['assess', '--snapshot', 'f.json', '--cluster', 'prod'])).toMatch(/not both/);
    expect(usageError(['assess'])).toMatch(/needs --snapshot FILE or --cluster NAME/);
  });

  it('defaults the Region to AWS_REGION, then AWS_DEFAULT_REGION, and checks it', () => {
    expect(parseCommandLine(['report'], { AWS_DEFAULT_REGION: 'us-east-1' })).toMatchObject({
      regions: ['us-east-1'],
    });
    expect(
      parseCommandLine(['report'], { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'us-east-1' }),
    ).toMatchObject({ regions: ['eu-west-1'] });
    expect(parseCommandLine(['report', '--region', 'eu-west-1,us-east-2,eu-west-1'])).toMatchObject({
      regions: ['eu-west-1', 'us-east-2'],
      clusterName: undefined,
      concurrency: 4,
    });
    expect(usageError(['report'])).toMatch(/needs --region/);
    expect(usageError(['report', '--region', 'eu-west-1;rm'])).toMatch(/AWS Region codes/);
    expect(usageError(['report', '--cluster', 'prod', '--region', 'eu-west-1,us-east-1'])).toMatch(
      /exactly one Region/,
    );
  });

  it('snapshot takes exactly one of --cluster and --all, and --out only for one cluster', () => {
    expect(parseCommandLine(['snapshot', '--cluster', 'prod', '--region', 'eu-west-1'])).toMatchObject({
      kind: 'snapshot',
      destination: { kind: 'store', dir: undefined },
    });
    expect(
      parseCommandLine(['snapshot', '--all', '--region', 'eu-west-1,us-east-1', '--store', 'd']),
    ).toMatchObject({
      clusterName: undefined,
      regions: ['eu-west-1', 'us-east-1'],
      destination: { dir: 'd' },
    });
    expect(usageError(['snapshot', '--region', 'eu-west-1'])).toMatch(
      /exactly one of --cluster NAME and --all/,
    );
    expect(usageError(['snapshot', '--all', '--cluster', 'x', '--region', 'eu-west-1'])).toMatch(
      /exactly one/,
    );
    expect(usageError(['snapshot', '--all', '--region', 'eu-west-1', '--out', 'f.json'])).toMatch(
      /--store DIR/,
    );
    expect(
      usageError(['snapshot', '--cluster', 'x', '--region', 'eu-west-1', '--out', 'f', '--store', 'd']),
    ).toMatch(/not both/);
    expect(usageError(['report', '--region', 'eu-west-1', '--concurrency', '0'])).toMatch(/--concurrency/);
    expect(usageError(['report', '--region', 'eu-west-1', '--store', 'd'])).toMatch(
      /does not apply to report/,
    );
  });

  it('documents the live commands and their exit codes in --help', async () => {
    const fake = createFakeIo();
    expect(await runCli(['report', '--help'], fake.io)).toBe(0);
    expect(fake.out()).toContain('2 when a cluster or Region could not be read at all');
    const usage = createFakeIo();
    await runCli(['--help'], usage.io);
    expect(usage.out()).toContain('eks-auth-sentinel snapshot');
    expect(usage.out()).toContain('AWS_ENDPOINT_URL_EKS');
  });
});
