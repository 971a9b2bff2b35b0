/**
 * `npm run bench`: runs every benchmark section and rewrites BENCHMARKS.md with the figures and
 * the command that produced them. `npm run bench -- engine` runs one section.
 */
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { benchCapture, captureMarkdown } from './capture.ts';
import { benchColdStart, buildBundles, coldStartMarkdown } from './cold-start.ts';
import { benchEngine, engineMarkdown } from './engine.ts';
import { benchEventToAlert, eventToAlertMarkdown } from './event-to-alert.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
/** The function bundles, built once for the sections that need them. */
let bundles: Promise<string> | undefined;
const functionBundles = (): Promise<string> => {
  bundles ??= buildBundles();
  return bundles;
};

type Section = { id: string; title: string; run: () => Promise<string> | string };

const SECTIONS: Section[] = [
  { id: 'engine', title: 'Engine: parse + resolve + rules', run: () => engineMarkdown(benchEngine()) },
  {
    id: 'capture',
    title: 'Live capture: sandbox account, 20 ms latency, EKS throttled at 20 calls/s',
    run: async () => captureMarkdown(await benchCapture()),
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
];

const wanted = process.argv.slice(2);
const chosen = wanted.length ? SECTIONS.filter((s) => wanted.includes(s.id)) : SECTIONS;
const parts: string[] = [
  '# Benchmarks',
  '',
  `Produced by \`npm run bench${wanted.length ? ` -- ${wanted.join(' ')}` : ''}\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB.`,
  'The machine is shared and noisy: compare figures as ratios within one run, not across runs.',
  '',
];
for (const s of chosen) {
  process.stderr.write(`bench: ${s.id}…\n`);
  parts.push(`## ${s.title}`, '', await s.run(), '');
}
const out = join(import.meta.dirname, '..', 'BENCHMARKS.md');
writeFileSync(out, `${parts.join('\n').trimEnd()}\n`);
process.stdout.write(`${parts.join('\n')}\nwritten to ${out}\n`);
