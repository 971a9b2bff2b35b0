/** One block of findings, or one fix, in the format asked for. Pure. */
import type { Finding, Remediation } from '../model.ts';
import type { RenderFormat } from './formats.ts';
import { renderJson } from './json.ts';
import type { RenderOptions } from './layout.ts';
import { renderFixMarkdown, renderMarkdown } from './markdown.ts';
import { renderFixText, renderText } from './text.ts';

/** A fix section outside the findings, for text and Markdown (JSON carries it as data). */
export function renderFixSection(format: 'text' | 'markdown', heading: string, r: Remediation): string {
  return format === 'text' ? renderFixText(heading, r) : renderFixMarkdown(heading, r);
}

/** Renders in the given format. */
export function renderFindings(
  format: RenderFormat,
  findings: readonly Finding[],
  options: RenderOptions = {},
): string {
  switch (format) {
    case 'text':
      return renderText(findings, options);
    case 'markdown':
      return renderMarkdown(findings, options);
    case 'json':
      return renderJson(findings, options);
  }
}
