/**
 * `demo`: every scenario of a directory (default: the package's scenarios/), assessed, and for
 * incident-a scenarios (`a-*.json`) every node group's deletion simulated, for incident-e ones
 * (`e-*.json`) the switch to API; both through `assessWithWhatIfs` like the report. A compact report per
 * scenario; exit 0 unless --fail-on is given (2 when a scenario file cannot be read).
 */
import { join } from 'node:path';
import { assessWithWhatIfs } from '../app/build-report.ts';
import type { ClusterSnapshot, Finding } from '../core/model.ts';
import { type Change, deletionChanges } from '../core/predict/index.ts';
import type { ParsedArgs } from './args.ts';
import { allFindings, clusterJson, renderClusterBlock } from './cluster-report.ts';
import { CliError, formatErrorLine, isCliError } from './errors.ts';
import { loadSnapshot } from './inputs.ts';
import type { CliIo } from './io.ts';
import { clusterOf, EXIT, exitFor } from './output.ts';

type DemoArgs = Extract<ParsedArgs, { kind: 'demo' }>;

async function listScenarios(io: CliIo, dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await io.listDir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTDIR') throw new CliError(`${dir} is a file, expected a directory`, { cause: error });
    throw new CliError(
      `cannot read the scenarios directory ${dir}: ${typeof code === 'string' ? code : String(error)}`,
    );
  }
  const files = names.filter((n) => n.endsWith('.json')).sort();
  if (files.length === 0) throw new CliError(`no scenarios (*.json) in ${dir}`);
  return files;
}

/** What the demo simulates: every node group's deletion (a-*), the switch to API (e-*). */
function demoChanges(name: string, snapshot: ClusterSnapshot): Change[] {
  if (name.startsWith('a-')) return deletionChanges(snapshot).filter((c) => c.kind === 'delete-nodegroup');
  if (name.startsWith('e-') && snapshot.cluster.authenticationMode !== 'API') {
    return [{ kind: 'set-auth-mode', mode: 'API' }];
  }
  return [];
}

export async function runDemo(args: DemoArgs, io: CliIo): Promise<number> {
  const dir = args.scenarios ?? join(io.packageRoot, 'scenarios');
  const files = await listScenarios(io, dir);
  const all: Finding[] = [];
  const json: unknown[] = [];
  let unreadable = 0;

  for (const [index, file] of files.entries()) {
    const name = file.slice(0, -'.json'.length);
    const path = join(dir, file);
    let snapshot: Awaited<ReturnType<typeof loadSnapshot>>;
    try {
      snapshot = await loadSnapshot(io, path);
    } catch (error) {
      if (!isCliError(error)) throw error;
      io.stderr(formatErrorLine(error.message, error.where));
      unreadable += 1;
      continue;
    }
    const cluster = clusterOf(snapshot);
    const assessed = assessWithWhatIfs(snapshot, demoChanges(name, snapshot));
    all.push(...allFindings(assessed));

    if (args.format === 'json') {
      json.push({ scenario: name, file: path, ...clusterJson(cluster, assessed) });
      continue;
    }
    const heading =
      args.format === 'markdown'
        ? `# Scenario \`${name}\` — cluster \`${cluster.name}\` (account ${cluster.accountId}, region ${cluster.region})\n\n`
        : `${index > 0 ? '\n' : ''}=== Scenario ${name} — cluster ${cluster.name} (account ${cluster.accountId}, region ${cluster.region}) ===\n`;
    io.stdout(renderClusterBlock(io, args, heading, cluster, assessed));
  }

  if (args.format === 'json') io.stdout(`${JSON.stringify({ scenarios: json }, null, 2)}\n`);
  if (unreadable > 0) return EXIT.usage;
  return args.failOn === undefined ? EXIT.ok : exitFor(all, args.failOn);
}
