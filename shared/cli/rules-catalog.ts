/** The `rules` command's output: the rule catalog as text, a Markdown table (the README's) or JSON. */
import type { Severity } from '../core/model.ts';
import { escapeMarkdown, type RenderFormat, wrap } from '../core/render/index.ts';

export interface CatalogRule {
  id: string;
  severity: Severity;
  title: string;
  meaning: string;
  fix: string;
}

const flat = (s: string) => s.replace(/\s+/g, ' ').trim();

function wrapped(text: string, indent: string): string {
  return wrap(flat(text), 80, indent).join('\n');
}

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
