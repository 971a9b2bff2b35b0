/**
 * `demo`: every scenario of a directory (default: the package's scenarios/), assessed, and for
 * incident-a scenarios (`a-*.json`) every node group's deletion simulated. A compact report per
 * scenario; exit 0 unless --fail-on is given (2 when a scenario file cannot be read).
 */
import { join } from 'node:path';
import { describeChange } from '../core/change.ts';
import { assessSnapshot, type WhatIfResult, whatIf } from '../core/engine.ts';
import type { Finding } from '../core/model.ts';
import { renderFindings, toJsonReport } from '../core/render/index.ts';
import type { ParsedArgs } from './args.ts';
import { CliError, formatErrorLine, isCliError } from './errors.ts';
import { loadSnapshot } from './inputs.ts';
import type { CliIo } from './io.ts';
import { clusterOf, EXIT, exitFor, renderOptions } from './output.ts';
import { resolveWhatIf } from './whatif-change.ts';

type DemoArgs = Extract<ParsedArgs, { kind: 'demo' }>;

async function listScenarios(io: CliIo, dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await io.listDir(dir);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new CliError(
      `cannot read the scenarios directory ${dir}: ${typeof code === 'string' ? code : String(error)}`,
    );
  }
  const files = names.filter((n) => n.endsWith('.json')).sort();
  if (files.length === 0) throw new CliError(`no scenarios (*.json) in ${dir}`);
  return files;
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
    const assessed = assessSnapshot(snapshot, { trigger: 'manual' });
    const simulations: WhatIfResult[] = [];
    if (name.startsWith('a-') && snapshot.nodegroups.status === 'ok') {
      for (const group of snapshot.nodegroups.data) {
        const resolved = await resolveWhatIf(
          io,
          { option: 'delete-nodegroup', value: group.name },
          snapshot,
          path,
        );
        if (resolved.kind === 'change')
          simulations.push(whatIf(snapshot, resolved.change, { trigger: 'whatif' }));
      }
    }
    if (name.startsWith('e-') && snapshot.cluster.authenticationMode !== 'API') {
      simulations.push(whatIf(snapshot, { kind: 'set-auth-mode', mode: 'API' }, { trigger: 'whatif' }));
    }
    all.push(...assessed, ...simulations.flatMap((s) => s.findings));

    if (args.format === 'json') {
      json.push({
        scenario: name,
        file: path,
        assessment: toJsonReport(assessed, { cluster }),
        whatIf: simulations.map((s) =>
          toJsonReport(s.findings, { cluster, change: describeChange(s.change), effects: s.effects }),
        ),
      });
      continue;
    }
    const sections = [
      renderFindings(
        args.format,
        assessed,
        renderOptions(io, args, { title: 'Assessment', cluster, compact: true }),
      ),
      ...simulations.map((s) =>
        renderFindings(
          args.format,
          s.findings,
          renderOptions(io, args, {
            title: 'What-if',
            cluster,
            change: describeChange(s.change),
            effects: s.effects,
            // a predicted outage is shown whole: who loses access and the fix to paste
            compact: !s.findings.some((f) => f.severity === 'critical'),
          }),
        ),
      ),
    ];
    const heading =
      args.format === 'markdown'
        ? `# Scenario \`${name}\` — cluster \`${cluster.name}\` (account ${cluster.accountId}, region ${cluster.region})\n\n`
        : `${index > 0 ? '\n' : ''}=== Scenario ${name} — cluster ${cluster.name} (account ${cluster.accountId}, region ${cluster.region}) ===\n`;
    io.stdout(
      `${heading}${sections.map((s) => s.trimEnd()).join(args.format === 'markdown' ? '\n\n' : '\n')}\n`,
    );
  }

  if (args.format === 'json') io.stdout(`${JSON.stringify({ scenarios: json }, null, 2)}\n`);
  if (unreadable > 0) return EXIT.usage;
  return args.failOn === undefined ? EXIT.ok : exitFor(all, args.failOn);
}
