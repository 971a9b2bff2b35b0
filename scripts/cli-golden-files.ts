/**
 * Where each CLI golden run lives under test/fixtures/cli-golden, so a change of output reads as a
 * small `git diff`: one folder per command and scenario (`demo/`, `rules/`, `assess/<scenario>/`,
 * `whatif/<scenario>/`, `diff/<before>/`), holding a `runs.json` (each run's argv, exit code,
 * stderr and stdout file) and one stdout file per run. JSON output is stored as JSON formatted by
 * biome and compared after re-printing it the way the CLI prints (`JSON.stringify(value, null, 2)`);
 * any other output is stored verbatim as `.txt`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface GoldenRun {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

/** One line of a group's runs.json: the run, with stdout replaced by the file that holds it. */
interface RecordedRun {
  argv: string[];
  code: number;
  stderr: string;
  stdout: string;
}

export const RUNS_FILE = 'runs.json';
/** The review limit for any one golden file. */
export const MAX_GOLDEN_BYTES = 50_000;

/** A path segment safe on every file system: ARNs and names keep their readable parts. */
function segment(text: string): string {
  const safe = text.replace(/[^A-Za-z0-9._-]+/g, '_');
  // Empty, `.` or `..` (a path segment's special names) become underscores: never `a//b`, `a/../b`.
  return safe === '' ? '_' : /^\.*$/.test(safe) ? safe.replaceAll('.', '_') : safe;
}

function optionValue(argv: readonly string[], option: string): string | undefined {
  const at = argv.indexOf(option);
  return at < 0 ? undefined : argv[at + 1];
}

/** `scenarios/a-b.json` → `a-b`; a file in a subfolder keeps the folder. */
function scenarioDir(file: string): string {
  return file
    .replace(/^scenarios\//, '')
    .replace(/\.json$/, '')
    .split('/')
    .map(segment)
    .join('/');
}

/**
 * The group folder (relative to the golden root) and the stdout file's name without extension for
 * one command line. Every option not already named by the folder goes into the file name (the
 * format only when it is not JSON, whose file ends in .json), so two different command lines never
 * share a file (the writer checks that too).
 */
export function goldenLocation(argv: readonly string[]): { group: string; name: string; format: string } {
  const [command = 'none', ...rest] = argv;
  const scenarioOption = command === 'diff' ? '--before' : '--snapshot';
  const scenario = optionValue(rest, scenarioOption);
  const group = scenario === undefined ? segment(command) : `${segment(command)}/${scenarioDir(scenario)}`;
  const parts: string[] = [];
  let format = 'text';
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (arg === scenarioOption) {
      i++;
      continue;
    }
    if (arg === '--format') {
      format = rest[++i] ?? '';
      continue;
    }
    if (arg === '--after') {
      parts.push(scenarioDir(rest[++i] ?? ''));
      continue;
    }
    parts.push(segment(arg.replace(/^--/, '')));
  }
  if (format !== 'json' && parts.length > 0) parts.push(segment(format));
  return { group, name: parts.join('.') || segment(format), format };
}

function isCanonicalJson(text: string): boolean {
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n` === text;
  } catch {
    return false;
  }
}

/** Every file the recording of these runs consists of (relative to root) with its content. */
export function goldenFiles(runs: readonly GoldenRun[]): Map<string, string> {
  const files = new Map<string, string>();
  const groups = new Map<string, RecordedRun[]>();
  for (const run of runs) {
    const { group, name, format } = goldenLocation(run.argv);
    const stdoutFile = `${name}${format === 'json' && isCanonicalJson(run.stdout) ? '.json' : '.txt'}`;
    const path = `${group}/${stdoutFile}`;
    if (files.has(path)) throw new Error(`two runs map to ${path}: ${run.argv.join(' ')}`);
    files.set(path, run.stdout);
    const recorded = groups.get(group) ?? [];
    recorded.push({ argv: run.argv, code: run.code, stderr: run.stderr, stdout: stdoutFile });
    groups.set(group, recorded);
  }
  for (const [group, recorded] of groups) {
    const path = `${group}/${RUNS_FILE}`;
    if (files.has(path)) throw new Error(`a run's stdout file is named ${path}`);
    files.set(path, `${JSON.stringify(recorded, null, 2)}\n`);
  }
  return files;
}

/** Every file under root, relative to it, sorted. */
export function listGoldenFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push(relative(root, path));
    }
  };
  walk(root);
  return found.sort();
}

/** Writes the recording and removes every file under root it no longer consists of. */
export function writeGoldenFiles(root: string, runs: readonly GoldenRun[]): string[] {
  const files = goldenFiles(runs);
  for (const stale of listGoldenFiles(root)) if (!files.has(stale)) rmSync(join(root, stale));
  removeEmptyDirs(root);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return [...files.keys()].map((path) => join(root, path));
}

function removeEmptyDirs(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory()) removeEmptyDirs(join(dir, entry.name));
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}

/** The recorded runs, with each stdout as the CLI printed it, in the order of the group files. */
export function readGoldenRuns(root: string): GoldenRun[] {
  const runs: GoldenRun[] = [];
  for (const path of listGoldenFiles(root)) {
    if (!path.endsWith(`/${RUNS_FILE}`) && path !== RUNS_FILE) continue;
    const group = dirname(join(root, path));
    const recorded = JSON.parse(readFileSync(join(root, path), 'utf8')) as RecordedRun[];
    for (const run of recorded) {
      const text = readFileSync(join(group, run.stdout), 'utf8');
      const stdout = run.stdout.endsWith('.json') ? `${JSON.stringify(JSON.parse(text), null, 2)}\n` : text;
      runs.push({ argv: run.argv, code: run.code, stdout, stderr: run.stderr });
    }
  }
  return runs;
}

/** The stdout file each group's runs.json names, relative to root, per command line. */
export function recordedStdoutFiles(root: string): Map<string, string[]> {
  const byArgv = new Map<string, string[]>();
  for (const path of listGoldenFiles(root)) {
    if (!path.endsWith(`/${RUNS_FILE}`) && path !== RUNS_FILE) continue;
    const group = dirname(path);
    const recorded = JSON.parse(readFileSync(join(root, path), 'utf8')) as RecordedRun[];
    for (const run of recorded) {
      const key = run.argv.join(' ');
      byArgv.set(key, [...(byArgv.get(key) ?? []), group === '.' ? run.stdout : `${group}/${run.stdout}`]);
    }
  }
  return byArgv;
}
