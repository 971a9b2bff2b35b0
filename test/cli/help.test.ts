import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../shared/cli/args.ts';
import { helpText, optionLines } from '../../shared/cli/help.ts';
import {
  COMMAND_OPTIONS,
  COMMANDS,
  type CommandName,
  GLOBAL,
  OPTIONS,
  type OptionName,
  type OptionRow,
} from '../../shared/cli/options.ts';

const NAMES = Object.keys(OPTIONS) as OptionName[];

/** The usage lines of a help text: everything before its first blank line. */
function usageOf(text: string): string {
  return text.slice(0, text.indexOf('\n\n'));
}

/** Every `--name` and the placeholder written after it (undefined when none). */
function mentions(text: string): Array<{ name: string; value: string | undefined }> {
  return [...text.matchAll(/--([a-z][a-z-]*)(?: ([A-Z][A-Za-z0-9.]*(?:\[,[A-Z0-9]+\])?))?/g)].map((m) => ({
    name: m[1] as string,
    value: m[2],
  }));
}

/** The main usage line(s) of one command: from its name to the next command's. */
function mainUsageOf(command: CommandName): string {
  const lines = usageOf(helpText()).split('\n');
  const start = lines.findIndex((l) => l.startsWith(`  eks-auth-sentinel ${command} `));
  const next = lines.findIndex((l, i) => i > start && l.startsWith('  eks-auth-sentinel '));
  return lines.slice(start, next).join('\n');
}

describe('help text and option table', () => {
  it.each(COMMANDS)('names every option %s takes, and only those, in its help', (command) => {
    const allowed = new Set<string>([...GLOBAL, ...COMMAND_OPTIONS[command]]);
    for (const usage of [usageOf(helpText(command)), mainUsageOf(command)]) {
      for (const { name, value } of mentions(usage)) {
        expect(allowed, `${command} help names --${name}`).toContain(name);
        const row: OptionRow = OPTIONS[name as OptionName];
        // F and S abbreviate text|markdown|json and SEVERITY; R[,R2] is a list of R.
        if (value !== undefined && row.value !== undefined && /^[A-Z.]+$/i.test(row.value)) {
          expect(value.startsWith(row.value) || row.value.startsWith(value), `--${name} ${value}`).toBe(true);
        }
      }
    }
    const named = new Set(mentions(helpText(command)).map((m) => m.name));
    for (const option of COMMAND_OPTIONS[command]) expect(named, `${command} --${option}`).toContain(option);
  });

  it('has no row that no command takes', () => {
    const used = new Set<string>([...GLOBAL, ...Object.values(COMMAND_OPTIONS).flat()]);
    expect(NAMES.filter((n) => !used.has(n))).toEqual([]);
  });

  it('lists every global option with its description and default in the main usage', () => {
    const main = helpText();
    for (const name of NAMES.filter((n) => GLOBAL.includes(n))) expect(main).toContain(`--${name}`);
    expect(main).toContain(optionLines(['format']));
    expect(main).toMatch(/^ {2}--format text\|markdown\|json +output format \(default: text\)$/m);
    expect(main).toMatch(/^ {2}-V, --version +show the version$/m);
  });

  it('aligns descriptions and moves a default that does not fit onto its own line', () => {
    const lines = optionLines(['fail-on', 'max-chars']).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^ +\(default: critical for assess/);
    const column = (lines[0] ?? '').indexOf('exit 1');
    expect((lines[1] ?? '').indexOf('(default')).toBe(column);
    expect((lines[2] ?? '').indexOf('bound')).toBe(column);
  });

  it('parses every option the table gives a command', () => {
    for (const command of COMMANDS) {
      for (const name of COMMAND_OPTIONS[command]) {
        const row: OptionRow = OPTIONS[name];
        const argv = [command, `--${name}`, ...(row.type === 'string' ? ['x'] : []), '--help'];
        expect(parseCommandLine(argv)).toEqual({ kind: 'help', command });
      }
    }
  });
});
