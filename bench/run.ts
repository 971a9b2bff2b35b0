/**
 * `npm run bench`: runs every benchmark section and rewrites BENCHMARKS.md with the figures and
 * the command that produced them. `npm run bench -- engine` runs one section and keeps the
 * others as they were (each section carries its own command, time and machine line).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { awsAuthToAlertMarkdown, benchAwsAuthToAlert } from './aws-auth-to-alert.ts';
import { benchCapture, captureMarkdown } from './capture.ts';
import { benchCaptureMemory, captureMemoryMarkdown } from './capture-memory.ts';
import {
  benchCaptureWorkloadIdentity,
  captureWorkloadIdentityMarkdown,
} from './capture-workload-identity.ts';
import { benchCliStart, cliStartMarkdown } from './cli-start.ts';
import { benchColdStart, buildBundles, coldStartMarkdown } from './cold-start.ts';
import { benchEngine, benchParseCompare, engineMarkdown } from './engine.ts';
import { benchEventToAlert, eventToAlertMarkdown } from './event-to-alert.ts';
import { benchParserBombs, parserBombsMarkdown } from './parser-bombs.ts';
import { benchParserDifferential, parserDifferentialMarkdown } from './parser-differential.ts';
import { benchTerraformPlan, terraformPlanMarkdown } from './terraform-plan.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
/** The function bundles, built once for the sections that need them. */
let bundles: Promise<string> | undefined;
const functionBundles = (): Promise<string> => {
  bundles ??= buildBundles();
  return bundles;
};

type Section = { id: string; title: string; run: () => Promise<string> | string };

const SECTIONS: Section[] = [
  {
    id: 'engine',
    title: 'Engine: parse + resolve + rules',
    run: () => engineMarkdown(benchEngine(), benchParseCompare()),
  },
  {
    id: 'capture',
    title: 'Live capture: sandbox account, 20 ms latency, EKS throttled at 20 calls/s',
    run: async () => captureMarkdown(await benchCapture()),
  },
  {
    id: 'capture-workload-identity',
    title: 'Capture with workload identity: 500 associations + 500 IRSA service accounts over 200 roles',
    run: async () => captureWorkloadIdentityMarkdown(await benchCaptureWorkloadIdentity()),
  },
  {
    id: 'capture-memory',
    title: 'Capture memory: one cluster of 100k nodes, the capture process alone',
    run: async () => captureMemoryMarkdown(await benchCaptureMemory()),
  },
  {
    id: 'cold-start',
    title: 'Cold start: module init of each function bundle vs a bare one-SDK-client bundle',
    run: async () => coldStartMarkdown(benchColdStart(await functionBundles())),
  },
  {
    id: 'event-to-alert',
    title: 'Event to alert: onEksEvent from a DeleteNodegroup record to the Slack message, 20 ms per call',
    run: async () => eventToAlertMarkdown(await benchEventToAlert(await functionBundles())),
  },
  {
    id: 'aws-auth-to-alert',
    title: 'aws-auth write → Slack: default and continuous mode, 20 ms per call, and their cost per month',
    run: async () => awsAuthToAlertMarkdown(await benchAwsAuthToAlert(await functionBundles())),
  },
  {
    id: 'cli-start',
    title: 'CLI start: a file-only `assess --snapshot` vs a bare `node -e 0`',
    run: () => cliStartMarkdown(benchCliStart()),
  },
  {
    id: 'parser-differential',
    title: 'Parser differential: parseAwsAuth vs the authenticator (Go reference) on generated aws-auth',
    run: async () => parserDifferentialMarkdown(await benchParserDifferential()),
  },
  {
    id: 'parser-bombs',
    title: 'Parser bombs: 1 MiB of aliases and of deep nesting vs 1 MiB of realistic entries',
    run: () => parserBombsMarkdown(benchParserBombs()),
  },
  {
    id: 'terraform-plan',
    title: 'whatif --terraform-plan: 2,000 resource changes against a 10k-entry aws-auth, vs assess',
    run: () => terraformPlanMarkdown(benchTerraformPlan()),
  },
];

const wanted = process.argv.slice(2);
const chosen = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.id)) : SECTIONS;
const out = join(import.meta.dirname, '..', 'BENCHMARKS.md');

/** The sections already in BENCHMARKS.md, by title: a partial run keeps the others. */
function existingSections(): Map<string, string> {
  const found = new Map<string, string>();
  if (!existsSync(out)) return found;
  const chunks = readFileSync(out, 'utf8').split(/^## /m).slice(1);
  for (const chunk of chunks) {
    const title = chunk.slice(0, chunk.indexOf('\n'));
    found.set(title, chunk.slice(title.length).trim());
  }
  return found;
}

const fresh = new Map<string, string>();
for (const s of chosen) {
  process.stderr.write(`bench: ${s.id}…\n`);
  fresh.set(s.title, await s.run());
}
// Read when writing, not when starting: a section another run wrote meanwhile is kept.
const kept = existingSections();
const when = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const machine = `Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${loadavg()[0]?.toFixed(1)} at the end`;
const parts: string[] = [
  '# Benchmarks',
  '',
  'Produced by `npm run bench` (all sections) or `npm run bench -- <section>` (one section; the others are kept as they were).',
  'The machine is shared and noisy: compare figures as ratios within one run, not across runs.',
  '',
];
for (const s of SECTIONS) {
  const body = fresh.get(s.title);
  const stamp = body ? `_\`npm run bench -- ${s.id}\` at ${when}; ${machine}._` : undefined;
  const text = body ? `${stamp}\n\n${body}` : kept.get(s.title);
  if (text) parts.push(`## ${s.title}`, '', text, '');
}
// Sections this script does not produce (written by hand or by another branch's bench) stay as they are.
const known = new Set(SECTIONS.map((s) => s.title));
for (const [title, text] of kept) if (!known.has(title)) parts.push(`## ${title}`, '', text, '');
writeFileSync(out, `${parts.join('\n').trimEnd()}\n`);
process.stdout.write(`${parts.join('\n')}\nwritten to ${out}\n`);
