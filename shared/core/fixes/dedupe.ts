/**
 * One report, each AWS CLI command once: a command an earlier finding's fix already runs (same
 * argument vector) becomes a comment naming that finding, and a fix whose every command is
 * earlier says "same fix as …". Findings are read in report order (most severe first), so the
 * script a user pastes top to bottom never runs a command twice (a second `create-access-entry`
 * fails with ResourceInUseException, a second mode switch with InvalidParameterException).
 * Pure; works on the structured scripts `renderFix` kept, never on rendered text.
 */
import type { Finding } from '../model.ts';
import { commandArgv, renderShellScript, type ShellLine } from '../quote/shell.ts';
import { fixScriptOf } from './remediation.ts';

function argvKey(line: ShellLine): string | undefined {
  if ('comment' in line) return undefined;
  try {
    return JSON.stringify(commandArgv(line));
  } catch {
    return undefined;
  }
}

const nameOf = (f: Finding) => `${f.ruleId} for ${f.subject}`;

export function dedupeFixCommands(findings: readonly Finding[]): Finding[] {
  const seen = new Map<string, Finding>();
  return findings.map((f) => {
    const r = f.remediation;
    const script = r === undefined ? undefined : fixScriptOf(r);
    if (r === undefined || script === undefined || r.awsCli === undefined) return f;
    const out: ShellLine[] = [];
    const earlier = new Set<Finding>();
    let kept = 0;
    for (const line of script) {
      const key = argvKey(line);
      const first = key === undefined ? undefined : seen.get(key);
      if (key === undefined || first === undefined || first === f) {
        if (key !== undefined) {
          seen.set(key, f);
          kept++;
        }
        out.push(line);
        continue;
      }
      earlier.add(first);
      const words = 'argv' in line ? line.argv.slice(0, 3).filter((w) => typeof w === 'string') : [];
      out.push({ comment: `already run above (fix of ${nameOf(first)}): ${words.join(' ')} …` });
    }
    if (earlier.size === 0) return f;
    const final: ShellLine[] =
      kept === 0 ? [...earlier].map((e) => ({ comment: `same fix as ${nameOf(e)} above` })) : out;
    const text = renderShellScript(final);
    if (!text.ok) return f;
    return { ...f, remediation: { ...r, awsCli: text.text } };
  });
}
