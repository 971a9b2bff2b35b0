/**
 * A CLI command's result (command-result.ts) as the text it prints: text, Markdown, JSON (with the
 * `tool` stamp as its first key), or a migration plan's own formats.
 * The one place where a command's output is laid out (with report-page.ts for `report --format
 * html`); the use cases return data only. Pure.
 */
import {
  migrationAwsCli,
  migrationJson,
  migrationTerraform,
  migrationText,
} from '../migrate/render-migration.ts';
import { type ClusterRef, clusterRefOf, type Finding, SEVERITIES } from '../model.ts';
import type {
  AssessedCluster,
  CatalogRule,
  CommandResult,
  DemoEntry,
  FindingsSection,
  ReportedCluster,
  Unreadable,
} from './command-result.ts';
import { renderFindings, renderFixSection } from './findings.ts';
import type { RenderFormat } from './formats.ts';
import { fitJsonReport, toJsonReport } from './json.ts';
import { countBySeverity, type RenderOptions, wrap } from './layout.ts';
import { escapeMarkdown } from './markdown.ts';

/** Who produced a JSON output: every JSON report carries it as its first key, `tool`. */
export interface ToolInfo {
  name: 'eks-auth-sentinel';
  version: string;
  snapshotSchemaVersion: number;
}

/**
 * Every format a command writes here: findings' formats and `migrate`'s plan formats. `report`'s
 * HTML page is report-page.ts, loaded only for it (its layout library is large).
 */
export type OutputFormat = RenderFormat | 'terraform' | 'aws-cli';

export interface OutputOptions {
  format: OutputFormat;
  /** ANSI colour (text only). */
  color: boolean;
  maxChars?: number;
  tool: ToolInfo;
}

/** The output, or why the result cannot be written in this format (a usage error). */
export type RenderedOutput = { ok: true; text: string } | { ok: false; reason: string };

/** `nothing auth-relevant in this plan`: a plan that changes nothing authentication depends on. */
const NOTHING_RELEVANT = 'nothing auth-relevant in this plan';

const ok = (text: string): RenderedOutput => ({ ok: true, text });

function findingsFormat(format: OutputFormat): RenderFormat {
  return format === 'json' || format === 'markdown' ? format : 'text';
}

/** A rendered report with a final newline. */
function finished(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** A JSON output: `tool` first, then the document, two-space indented, a final newline. */
function stampedJson(document: object, tool: ToolInfo): string {
  return `${JSON.stringify({ tool, ...document }, null, 2)}\n`;
}

function findingsOptions(options: OutputOptions, extra: RenderOptions): RenderOptions {
  const out: RenderOptions = { ...extra, color: options.color && options.format === 'text' };
  if (options.maxChars !== undefined) out.maxChars = options.maxChars;
  return out;
}

function sectionOptions(section: FindingsSection): RenderOptions {
  return {
    title: section.title,
    cluster: section.cluster,
    ...(section.change === undefined ? {} : { change: section.change }),
    ...(section.effects === undefined ? {} : { effects: section.effects }),
    ...(section.actor === undefined ? {} : { actor: section.actor }),
  };
}

/** A simulated section's JSON head: its cluster, change and effects (its title is the command's). */
function simulated(section: FindingsSection): RenderOptions {
  const { title: _title, ...rest } = sectionOptions(section);
  return rest;
}

function renderSection(options: OutputOptions, section: FindingsSection): string {
  const format = findingsFormat(options.format);
  const render = findingsOptions(options, sectionOptions(section));
  return format === 'json'
    ? stampedJson(fitJsonReport(section.findings, render), options.tool)
    : finished(renderFindings(format, section.findings, render));
}

/** Several sections (a plan's clusters, a proposed aws-auth), a blank line between them. */
function joinedSections(options: OutputOptions, sections: readonly FindingsSection[]): string {
  const format = findingsFormat(options.format);
  return sections
    .map((s) => renderFindings(format, s.findings, findingsOptions(options, sectionOptions(s))).trimEnd())
    .join('\n\n');
}

/** `cluster prod (eu-west-1)` or `Region eu-west-1`. */
export function targetLabel(target: { region: string; clusterName?: string }): string {
  return target.clusterName === undefined
    ? `Region ${target.region}`
    : `cluster ${target.clusterName} (${target.region})`;
}

/** One line for a cluster or Region that could not be read (stderr, and the report's last section). */
export function unreadableLine(u: Unreadable): string {
  return `${targetLabel(u)} could not be read: ${u.error}`;
}

/** One line for changes of a plan that no snapshot was given for (stderr, and the plan's notes). */
export function uncheckedLine(u: { cluster: string; addresses: readonly string[] }): string {
  return `not checked: changes to cluster ${u.cluster} (no snapshot of it): ${u.addresses.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------
// report and demo: one cluster's assessment and what-ifs

/** Every finding of the assessment and of the what-ifs. */
function allFindings(assessed: AssessedCluster): Finding[] {
  return [...assessed.findings, ...assessed.whatIf.flatMap((w) => w.findings)];
}

/** The assessment in full: the current state is what is broken now, always whole, with its fix. */
function assessmentSection(options: OutputOptions, cluster: ClusterRef, assessed: AssessedCluster): string {
  const format = findingsFormat(options.format);
  return renderFindings(
    format,
    assessed.findings,
    findingsOptions(options, { title: 'Assessment', cluster }),
  );
}

/** Each what-if, compact unless it predicts an outage. */
function whatIfSections(options: OutputOptions, cluster: ClusterRef, assessed: AssessedCluster): string[] {
  const format = findingsFormat(options.format);
  return assessed.whatIf.map((w) =>
    renderFindings(
      format,
      w.findings,
      findingsOptions(options, {
        title: 'What-if',
        cluster,
        change: w.label,
        effects: w.effects,
        // a predicted outage is shown whole: who loses access and the fix to paste
        compact: !w.findings.some((f) => f.severity === 'critical'),
      }),
    ),
  );
}

function joinSections(options: OutputOptions, heading: string, sections: readonly string[]): string {
  const separator = options.format === 'markdown' ? '\n\n' : '\n';
  return `${heading}${sections.map((s) => s.trimEnd()).join(separator)}\n`;
}

/** The JSON form: the assessment and each what-if as a JSON report. */
function assessedJson(cluster: ClusterRef, assessed: AssessedCluster) {
  return {
    assessment: toJsonReport(assessed.findings, { cluster }),
    whatIf: assessed.whatIf.map((w) =>
      toJsonReport(w.findings, { cluster, change: w.label, effects: w.effects }),
    ),
  };
}

/**
 * `report` over several clusters: every cluster's current state first (what is broken now, in
 * full), then every cluster's what-ifs (hypothetical): a live outage of the second cluster is
 * never buried under the first cluster's what-ifs.
 */
function reportBlocks(
  options: OutputOptions,
  rows: readonly { cluster: ClusterRef; assessed: AssessedCluster }[],
): string[] {
  const heading = (what: string, c: ClusterRef, first: boolean) =>
    options.format === 'markdown'
      ? `# ${what}: cluster \`${c.name}\` (account ${c.accountId}, region ${c.region})\n\n`
      : `${first ? '' : '\n'}=== ${what}: cluster ${c.name} — account ${c.accountId}, region ${c.region} ===\n`;
  const current = rows.map((r, i) =>
    joinSections(options, heading('Current state', r.cluster, i === 0), [
      assessmentSection(options, r.cluster, r.assessed),
    ]),
  );
  const whatIfs = rows
    .filter((r) => r.assessed.whatIf.length > 0)
    .map((r) =>
      joinSections(
        options,
        heading('What-ifs', r.cluster, false),
        whatIfSections(options, r.cluster, r.assessed),
      ),
    );
  return [...current, ...whatIfs];
}

/**
 * The table `report` opens with: one row per cluster, the current-state findings by severity, then
 * the what-if findings (hypothetical) in their own column.
 */
function summaryTable(
  format: OutputFormat,
  rows: readonly { cluster: ClusterRef; assessed: AssessedCluster }[],
): string {
  const header = ['cluster', ...SEVERITIES, 'what-if findings'];
  const body = rows.map(({ cluster, assessed }) => {
    const counts = countBySeverity(assessed.findings);
    return [
      `${cluster.name} (${cluster.accountId}, ${cluster.region})`,
      ...SEVERITIES.map((s) => String(counts[s])),
      String(assessed.whatIf.reduce((n, w) => n + w.findings.length, 0)),
    ];
  });
  if (format === 'markdown') {
    const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
    return `# Summary: current-state findings by severity\n\n${[
      line(header),
      line(header.map(() => '---')),
      ...body.map(line),
    ].join('\n')}\n\n`;
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return `Summary: current-state findings by severity\n${[line(header.map((h) => h.toUpperCase())), ...body.map(line)].join('\n')}\n\n`;
}

/** The report's closing line (and the progress line after a live capture). */
export function reportSummaryLine(
  clusters: readonly AssessedCluster[],
  unreadable: readonly Unreadable[],
  regions: readonly string[],
): string {
  const counts = countBySeverity(clusters.flatMap(allFindings));
  const bySeverity = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  return `${clusters.length} cluster(s) read in ${regions.join(', ')}${
    unreadable.length > 0 ? `, ${unreadable.length} could not be read` : ''
  }; findings (assessments and what-ifs): ${bySeverity === '' ? 'none' : bySeverity}`;
}

function renderReport(
  options: OutputOptions,
  regions: readonly string[],
  clusters: readonly ReportedCluster[],
  unreadable: readonly Unreadable[],
): string {
  if (options.format === 'json') {
    const json = {
      regions,
      clusters: clusters.map((r) => {
        const cluster = clusterRefOf(r.snapshot);
        const plan = r.podIdentityPlan;
        return { cluster, ...assessedJson(cluster, r), ...(plan ? { podIdentityPlan: plan } : {}) };
      }),
      unreadable,
    };
    return stampedJson(json, options.tool);
  }
  const markdown = options.format === 'markdown';
  const rows = clusters.map((r) => ({ cluster: clusterRefOf(r.snapshot), assessed: r }));
  // The IRSA → Pod Identity plans come after every current state and what-if: advice, not alarm.
  const plans = clusters.flatMap((r) => {
    const plan = r.podIdentityPlan;
    const heading = `IRSA → Pod Identity plan for ${r.snapshot.clusterName}`;
    return plan ? [`\n${renderFixSection(markdown ? 'markdown' : 'text', heading, plan.remediation)}`] : [];
  });
  const parts = [summaryTable(options.format, rows), ...reportBlocks(options, rows), ...plans];
  if (unreadable.length > 0) {
    parts.push(
      markdown
        ? `# Could not be read\n\n${unreadable.map((u) => `- ${unreadableLine(u)}`).join('\n')}\n`
        : `\n=== Could not be read ===\n${unreadable.map((u) => `${unreadableLine(u)}\n`).join('')}`,
    );
  }
  const summary = reportSummaryLine(clusters, unreadable, regions);
  parts.push(markdown ? `${summary}.\n` : `\n${summary}.\n`);
  return parts.join(markdown ? '\n' : '');
}

function renderDemo(options: OutputOptions, entries: readonly DemoEntry[]): string {
  if (options.format === 'json') {
    const scenarios = entries.flatMap((e) =>
      e.ok ? [{ scenario: e.name, file: e.file, ...assessedJson(e.cluster, e) }] : [],
    );
    return `${JSON.stringify({ scenarios }, null, 2)}\n`;
  }
  return entries
    .map((e, index) => {
      if (!e.ok) return '';
      const c = e.cluster;
      const heading =
        options.format === 'markdown'
          ? `# Scenario \`${e.name}\` — cluster \`${c.name}\` (account ${c.accountId}, region ${c.region})\n\n`
          : `${index > 0 ? '\n' : ''}=== Scenario ${e.name} — cluster ${c.name} (account ${c.accountId}, region ${c.region}) ===\n`;
      return joinSections(options, heading, [
        assessmentSection(options, c, e),
        ...whatIfSections(options, c, e),
      ]);
    })
    .join('');
}

// ---------------------------------------------------------------------------------------------
// rules

const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The rule catalog as text, a Markdown table (the README's) or JSON. */
export function renderRuleCatalog(rules: readonly CatalogRule[], format: RenderFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(
        {
          rules: rules.map((r) => ({
            id: r.id,
            severity: r.severity,
            title: r.title,
            meaning: r.meaning,
            fix: r.fix,
          })),
        },
        null,
        2,
      )}\n`;
    case 'markdown': {
      const cell = (s: string) => escapeMarkdown(flat(s));
      const rows = rules.map(
        (r) => `| \`${r.id}\` | ${r.severity} | **${cell(r.title)}** — ${cell(r.meaning)} | ${cell(r.fix)} |`,
      );
      return `${['| rule | severity | what it means | fix |', '|---|---|---|---|', ...rows].join('\n')}\n`;
    }
    case 'text': {
      const wrapped = (text: string, indent: string) => wrap(flat(text), 80, indent).join('\n');
      const blocks = rules.map((r) =>
        [
          `${r.severity.toUpperCase().padEnd(9)} ${r.id}`,
          wrapped(r.title, '  '),
          wrapped(r.meaning, '  '),
          wrapped(`Fix: ${r.fix}`, '  '),
        ].join('\n'),
      );
      return `Rule catalog (${rules.length} rules)\n\n${blocks.join('\n\n')}\n`;
    }
  }
}

// ---------------------------------------------------------------------------------------------

/** What a command prints on stdout for its result. */
export function renderCommandResult(result: CommandResult, options: OutputOptions): RenderedOutput {
  const json = options.format === 'json';
  const markdown = options.format === 'markdown';
  switch (result.kind) {
    case 'findings':
      return ok(renderSection(options, result.section));
    case 'event-ignored':
      return ok(
        json
          ? stampedJson({ ignored: true, reason: result.reason }, options.tool)
          : `Event ignored: ${result.reason}\n`,
      );
    case 'compare': {
      const { section } = result;
      if (json) {
        const report = fitJsonReport(section.findings, findingsOptions(options, sectionOptions(section)));
        return ok(
          stampedJson(
            {
              ...report,
              from: result.from,
              ...(result.fixAll ? { fixAll: result.fixAll } : {}),
              ...(result.podIdentityPlan ? { podIdentityPlan: result.podIdentityPlan } : {}),
            },
            options.tool,
          ),
        );
      }
      const format = markdown ? 'markdown' : 'text';
      const body = renderFindings(
        format,
        section.findings,
        findingsOptions(options, sectionOptions(section)),
      );
      const fixes = [
        ...(result.fixAll ? [renderFixSection(format, 'Fix all, in one block', result.fixAll)] : []),
        ...(result.podIdentityPlan
          ? [renderFixSection(format, 'IRSA → Pod Identity plan', result.podIdentityPlan.remediation)]
          : []),
      ];
      return ok(finished([body.trimEnd(), ...fixes].join('\n\n')));
    }
    case 'plan-irrelevant':
      return ok(
        json
          ? stampedJson({ relevant: false, message: NOTHING_RELEVANT, clusters: [] }, options.tool)
          : `${markdown ? '## Terraform plan: ' : ''}${NOTHING_RELEVANT} (${result.resourceChanges} resource change(s) read)\n`,
      );
    case 'plan': {
      if (json) {
        const body = {
          relevant: true,
          plan: result.plan,
          clusters: result.sections.map((s) => toJsonReport(s.findings, simulated(s))),
          unchecked: result.unchecked,
          notes: result.notes,
        };
        return ok(stampedJson(body, options.tool));
      }
      const lines = [...result.notes, ...result.unchecked.map(uncheckedLine)];
      const head = markdown ? lines.map((l) => `> ${l}`) : lines;
      return ok(
        finished([joinedSections(options, result.sections), ...head].filter((x) => x !== '').join('\n\n')),
      );
    }
    case 'aws-auth': {
      const { section } = result;
      return ok(
        json
          ? stampedJson(toJsonReport(section.findings, simulated(section)), options.tool)
          : finished(joinedSections(options, [section])),
      );
    }
    case 'migrate':
      switch (options.format) {
        case 'json':
          // exactly {cluster, steps, accessEntries, blockers}: no `tool` stamp in this contract
          return ok(`${migrationJson(result.plan)}\n`);
        case 'terraform':
        case 'aws-cli': {
          const r =
            options.format === 'terraform' ? migrationTerraform(result.plan) : migrationAwsCli(result.plan);
          return r.ok
            ? ok(r.text)
            : {
                ok: false,
                reason: `the plan cannot be written as ${options.format}: ${r.reason}; use --format json`,
              };
        }
        default:
          return ok(migrationText(result.plan));
      }
    case 'snapshot-document':
      return ok(`${JSON.stringify(result.snapshot, null, 2)}\n`);
    case 'snapshots-written':
      return ok(
        json
          ? `${JSON.stringify({ written: result.written, unreadable: result.unreadable }, null, 2)}\n`
          : result.written.map((w) => `${w.region}/${w.cluster}: ${w.path}\n`).join(''),
      );
    case 'report':
      return ok(renderReport(options, result.regions, result.clusters, result.unreadable));
    case 'demo':
      return ok(renderDemo(options, result.scenarios));
    case 'rules':
      return ok(renderRuleCatalog(result.rules, findingsFormat(options.format)));
  }
}
