/**
 * The commands other than `--help` and `--version`, imported by run-cli.ts only when one runs: a
 * help or version line loads none of the engine, the renderers, the zod schemas or `yaml`.
 */

import { dedupeFixCommands } from '../core/fixes/index.ts';
import { withActor } from '../core/model.ts';
import { compareClusters } from '../core/parity/index.ts';
import { assessSnapshot, describeChange, diffSnapshots, whatIf } from '../core/predict/index.ts';
import { renderFindings, renderFixSection } from '../core/render/index.ts';
import { RULES } from '../core/rules/index.ts';
import type { ParsedArgs } from './args.ts';
import { runDemo } from './demo.ts';
import { CliError } from './errors.ts';
import { loadSnapshot } from './inputs.ts';
import type { CliIo } from './io.ts';
import { obtainSnapshot, runReport, runSnapshot } from './live.ts';
import { clusterOf, EXIT, exitFor, renderOptions, stamped, toolInfo } from './output.ts';
import { renderRuleCatalog } from './rules-catalog.ts';
import { readVersion } from './version.ts';

export type FileOrLiveArgs = Exclude<ParsedArgs, { kind: 'help' | 'version' }>;

export async function runCommand(args: FileOrLiveArgs, io: CliIo): Promise<number> {
  switch (args.kind) {
    case 'rules':
      io.stdout(renderRuleCatalog(RULES, args.format));
      return EXIT.ok;
    case 'assess': {
      const { snapshot } = await obtainSnapshot(io, args.source);
      const findings = dedupeFixCommands(assessSnapshot(snapshot, { trigger: 'manual' }));
      const options = renderOptions(io, args, { title: 'Assessment', cluster: clusterOf(snapshot) });
      io.stdout(
        stamped(args.format, renderFindings(args.format, findings, options), toolInfo(await readVersion(io))),
      );
      return exitFor(findings, args.failOn ?? 'critical');
    }
    case 'diff': {
      const before = await loadSnapshot(io, args.before);
      const after = await loadSnapshot(io, args.after);
      if (before.clusterArn !== after.clusterArn) {
        throw new CliError(`--before and --after are snapshots of different clusters`, {
          where: `${before.clusterArn} vs ${after.clusterArn}`,
        });
      }
      // Swapped files would report every change backwards; refuse rather than guess (exit 2).
      if (Date.parse(before.capturedAt) > Date.parse(after.capturedAt)) {
        throw new CliError(
          `--before was captured at ${before.capturedAt}, after --after (${after.capturedAt}); swap them`,
        );
      }
      const findings = dedupeFixCommands(diffSnapshots(before, after, { trigger: 'manual' }));
      const options = renderOptions(io, args, {
        title: `Changes from ${before.capturedAt} to ${after.capturedAt}`,
        cluster: clusterOf(after),
      });
      io.stdout(
        stamped(args.format, renderFindings(args.format, findings, options), toolInfo(await readVersion(io))),
      );
      return exitFor(findings, args.failOn ?? 'critical');
    }
    case 'whatif': {
      const { snapshot, where } = await obtainSnapshot(io, args.source);
      // Loaded here: the CloudTrail parser and its schemas serve only `whatif`.
      const { resolveWhatIf } = await import('./whatif-change.ts');
      const resolved = await resolveWhatIf(io, args.request, snapshot, where);
      if (resolved.kind === 'ignored') {
        io.stdout(
          args.format === 'json'
            ? stamped(
                'json',
                JSON.stringify({ ignored: true, reason: resolved.reason }),
                toolInfo(await readVersion(io)),
              )
            : `Event ignored: ${resolved.reason}\n`,
        );
        return EXIT.ok;
      }
      const result = whatIf(snapshot, resolved.change, { trigger: 'whatif' });
      const findings = dedupeFixCommands(withActor(result.findings, resolved.actor));
      const options = renderOptions(io, args, {
        title: 'What-if',
        cluster: clusterOf(snapshot),
        change: describeChange(resolved.change),
        effects: result.effects,
      });
      io.stdout(
        stamped(args.format, renderFindings(args.format, findings, options), toolInfo(await readVersion(io))),
      );
      return exitFor(findings, args.failOn ?? 'critical');
    }
    case 'whatif-plan':
    case 'whatif-aws-auth': {
      // Loaded here: the plan schema and the pre-apply simulation serve only these two.
      const { runWhatIfAwsAuth, runWhatIfPlan } = await import('./whatif-plan.ts');
      return args.kind === 'whatif-plan' ? runWhatIfPlan(args, io) : runWhatIfAwsAuth(args, io);
    }
    case 'compare': {
      const { snapshot: from } = await obtainSnapshot(io, args.from);
      const { snapshot: to } = await obtainSnapshot(io, args.to);
      const result = compareClusters(from, to, { trigger: 'manual' });
      const options = renderOptions(io, args, {
        title: `Parity of ${to.clusterName} (${to.region}) with ${from.clusterName} (${from.region})`,
        cluster: clusterOf(to),
      });
      const body = renderFindings(args.format, result.findings, options);
      const tool = toolInfo(await readVersion(io));
      if (args.format === 'json') {
        const report = JSON.parse(body) as Record<string, unknown>;
        io.stdout(
          stamped(
            'json',
            JSON.stringify({
              ...report,
              from: clusterOf(from),
              ...(result.fixAll ? { fixAll: result.fixAll } : {}),
              ...(result.podIdentityPlan ? { podIdentityPlan: result.podIdentityPlan } : {}),
            }),
            tool,
          ),
        );
      } else {
        const sections = [
          ...(result.fixAll ? [renderFixSection(args.format, 'Fix all, in one block', result.fixAll)] : []),
          ...(result.podIdentityPlan
            ? [renderFixSection(args.format, 'IRSA → Pod Identity plan', result.podIdentityPlan.remediation)]
            : []),
        ];
        io.stdout(stamped(args.format, [body.trimEnd(), ...sections].join('\n\n'), tool));
      }
      return exitFor(result.findings, args.failOn ?? 'critical');
    }
    case 'snapshot':
      return runSnapshot(args, io);
    case 'report':
      return runReport(args, io);
    case 'migrate': {
      const { snapshot } = await obtainSnapshot(io, args.source);
      // Loaded here: the plan and its renderers serve only `migrate`.
      const { runMigrate } = await import('./migrate.ts');
      const code = runMigrate(io, snapshot, args.migrateFormat);
      // A blocker counts as critical, so every threshold but `none` fails on it.
      return code === EXIT.findings && args.failOn === 'none' ? EXIT.ok : code;
    }
    case 'demo':
      return runDemo(args, io);
  }
}
