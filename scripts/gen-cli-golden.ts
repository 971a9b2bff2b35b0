/**
 * Records (or with --check, compares) the CLI's output for every file in scenarios/: `assess` and
 * `demo` in every format, `whatif` for every node group, Fargate profile, access entry and auth
 * mode, and `diff` for every ordered pair of scenario files. The recording is
 * test/fixtures/cli-golden/outputs.json; test/cli/cli-golden.test.ts asserts it still holds, so a
 * refactor that changes a byte of output fails CI. Regenerate only for a change of output that is
 * meant: `npx tsx scripts/gen-cli-golden.ts`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliIo } from '../shared/cli/io.ts';
import { runCli } from '../shared/cli/run-cli.ts';

export const REPO_ROOT = join(import.meta.dirname, '..');
export const GOLDEN_FILE = join(REPO_ROOT, 'test/fixtures/cli-golden/outputs.json');

export interface GoldenRun {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

interface ScenarioShape {
  nodegroups?: { data?: { name: string }[] };
  fargateProfiles?: { data?: { name: string }[] };
  accessEntries?: { data?: { principalArn: string }[] };
}

/** Every command line the recording covers, in a stable order. */
export function goldenArgvs(): string[][] {
  const files = readdirSync(join(REPO_ROOT, 'scenarios'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => `scenarios/${f}`);
  const argvs: string[][] = [];
  for (const format of ['json', 'text', 'markdown']) argvs.push(['demo', '--format', format]);
  argvs.push(['rules', '--format', 'json']);
  for (const file of files) {
    const s = JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as ScenarioShape;
    for (const format of ['json', 'text', 'markdown'])
      argvs.push(['assess', '--snapshot', file, '--format', format]);
    const whatifs: string[][] = [];
    for (const n of s.nodegroups?.data ?? []) whatifs.push(['--delete-nodegroup', n.name]);
    for (const p of s.fargateProfiles?.data ?? []) whatifs.push(['--delete-fargate-profile', p.name]);
    for (const e of s.accessEntries?.data ?? []) whatifs.push(['--delete-access-entry', e.principalArn]);
    for (const mode of ['API', 'API_AND_CONFIG_MAP', 'CONFIG_MAP']) whatifs.push(['--auth-mode', mode]);
    for (const change of whatifs) argvs.push(['whatif', '--snapshot', file, ...change, '--format', 'json']);
    for (const after of files)
      if (after !== file) argvs.push(['diff', '--before', file, '--after', after, '--format', 'json']);
  }
  return argvs;
}

function nodeIo(out: string[], err: string[]): CliIo {
  return {
    readFile: (path) => readFile(path.startsWith('/') ? path : join(REPO_ROOT, path), 'utf8'),
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    isTTY: false,
    env: {},
    packageRoot: REPO_ROOT,
    listDir: (path) => readdir(path),
  };
}

export async function runGolden(argv: string[]): Promise<GoldenRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, nodeIo(out, err));
  // `demo` prints the absolute path of each file: record it relative to the checkout.
  const relative = (text: string) => text.replaceAll(REPO_ROOT, '<repo>');
  return { argv, code, stdout: relative(out.join('')), stderr: relative(err.join('')) };
}

async function main(): Promise<void> {
  const runs: GoldenRun[] = [];
  for (const argv of goldenArgvs()) runs.push(await runGolden(argv));
  const text = `${JSON.stringify(runs, null, 1)}\n`;
  if (process.argv.includes('--check')) {
    const differs = readFileSync(GOLDEN_FILE, 'utf8') !== text;
    console.log(differs ? `${GOLDEN_FILE} differs` : `${runs.length} runs unchanged`);
    process.exitCode = differs ? 1 : 0;
    return;
  }
  writeFileSync(GOLDEN_FILE, text);
  console.log(`${runs.length} runs recorded in ${GOLDEN_FILE}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
