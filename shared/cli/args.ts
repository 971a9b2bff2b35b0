/**
 * Command-line parsing: `node:util` parseArgs in strict mode over every option, then a check that
 * each option given belongs to the command (both from the option table in options.ts). Every
 * mistake is a `CliError` with one clear line.
 */
import { parseArgs } from 'node:util';
import type { SnapshotSource } from '../app/commands/command-inputs.ts';
import type { SnapshotDestination } from '../app/commands/snapshot-command.ts';
import type { RemediateMode } from '../app/commands/watch-command.ts';
import type { WhatIfRequest } from '../app/commands/whatif-command.ts';
import type { PlanSnapshotSource } from '../app/commands/whatif-plan-command.ts';
import { AUTHENTICATION_MODES, isRegionCode } from '../core/model.ts';
import {
  type MigrateFormat,
  RENDER_FORMATS,
  type RenderFormat,
  type ReportFormat,
} from '../core/render/index.ts';
import { CliError } from './errors.ts';
import {
  COMMAND_FORMATS,
  COMMAND_OPTIONS,
  COMMANDS,
  type CommandName,
  DEFAULT_CLUSTER_CONCURRENCY,
  DEFAULT_WATCH_INTERVAL_SECONDS,
  FAIL_ON_VALUES,
  type FailOn,
  FILE_INPUTS,
  GLOBAL,
  MAX_CLUSTER_CONCURRENCY,
  OPTIONS,
  type OptionName,
  REMEDIATE_MODES,
  WHATIF_CHANGES,
} from './options.ts';

export interface CommonArgs {
  format: RenderFormat;
  /** Undefined: the command's default. */
  failOn: FailOn | undefined;
  maxChars: number | undefined;
  debug: boolean;
}

export type { PlanSnapshotSource, SnapshotDestination, SnapshotSource, WhatIfRequest };

export type ParsedArgs =
  | { kind: 'help'; command?: CommandName }
  | { kind: 'version' }
  | ({ kind: 'assess'; source: SnapshotSource } & CommonArgs)
  | ({ kind: 'diff'; before: string; after: string } & CommonArgs)
  | ({ kind: 'whatif'; source: SnapshotSource; request: WhatIfRequest } & CommonArgs)
  | ({ kind: 'whatif-plan'; plan: string; source: PlanSnapshotSource } & CommonArgs)
  | ({ kind: 'whatif-aws-auth'; file: string; source: SnapshotSource } & CommonArgs)
  | ({ kind: 'compare'; from: SnapshotSource; to: SnapshotSource } & CommonArgs)
  | ({
      kind: 'snapshot';
      /** undefined: every cluster of the Regions (--all). */
      clusterName: string | undefined;
      regions: string[];
      destination: SnapshotDestination;
      concurrency: number;
    } & CommonArgs)
  | ({
      kind: 'report';
      clusterName: string | undefined;
      regions: string[];
      concurrency: number;
      /** `--snapshot FILE`: report on that snapshot instead of reading clusters live. */
      snapshotFile?: string;
      /** The format asked for (`format` holds the findings' format: text for html). */
      reportFormat: ReportFormat;
      out: string | undefined;
    } & CommonArgs)
  | ({ kind: 'migrate'; source: SnapshotSource; migrateFormat: MigrateFormat } & CommonArgs)
  | ({
      kind: 'watch';
      clusterName: string;
      region: string;
      durationSeconds: number | undefined;
      intervalSeconds: number;
      remediate: RemediateMode;
      /** NDJSON (`json`) or one readable line per event. */
      watchFormat: 'text' | 'json';
    } & CommonArgs)
  | ({ kind: 'rules' } & CommonArgs)
  | ({ kind: 'demo'; scenarios: string | undefined } & CommonArgs);

const HELP_HINT = 'eks-auth-sentinel --help';

function commandHint(command: CommandName | undefined): string {
  return command === undefined ? `see ${HELP_HINT}` : `see eks-auth-sentinel ${command} --help`;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function allowedFor(command: CommandName | undefined): readonly OptionName[] {
  return command === undefined ? GLOBAL : [...GLOBAL, ...COMMAND_OPTIONS[command]];
}

function firstPositional(argv: readonly string[]): CommandName | undefined {
  const first = argv.find((a) => !a.startsWith('-'));
  return (COMMANDS as readonly string[]).includes(first ?? '') ? (first as CommandName) : undefined;
}

/** Turns parseArgs' own errors into one line that names the option. */
function translateParseError(error: unknown, argv: readonly string[]): CliError {
  const command = firstPositional(argv);
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? '';
  const option = quoted.split(' ')[0] ?? quoted;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = option.replace(/^-+/, '').split('=')[0] ?? '';
    const suggestion = closest(name, allowedFor(command));
    const hint = suggestion === undefined ? '' : `; did you mean --${suggestion}?`;
    return new CliError(`unknown option ${option}${hint}`, { where: commandHint(command) });
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) {
      return new CliError(`option ${option} does not take a value`, { where: commandHint(command) });
    }
    return new CliError(`option ${option} needs a value`, { where: commandHint(command) });
  }
  return new CliError(message.split('. ')[0] ?? message, { where: commandHint(command) });
}

/** `anyCase`: the value is matched lower-cased (severities, which the output prints as `HIGH`). */
function oneOf<T extends string>(value: string, allowed: readonly T[], option: string, anyCase = false): T {
  const given = anyCase ? value.toLowerCase() : value;
  if ((allowed as readonly string[]).includes(given)) return given as T;
  throw new CliError(`--${option} must be one of ${allowed.join('|')}, not '${value}'`);
}

function parseMaxChars(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1_000) {
    throw new CliError(`--max-chars must be a whole number of at least 1000, not '${value}'`);
  }
  return n;
}

function required(values: Record<string, unknown>, name: OptionName, command: CommandName): string {
  const v = values[name];
  if (typeof v !== 'string' || v.length === 0) {
    throw new CliError(`${command} needs --${name}`, { where: commandHint(command) });
  }
  return v;
}

/** `--region R[,R2]`, else $AWS_REGION, else $AWS_DEFAULT_REGION; each checked, duplicates dropped. */
function parseRegions(
  value: string | undefined,
  env: Record<string, string | undefined>,
  command: CommandName,
): string[] {
  const given = value ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (given === undefined || given.trim() === '') {
    throw new CliError(`${command} needs --region (or AWS_REGION set)`, { where: commandHint(command) });
  }
  const regions = [...new Set(given.split(',').map((r) => r.trim()))];
  for (const region of regions) {
    if (!isRegionCode(region)) {
      throw new CliError(
        `--region must be AWS Region codes separated by commas (e.g. eu-west-1), not '${region}'`,
      );
    }
  }
  return regions;
}

function oneRegion(regions: string[], command: CommandName): string {
  const [region] = regions;
  if (region === undefined || regions.length > 1) {
    throw new CliError(`${command} --cluster takes exactly one Region, got ${regions.join(',')}`, {
      where: commandHint(command),
    });
  }
  return region;
}

/** `--snapshot FILE` or `--cluster NAME [--region R]`, exactly one. */
function snapshotSource(
  values: Record<string, unknown>,
  env: Record<string, string | undefined>,
  command: CommandName,
): SnapshotSource {
  const file = values.snapshot as string | undefined;
  const cluster = values.cluster as string | undefined;
  if (file !== undefined && (cluster !== undefined || values.region !== undefined)) {
    throw new CliError(`${command} takes --snapshot FILE or --cluster NAME --region R, not both`, {
      where: commandHint(command),
    });
  }
  if (file !== undefined) return { kind: 'file', path: required(values, 'snapshot', command) };
  if (cluster === undefined) {
    throw new CliError(`${command} needs --snapshot FILE or --cluster NAME --region R`, {
      where: commandHint(command),
    });
  }
  const region = oneRegion(parseRegions(values.region as string | undefined, env, command), command);
  return { kind: 'live', clusterName: required(values, 'cluster', command), region };
}

/**
 * `whatif --terraform-plan`: `--snapshot FILE`, or live in one Region: `--cluster A[,B]`, or
 * without --cluster every cluster the plan names.
 */
function planSource(
  values: Record<string, unknown>,
  env: Record<string, string | undefined>,
  command: CommandName,
): PlanSnapshotSource {
  if (values.snapshot !== undefined) {
    const source = snapshotSource(values, env, command);
    if (source.kind === 'file') return source;
  }
  const region = oneRegion(parseRegions(values.region as string | undefined, env, command), command);
  const cluster = values.cluster as string | undefined;
  if (cluster === undefined) return { kind: 'live', clusterNames: undefined, region };
  const clusterNames = [...new Set(cluster.split(',').map((c) => c.trim()))];
  if (clusterNames.some((c) => c === '')) {
    throw new CliError(`--cluster must be cluster names separated by commas, not '${cluster}'`, {
      where: commandHint(command),
    });
  }
  return { kind: 'live', clusterNames, region };
}

/** `compare`'s side: `--from FILE` or `--from-cluster NAME [--from-region R]` (and `to`). */
function compareSide(
  values: Record<string, unknown>,
  env: Record<string, string | undefined>,
  side: 'from' | 'to',
): SnapshotSource {
  const command: CommandName = 'compare';
  const file = values[side] as string | undefined;
  const cluster = values[`${side}-cluster`] as string | undefined;
  const region = values[`${side}-region`] as string | undefined;
  if (file !== undefined && (cluster !== undefined || region !== undefined)) {
    throw new CliError(
      `compare takes --${side} FILE or --${side}-cluster NAME [--${side}-region R], not both`,
      {
        where: commandHint(command),
      },
    );
  }
  if (file !== undefined) return { kind: 'file', path: required(values, side, command) };
  if (cluster === undefined) {
    throw new CliError(`compare needs --${side} FILE or --${side}-cluster NAME`, {
      where: commandHint(command),
    });
  }
  if (region !== undefined && !isRegionCode(region.trim())) {
    throw new CliError(`--${side}-region must be an AWS Region code (e.g. eu-west-1), not '${region}'`);
  }
  const regions = region === undefined ? parseRegions(undefined, env, command) : [region.trim()];
  return {
    kind: 'live',
    clusterName: required(values, `${side}-cluster` as OptionName, command),
    region: oneRegion(regions, command),
  };
}

function parseConcurrency(value: string | undefined): number {
  if (value === undefined) return DEFAULT_CLUSTER_CONCURRENCY;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_CLUSTER_CONCURRENCY) {
    throw new CliError(
      `--concurrency must be a whole number from 1 to ${MAX_CLUSTER_CONCURRENCY}, not '${value}'`,
    );
  }
  return n;
}

/** A number of seconds: a whole number from `min` to one day. */
function parseSeconds(value: string | undefined, option: OptionName, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > 86_400) {
    throw new CliError(`--${option} must be a whole number of seconds from ${min} to 86400, not '${value}'`);
  }
  return n;
}

function unknownCommand(word: string): CliError {
  const suggestion = closest(word, COMMANDS);
  return new CliError(
    `unknown command '${word}'${suggestion === undefined ? '' : `; did you mean ${suggestion}?`}`,
    {
      where: `commands: ${COMMANDS.join(', ')}`,
    },
  );
}

function parseStrict(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
}

/**
 * Parses the command line into one request, or throws a `CliError`. `env` supplies the default
 * Region (AWS_REGION, AWS_DEFAULT_REGION) of the live commands.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined> = {},
): ParsedArgs {
  let parsed: ReturnType<typeof parseStrict>;
  try {
    parsed = parseStrict(argv);
  } catch (error) {
    throw translateParseError(error, argv);
  }
  const { values, positionals, tokens } = parsed;
  const [first, ...rest] = positionals;

  // `help [command]` is the same as `[command] --help`.
  if (first === 'help') {
    const target = rest[0];
    if (target === undefined) return { kind: 'help' };
    if (!(COMMANDS as readonly string[]).includes(target)) throw unknownCommand(target);
    return { kind: 'help', command: target as CommandName };
  }
  let command: CommandName | undefined;
  if (first !== undefined) {
    if (!(COMMANDS as readonly string[]).includes(first)) throw unknownCommand(first);
    command = first as CommandName;
  }
  if (values.help === true) return command === undefined ? { kind: 'help' } : { kind: 'help', command };
  if (values.version === true) return { kind: 'version' };
  if (command === undefined) throw new CliError('missing command', { where: `see ${HELP_HINT}` });
  if (rest.length > 0)
    throw new CliError(`unexpected argument '${rest[0]}'`, { where: commandHint(command) });

  const allowed = new Set<string>(allowedFor(command));
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!allowed.has(token.name)) {
      throw new CliError(`option --${token.name} does not apply to ${command}`, {
        where: commandHint(command),
      });
    }
    if (seen.has(token.name))
      throw new CliError(`option --${token.name} given twice`, { where: commandHint(command) });
    seen.add(token.name);
  }
  // Standard input can be read once.
  const fromStdin = FILE_INPUTS.filter((name) => values[name] === '-');
  if (fromStdin.length > 1) {
    throw new CliError(
      `only one input can be read from stdin (-), not ${fromStdin.map((o) => `--${o}`).join(' and ')}`,
      { where: commandHint(command) },
    );
  }

  const chosenFormat = oneOf(values.format ?? 'text', COMMAND_FORMATS[command] ?? RENDER_FORMATS, 'format');
  const common: CommonArgs = {
    // migrate's and report's own formats (terraform, html, …) leave the findings' format at text
    format: (RENDER_FORMATS as readonly string[]).includes(chosenFormat)
      ? (chosenFormat as RenderFormat)
      : 'text',
    failOn:
      values['fail-on'] === undefined ? undefined : oneOf(values['fail-on'], FAIL_ON_VALUES, 'fail-on', true),
    maxChars: parseMaxChars(values['max-chars']),
    debug: values.debug === true,
  };

  switch (command) {
    case 'assess':
      return { kind: 'assess', source: snapshotSource(values, env, command), ...common };
    case 'diff':
      return {
        kind: 'diff',
        before: required(values, 'before', command),
        after: required(values, 'after', command),
        ...common,
      };
    case 'whatif': {
      const given = WHATIF_CHANGES.filter((o) => values[o] !== undefined);
      const [option] = given;
      if (option === undefined || given.length > 1) {
        throw new CliError(
          given.length > 1
            ? `whatif takes exactly one change, got ${given.map((o) => `--${o}`).join(' and ')}`
            : `whatif needs a change: one of ${WHATIF_CHANGES.map((o) => `--${o}`).join(', ')}`,
          { where: commandHint(command) },
        );
      }
      const value = required(values, option, command);
      if (option === 'terraform-plan') {
        return { kind: 'whatif-plan', plan: value, source: planSource(values, env, command), ...common };
      }
      const source = snapshotSource(values, env, command);
      if (option === 'aws-auth') return { kind: 'whatif-aws-auth', file: value, source, ...common };
      const request: WhatIfRequest =
        option === 'auth-mode'
          ? { option, value: oneOf(value, AUTHENTICATION_MODES, 'auth-mode') }
          : { option, value };
      return { kind: 'whatif', source, request, ...common };
    }
    case 'compare':
      return {
        kind: 'compare',
        from: compareSide(values, env, 'from'),
        to: compareSide(values, env, 'to'),
        ...common,
      };
    case 'snapshot': {
      const regions = parseRegions(values.region, env, command);
      const all = values.all === true;
      if (all === (values.cluster !== undefined)) {
        throw new CliError('snapshot takes exactly one of --cluster NAME and --all', {
          where: commandHint(command),
        });
      }
      if (values.out !== undefined && values.store !== undefined) {
        throw new CliError('snapshot takes --out FILE or --store DIR, not both', {
          where: commandHint(command),
        });
      }
      if (all && values.out !== undefined) {
        throw new CliError('snapshot --all writes into the store (--store DIR), not one --out file', {
          where: commandHint(command),
        });
      }
      const destination: SnapshotDestination =
        values.out === undefined
          ? {
              kind: 'store',
              dir: values.store === undefined ? undefined : required(values, 'store', command),
            }
          : { kind: 'file', path: required(values, 'out', command) };
      return {
        kind: 'snapshot',
        clusterName: all ? undefined : required(values, 'cluster', command),
        regions: all ? regions : [oneRegion(regions, command)],
        destination,
        concurrency: parseConcurrency(values.concurrency),
        ...common,
      };
    }
    case 'report': {
      const reportFormat = chosenFormat as ReportFormat;
      const out = values.out === undefined ? undefined : required(values, 'out', command);
      if (values.snapshot !== undefined) {
        if (values.cluster !== undefined || values.region !== undefined || values.concurrency !== undefined) {
          throw new CliError('report takes --snapshot FILE or --cluster/--region, not both', {
            where: commandHint(command),
          });
        }
        return {
          kind: 'report',
          clusterName: undefined,
          regions: [],
          concurrency: 1,
          snapshotFile: required(values, 'snapshot', command),
          reportFormat,
          out,
          ...common,
        };
      }
      const regions = parseRegions(values.region, env, command);
      const clusterName = values.cluster === undefined ? undefined : required(values, 'cluster', command);
      return {
        kind: 'report',
        clusterName,
        regions: clusterName === undefined ? regions : [oneRegion(regions, command)],
        concurrency: parseConcurrency(values.concurrency),
        reportFormat,
        out,
        ...common,
      };
    }
    case 'migrate':
      return {
        kind: 'migrate',
        source: snapshotSource(values, env, command),
        migrateFormat: chosenFormat as MigrateFormat,
        ...common,
      };
    case 'watch': {
      if (values.cluster === undefined) {
        throw new CliError('watch needs --cluster NAME --region R', { where: commandHint(command) });
      }
      return {
        kind: 'watch',
        clusterName: required(values, 'cluster', command),
        region: oneRegion(parseRegions(values.region, env, command), command),
        durationSeconds: parseSeconds(values.duration, 'duration', 1),
        intervalSeconds: parseSeconds(values.interval, 'interval', 1) ?? DEFAULT_WATCH_INTERVAL_SECONDS,
        remediate: oneOf(values.remediate ?? 'off', REMEDIATE_MODES, 'remediate'),
        watchFormat: chosenFormat as 'text' | 'json',
        ...common,
      };
    }
    case 'rules':
      return { kind: 'rules', ...common };
    case 'demo':
      return { kind: 'demo', scenarios: values.scenarios, ...common };
  }
}
