/**
 * The Terraform harness itself: offline init from the mirror, `fmt -check` and `validate` say yes
 * and no where Terraform does, and a batch attributes each verdict to its own file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TerraformHarness, terraformHarness } from '../support/terraform.ts';

const ENTRY = `resource "aws_eks_access_entry" "node" {
  cluster_name  = "prod"
  principal_arn = "arn:aws:iam::111122223333:role/eks/node"
  type          = "EC2_LINUX"
}
`;

let tf: TerraformHarness;
beforeAll(async () => {
  tf = await terraformHarness();
}, 120_000);
afterAll(() => tf?.close());

describe('Terraform harness', () => {
  it('runs Terraform 1.11 with the AWS provider 5.100.0 from the mirror', () => {
    expect(tf.version).toMatch(/^1\.11\./);
    expect(tf.providerVersion).toBe('5.100.0');
  });

  it('fmt -check: accepts fmt layout, refuses misaligned HCL and a shell command', async () => {
    expect(await tf.fmtCheck(ENTRY)).toEqual({ ok: true, message: '' });
    expect((await tf.fmtCheck(ENTRY.replace('cluster_name  =', 'cluster_name ='))).ok).toBe(false);
    const shell = await tf.fmtCheck("terraform apply '-replace=aws_eks_access_entry.<name>'");
    expect(shell.ok).toBe(false);
    expect(shell.message).toMatch(/Invalid block definition|Argument or block definition required/);
  });

  it('validate: one file alone, and a batch where each file gets its own verdict', async () => {
    const [alone] = await tf.validate([ENTRY]);
    expect(alone).toMatchObject({ ok: true, how: 'alone' });
    const module = 'access_entries = {\n  node = { principal_arn = "arn:aws:iam::1:role/n" }\n}\n';
    const wrongType = ENTRY.replace('"prod"', '["prod"]');
    const results = await tf.validate([ENTRY, module, wrongType, ENTRY]);
    expect(results.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(results[0]?.how).toBe('batch');
    expect(results[1]?.diagnostics.map((d) => d.summary).join(' ')).toMatch(/Unsupported argument/);
    expect(results[1]?.diagnostics[0]?.detail).toMatch(/named "access_entries" is not expected here/);
    expect(results[2]?.diagnostics.map((d) => d.summary).join(' ')).toMatch(/Incorrect attribute value type/);
  }, 240_000);
});
