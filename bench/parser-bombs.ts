/**
 * `npm run bench -- parser-bombs` (issue 8, case 2): `parseAwsAuth` on 1 MiB of aliases, 1 MiB of
 * deep nesting (flow and block) and 1 MiB of realistic entries, each as a ratio to the realistic
 * one. The realistic text starts with a comment line so that it takes the go-yaml port (the slow
 * path), like the bombs do; the fast-path figure is shown for reference. Goal: every ratio ≤ 3×.
 */
import { awsAuthFastPathAccepts, parseAwsAuth } from '../shared/core/aws-auth/index.ts';

const MIB = 1 << 20;

function realistic(bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const e = `- rolearn: arn:aws:iam::111122223333:role/team-${i}-deployer\n  username: team-${i}:{{SessionName}}\n  groups:\n  - team-${i}-editors\n  - team-${i}-viewers\n`;
    out.push(e);
    size += e.length;
  }
  return out.join('');
}

interface Input {
  label: string;
  text: string;
}

function inputs(): Input[] {
  const entries = realistic(MIB);
  const aliases = `- &a x\n${'- *a\n'.repeat(Math.floor((MIB - 7) / 5))}`;
  const mappingAliases = `- &a {rolearn: x}\n${'- *a\n'.repeat(Math.floor((MIB - 20) / 5))}`;
  const billion = `- &a [x, x, x, x, x, x, x, x, x]\n${'- [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n'.repeat(Math.floor(MIB / 40))}`;
  const half = MIB / 2;
  const flow = `${'['.repeat(half)}${']'.repeat(half)}`;
  const blockLevels = Math.floor(Math.sqrt(2 * MIB)); // Σ i for i < n ≈ n²/2 bytes of indentation
  const block = `${Array.from({ length: blockLevels }, (_, i) => `${' '.repeat(i)}- `).join('\n')}x\n`;
  return [
    { label: 'realistic entries (slow path: leading comment)', text: `# team roles\n${entries}` },
    { label: 'realistic entries (fast path, reference)', text: entries },
    { label: 'aliases: one anchor, `- *a` list items', text: aliases },
    { label: 'aliases: one mapping anchor, `- *a` list items', text: mappingAliases },
    { label: 'aliases: lists of nine aliases of a nine-item list', text: billion },
    { label: 'deep nesting, flow (`[[[…]]]`)', text: flow },
    { label: `deep nesting, block indentation (${blockLevels.toLocaleString('en')} levels)`, text: block },
  ];
}

export interface ParserBombRow {
  label: string;
  bytes: number;
  fastPath: boolean;
  status: string;
  roles: number;
  /** Issues returned (one per cause: the aliases of one node share theirs). */
  issues: number;
  medianMs: number;
  runs: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export function benchParserBombs(runs = Number(process.env.BENCH_RUNS ?? 7)): ParserBombRow[] {
  return inputs().map(({ label, text }) => {
    const times: number[] = [];
    let parsed = parseAwsAuth({ mapRoles: text }); // warm-up
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      parsed = parseAwsAuth({ mapRoles: text });
      times.push(performance.now() - t);
    }
    return {
      label,
      bytes: Buffer.byteLength(text),
      fastPath: awsAuthFastPathAccepts(text),
      status: parsed.keyStatus.mapRoles,
      roles: parsed.roles.length,
      issues: parsed.issues.length,
      medianMs: median(times),
      runs,
    };
  });
}

export function parserBombsMarkdown(rows: ParserBombRow[]): string {
  const base = rows[0]?.medianMs ?? 1;
  const lines = [
    'Each input is one `mapRoles` value of ≈ 1 MiB through `parseAwsAuth` (what `assess` and the functions run); median of the runs after one warm-up. Ratio: to the realistic entries on the slow path. Issues: what the parser returns; the aliases of one YAML node share one issue per cause (`AwsAuthIssue.repeats`), so the output follows the distinct nodes of the input, not the expanded tree.',
    '',
    '| input | bytes | fast path | mapRoles | roles kept | issues | median ms | runs | ratio |',
    '|---|---:|:---:|---|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.label} | ${r.bytes.toLocaleString('en')} | ${r.fastPath ? 'yes' : 'no'} | ${r.status} | ${r.roles.toLocaleString('en')} | ${r.issues.toLocaleString('en')} | ${r.medianMs.toFixed(1)} | ${r.runs} | ${(r.medianMs / base).toFixed(2)}× |`,
    );
  const bombs = rows.slice(2);
  const worst = Math.max(...bombs.map((r) => r.medianMs / base));
  lines.push(
    '',
    `Goal: each bomb ≤ 3× the realistic entries — worst ${worst.toFixed(2)}×: ${worst <= 3 ? 'met' : 'NOT met'}.`,
  );
  return lines.join('\n');
}
