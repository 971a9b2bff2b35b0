/**
 * Renderers of findings (text for the terminal and e-mail, Markdown, JSON), of the alerts (Slack,
 * SNS), and of a CLI command's result (command-output.ts; the HTML report is loaded only for it).
 * Pure.
 */

export {
  type OutputFormat,
  type OutputOptions,
  type RenderedOutput,
  renderCommandResult,
  renderRuleCatalog,
  reportSummaryLine,
  type ToolInfo,
  targetLabel,
  uncheckedLine,
  unreadableLine,
} from './command-output.ts';
export type {
  AssessedCluster,
  CatalogRule,
  CommandResult,
  DemoEntry,
  DemoScenario,
  ExitIntent,
  FindingsSection,
  PodIdentityPlan,
  ReportedCluster,
  Unreadable,
  WhatIfReport,
} from './command-result.ts';
export { severitiesOf } from './command-result.ts';
export { renderFindings, renderFixSection } from './findings.ts';
export {
  MIGRATE_FORMATS,
  type MigrateFormat,
  RENDER_FORMATS,
  REPORT_FORMATS,
  type RenderFormat,
  type ReportFormat,
} from './formats.ts';
export { findingToJson, fitJsonReport, type JsonReport, renderJson, toJsonReport } from './json.ts';
export {
  compareFindings,
  countBySeverity,
  DEFAULT_MAX_CHARS,
  omittedLine,
  type RenderOptions,
  type SeverityCounts,
  sortFindings,
  summaryLine,
  wrap,
} from './layout.ts';
export { escapeMarkdown, inlineCode, renderMarkdown } from './markdown.ts';
export { type ReportMarkdownCluster, renderReportMarkdown } from './report-markdown.ts';
export {
  renderSlackMessages,
  renderSlackSingleMessage,
  type SlackPayload,
  type SlackRenderOptions,
} from './slack.ts';
export { renderSnsMessage, renderSnsMessages, type SnsMessage, type SnsRenderOptions } from './sns.ts';
export { renderText } from './text.ts';
export {
  renderWatchEvent,
  type WatchAction,
  type WatchEvent,
  type WatchFinding,
  type WatchSource,
} from './watch-events.ts';
