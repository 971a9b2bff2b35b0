/** Renderers of findings: text (terminal, e-mail), Markdown, JSON. Pure. */
import type { Finding, Remediation } from '../model.ts';
import type { RenderFormat } from './formats.ts';
import { renderJson } from './json.ts';
import type { RenderOptions } from './layout.ts';
import { renderFixMarkdown, renderMarkdown } from './markdown.ts';
import { renderFixText, renderText } from './text.ts';

export { RENDER_FORMATS, type RenderFormat } from './formats.ts';
export { findingToJson, type JsonReport, renderJson, toJsonReport } from './json.ts';
export {
  compareFindings,
  countBySeverity,
  DEFAULT_MAX_CHARS,
  omittedLine,
  type RenderOptions,
  type SeverityCounts,
  sortFindings,
  summaryLine,
} from './layout.ts';
export { escapeMarkdown, inlineCode, renderMarkdown } from './markdown.ts';
export { renderText } from './text.ts';

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
export { MIGRATE_FORMATS, type MigrateFormat, REPORT_FORMATS, type ReportFormat } from './formats.ts';
export { wrap } from './layout.ts';
export {
  renderSlackMessages,
  renderSlackSingleMessage,
  type SlackPayload,
  type SlackRenderOptions,
} from './slack.ts';
export { renderSnsMessage, renderSnsMessages, type SnsMessage, type SnsRenderOptions } from './sns.ts';
