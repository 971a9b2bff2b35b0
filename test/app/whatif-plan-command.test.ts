/**
 * `whatif --terraform-plan` translates the plan once: the relevance check, the clusters to read
 * and the simulation all work from the same translation (a counter on the exported
 * `translatePlan`, through the use case and through the CLI).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CommandFiles } from '../../shared/app/commands/command-inputs.ts';
import { parseJsonText } from '../../shared/app/commands/decode-input.ts';
import { whatIfPlanCommand } from '../../shared/app/commands/whatif-plan-command.ts';
import { runCli } from '../../shared/cli/run-cli.ts';
import { translatePlan } from '../../shared/core/plan/translate.ts';
import { createFakeIo, REPO_ROOT } from '../support/fake-io.ts';
import { loadScenario } from '../support/snapshot-builder.ts';

vi.mock('../../shared/core/plan/translate.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../shared/core/plan/translate.ts')>();
  return { ...original, translatePlan: vi.fn(original.translatePlan) };
});

const PLANS = join(REPO_ROOT, 'test/fixtures/terraform-plan');
const translations = vi.mocked(translatePlan);

function files(): CommandFiles {
  return {
    loadSnapshot: async (path) => loadScenario(path),
    loadJson: async (path) => parseJsonText(await readFile(join(PLANS, path), 'utf8'), path),
    readText: (path) => readFile(join(PLANS, path), 'utf8'),
    nameOf: (path) => path,
  };
}

beforeEach(() => {
  translations.mockClear();
});

describe('whatif --terraform-plan', () => {
  it('translates a relevant plan once, and simulates it', async () => {
    const result = await whatIfPlanCommand(
      { files: files() },
      {
        plan: 'a-delete-nodegroup-general.json',
        source: { kind: 'file', path: 'a-karpenter-shares-last-nodegroup-role' },
      },
    );
    expect(result.kind).toBe('plan');
    if (result.kind !== 'plan') return;
    expect(result.sections.flatMap((s) => s.findings.map((f) => f.ruleId))).toContain(
      'nodegroup/deletion-orphans-role',
    );
    expect(translations).toHaveBeenCalledTimes(1);
  });

  it('translates a plan that changes nothing auth-relevant once, and reads no snapshot', async () => {
    const read = vi.fn(async (path: string) => loadScenario(path));
    const result = await whatIfPlanCommand(
      { files: { ...files(), loadSnapshot: read } },
      { plan: 'no-auth-relevant-change.json', source: { kind: 'file', path: 'healthy-api-mode' } },
    );
    expect(result.kind).toBe('plan-irrelevant');
    expect(read).not.toHaveBeenCalled();
    expect(translations).toHaveBeenCalledTimes(1);
  });

  it('translates once for a whole command line, in every format', async () => {
    for (const format of ['json', 'text', 'markdown']) {
      translations.mockClear();
      const fake = createFakeIo({});
      const code = await runCli(
        [
          'whatif',
          '--terraform-plan',
          'test/fixtures/terraform-plan/a-delete-nodegroup-general.json',
          '--snapshot',
          'scenarios/a-karpenter-shares-last-nodegroup-role.json',
          '--format',
          format,
        ],
        fake.io,
      );
      expect(code).toBe(1);
      expect(fake.out()).toContain('nodegroup/deletion-orphans-role');
      expect(translations).toHaveBeenCalledTimes(1);
    }
  });
});
