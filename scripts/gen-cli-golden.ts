/**
 * Records (or with --check, compares) the CLI's output for every file in scenarios/: `assess` and
 * `demo` in every format, `whatif` for every node group, Fargate profile, access entry and auth
 * mode, and `diff` for every ordered pair of scenario files. The recording is the folder
 * test/fixtures/cli-golden, one folder per command and scenario (layout: scripts/cli-golden-files.ts);
 * test/cli/cli-golden.test.ts asserts it still holds, so a refactor that changes a byte of output
 * fails CI. Regenerate only for a change of output that is meant: `npx tsx scripts/gen-cli-golden.ts`
 * (it deletes the files of runs it no longer makes and formats the JSON with biome).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CliIo } from '../shared/cli/io.ts';
import { runCli } from '../shared/cli/run-cli.ts';
import { type GoldenRun, readGoldenRuns, writeGoldenFiles } from './cli-golden-files.ts';

export const REPO_ROOT = join(import.meta.dirname, '..');
export const GOLDEN_DIR = join(REPO_ROOT, 'test/fixtures/cli-golden');

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

const runKey = (run: GoldenRun) => JSON.stringify([run.argv, run.code, run.stdout, run.stderr]);

async function main(): Promise<void> {
  const runs: GoldenRun[] = [];
  for (const argv of goldenArgvs()) runs.push(await runGolden(argv));
  if (process.argv.includes('--check')) {
    const recorded = new Set(readGoldenRuns(GOLDEN_DIR).map(runKey));
    const differs = recorded.size !== runs.length || runs.some((run) => !recorded.has(runKey(run)));
    console.log(differs ? `${GOLDEN_DIR} differs` : `${runs.length} runs unchanged`);
    process.exitCode = differs ? 1 : 0;
    return;
  }
  const written = writeGoldenFiles(GOLDEN_DIR, runs);
  execFileSync(join(REPO_ROOT, 'node_modules/.bin/biome'), ['format', '--write', GOLDEN_DIR], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  console.log(`${runs.length} runs recorded in ${written.length} files under ${GOLDEN_DIR}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
