/** Issue 10's CLI papercuts, one test each. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../shared/cli/run-cli.ts';
import { createFakeIo } from './fake-io.ts';

const KARPENTER = 'scenarios/a-karpenter-shares-last-nodegroup-role.json';

async function run(argv: string[], files: Record<string, string> = {}) {
  const fake = createFakeIo(files);
  const code = await runCli(argv, fake.io);
  return { code, out: fake.out(), err: fake.err() };
}

describe('issue 10 CLI papercuts', () => {
  it('accepts --fail-on in the case the output prints it (HIGH, None)', async () => {
    const whatif = ['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general'];
    const upper = await run([...whatif, '--fail-on', 'HIGH']);
    expect(upper.err).toBe('');
    expect(upper.code).toBe(1);
    const none = await run([...whatif, '--fail-on', 'None']);
    expect(none.err).toBe('');
    expect(none.code).toBe(0);
  });
});

describe('issue 10 text output', () => {
  it('shows each fix once, flush left between indented frame lines, with no Markdown fence', async () => {
    const { code, out } = await run(['whatif', '--snapshot', KARPENTER, '--delete-nodegroup', 'general']);
    expect(code).toBe(1);
    expect(out).not.toMatch(/^ {0,3}(`{3,}|~{3,})/m);
    const command = 'aws eks create-access-entry --cluster-name prod --region eu-west-1 \\';
    expect(out.split('\n').filter((line) => line === command)).toHaveLength(1);
    expect(out).toMatch(/\n {4}--- sh ---\n# aws-auth is the only store[^]*?\n {4}--- end ---\n/);
    expect(out).toMatch(/\n {4}--- yaml ---\n- rolearn: arn:aws:iam::111122223333:role\/prod-node-role\n/);
  });
});
