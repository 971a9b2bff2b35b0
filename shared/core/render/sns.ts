/**
 * SNS rendering of alert notices (docs/design.md#channels), for `Publish` with
 * `MessageStructure: 'json'`:
 *   - `default` and `email`: readable text (the text renderer: prose wrapped, fixes in fences);
 *   - `sqs`, `lambda`, `https`: the notices as JSON for machines (`findingToJson` per finding) —
 *     or, with `https: 'chatbot'`, AWS Chatbot's custom-notification format on `https`;
 *   - `Subject` (e-mail): ≤ 100 printable ASCII characters, e.g.
 *     `[CRITICAL] prod eu-west-1: nodegroup/deletion-orphans-role`;
 *   - message attributes for subscription filter policies: `severity`, `ruleId`, `cluster`,
 *     `region`, `account`, `kind` (String; String.Array when a batch spans several values).
 * The whole request (message + attributes) stays ≤ 256 KiB: oversized notices are rendered with
 * less (shorter text, clipped JSON strings marked `"truncated": true`), never cut mid-code-block.
 * Pure.
 */
import type { Notice, NoticeKind } from '../alerts/lifecycle.ts';
import { type Finding, type Severity, severityRank } from '../model.ts';
import { jsonText } from '../quote/json.ts';
import { findingToJson } from './json.ts';
import {
  clusterLabel,
  confirmationLine,
  fitBlocks,
  noticeOrder,
  omittedLine,
  oneLine,
  plural,
} from './layout.ts';
import { alertLinks } from './links.ts';
import { renderMarkdown } from './markdown.ts';
import { utf8Bytes } from './slack.ts';
import { renderText } from './text.ts';

export const SNS_LIMITS = {
  /** Message plus attributes, bytes. */
  maxMessageBytes: 256 * 1024,
  maxSubjectChars: 100,
  maxAttributes: 10,
  /** Chatbot custom notifications (conservative). */
  chatbotTitleChars: 250,
  chatbotDescriptionChars: 8000,
} as const;

export const SNS_MESSAGE_SCHEMA = 'eks-auth-sentinel/notices@1';

export type SnsAttribute = { DataType: 'String' | 'String.Array'; StringValue: string };

export interface SnsMessage {
  subject: string;
  /** The per-protocol JSON document, as a string (Publish `Message`). */
  message: string;
  messageStructure: 'json';
  messageAttributes: Record<string, SnsAttribute>;
  /** Size SNS counts against its limit (message + attribute names, types and values). */
  bytes: number;
}

export interface SnsRenderOptions {
  /** What `https` subscribers get: the findings JSON (default) or an AWS Chatbot custom notification. */
  https?: 'findings' | 'chatbot';
  /** Default 256 KiB. */
  maxMessageBytes?: number;
}

const KIND_WORD: Record<NoticeKind, string> = {
  opened: 'NEW',
  escalated: 'ESCALATED',
  confirmed: 'CONFIRMED',
  resolved: 'RESOLVED',
};

/** Printable ASCII only (others become `?`), one line, at most `max` characters. */
export function asciiSafe(text: string, max: number): string {
  const flat = oneLine(text).replace(/[^\x20-\x7e]/g, '?');
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 3))}...`;
}

function highest(notices: readonly Notice[]): Severity {
  let top: Severity = 'info';
  for (const n of notices) if (severityRank(n.finding.severity) > severityRank(top)) top = n.finding.severity;
  return top;
}

function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** `[CRITICAL] prod eu-west-1: nodegroup/deletion-orphans-role` */
export function snsSubject(notices: readonly Notice[]): string {
  const first = notices[0];
  if (first === undefined) return 'eks-auth-sentinel';
  const c = first.finding.cluster;
  const where = `${c.name} ${c.region}`;
  const kinds = distinct(notices.map((n) => n.kind));
  const tag =
    kinds.length === 1 && kinds[0] === 'resolved'
      ? '[RESOLVED]'
      : `[${highest(notices.filter((n) => n.kind !== 'resolved')).toUpperCase()}${kinds.length === 1 && (kinds[0] === 'escalated' || kinds[0] === 'confirmed') ? `, ${kinds[0]}` : ''}]`;
  const rules = distinct(notices.map((n) => n.finding.ruleId));
  const what =
    notices.length === 1
      ? first.finding.ruleId
      : `${plural(notices.length, 'notice')} (${rules[0] ?? ''}${rules.length > 1 ? `, +${rules.length - 1} more` : ''})`;
  return asciiSafe(`${tag} ${where}: ${what}`, SNS_LIMITS.maxSubjectChars);
}

function attributeValue(value: string): string {
  // One line; no lone surrogates (not valid XML 1.0); never empty (SNS rejects an empty value).
  const v = oneLine(value)
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .slice(0, 1024);
  return v.length > 0 ? v : '-';
}

function attribute(values: readonly string[]): SnsAttribute {
  const all = distinct(values.map(attributeValue));
  return all.length === 1
    ? { DataType: 'String', StringValue: all[0] as string }
    : { DataType: 'String.Array', StringValue: JSON.stringify(all) };
}

/** Message attributes for subscription filter policies. */
export function snsAttributes(notices: readonly Notice[]): Record<string, SnsAttribute> {
  const f = notices.map((n) => n.finding);
  const open = notices.filter((n) => n.kind !== 'resolved');
  return {
    severity: { DataType: 'String', StringValue: highest(open.length > 0 ? open : notices) },
    ruleId: attribute(f.map((x) => x.ruleId)),
    cluster: attribute(f.map((x) => x.cluster.name)),
    region: attribute(f.map((x) => x.cluster.region)),
    account: attribute(f.map((x) => x.cluster.accountId)),
    kind: attribute(notices.map((n) => n.kind)),
  };
}

function attributesBytes(attributes: Record<string, SnsAttribute>): number {
  let n = 0;
  for (const [name, a] of Object.entries(attributes))
    n += utf8Bytes(name) + utf8Bytes(a.DataType) + utf8Bytes(a.StringValue);
  return n;
}

interface Level {
  /** Characters of the e-mail text. */
  textChars: number;
  /** One line per finding instead of the full block. */
  compact: boolean;
  /** Longest string kept in the JSON (longer ones are clipped and the notice marked truncated). */
  jsonString: number;
  /** Most array items / object keys kept in evidence. */
  jsonItems: number;
}

const LEVELS: readonly Level[] = [
  {
    textChars: 60_000,
    compact: false,
    jsonString: Number.POSITIVE_INFINITY,
    jsonItems: Number.POSITIVE_INFINITY,
  },
  { textChars: 24_000, compact: false, jsonString: 8192, jsonItems: 200 },
  { textChars: 12_000, compact: false, jsonString: 2048, jsonItems: 50 },
  { textChars: 6_000, compact: true, jsonString: 512, jsonItems: 20 },
  { textChars: 2_000, compact: true, jsonString: 128, jsonItems: 5 },
];

function clip(value: unknown, level: Level, mark: { truncated: boolean }): unknown {
  if (typeof value === 'string') {
    if (value.length <= level.jsonString) return value;
    mark.truncated = true;
    return `${value.slice(0, level.jsonString)}…`;
  }
  if (Array.isArray(value)) {
    if (value.length > level.jsonItems) mark.truncated = true;
    return value.slice(0, level.jsonItems).map((v) => clip(v, level, mark));
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length > level.jsonItems) mark.truncated = true;
    return Object.fromEntries(entries.slice(0, level.jsonItems).map(([k, v]) => [k, clip(v, level, mark)]));
  }
  return value;
}

/** The machine-readable document: every notice with its finding in the JSON renderer's shape. */
export function snsJson(
  notices: readonly Notice[],
  level: Level = LEVELS[0] as Level,
): Record<string, unknown> {
  const mark = { truncated: false };
  const first = notices[0]?.finding.cluster;
  const doc: Record<string, unknown> = {
    schema: SNS_MESSAGE_SCHEMA,
    source: 'eks-auth-sentinel',
    ...(first === undefined ? {} : { cluster: clip({ ...first }, level, mark) }),
    notices: notices.map((n) => {
      const one = { truncated: false };
      const finding = clip(findingToJson(n.finding), level, one);
      if (one.truncated) mark.truncated = true;
      return {
        kind: n.kind,
        at: n.at,
        ...(n.confirms ? { confirms: n.confirms } : {}),
        ...(one.truncated ? { truncated: true } : {}),
        finding,
      };
    }),
  };
  if (mark.truncated) doc.truncated = true;
  return doc;
}

/** `  EKS console (access): https://…` per link (the URL on its own, so mail clients link it). */
function linkLines(f: Finding): string {
  return alertLinks(f)
    .map((l) => `  ${l.label}: ${l.url}\n`)
    .join('');
}

function noticeTitle(n: Notice): string {
  const head = `${KIND_WORD[n.kind]}${n.kind === 'resolved' ? '' : ` ${n.finding.severity.toUpperCase()}`} at ${oneLine(n.at)}`;
  return n.confirms === undefined ? head : `${head}. ${confirmationLine(n.confirms)}`;
}

/** The e-mail body: one section per notice, each whole (code blocks never cut), within `maxChars`. */
export function snsText(notices: readonly Notice[], maxChars: number, compact = false): string {
  const first = notices[0]?.finding.cluster;
  const head =
    notices.length > 1 && first !== undefined
      ? `eks-auth-sentinel: ${plural(notices.length, 'notice')} for cluster ${clusterLabel(first)}\n\n`
      : '';
  const blocks = notices.map((n) => {
    const links = linkLines(n.finding);
    const text = renderText([n.finding], {
      title: noticeTitle(n),
      compact: compact || n.kind === 'resolved',
      // A finding too long for the whole e-mail is shown short (named), not left out.
      maxChars: Math.max(0, maxChars - head.length - links.length - 200),
    });
    return { severity: n.finding.severity, text: `${text.replace(/\n*$/, '\n')}${links}\n` };
  });
  const footer = compact
    ? '\nShortened to fit one SNS message; run `eks-auth-sentinel report` for the full fix.\n'
    : '';
  const body = fitBlocks(
    head,
    blocks,
    Math.max(0, maxChars - footer.length),
    (rest) => `${omittedLine(rest)}\n`,
  );
  return `${body}${footer}`.replace(/\n\n+$/, '\n');
}

/** AWS Chatbot custom notification (https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html). */
export function chatbotNotification(
  notices: readonly Notice[],
  maxDescriptionChars: number = SNS_LIMITS.chatbotDescriptionChars,
): Record<string, unknown> {
  const first = notices[0];
  const findings: Finding[] = notices.map((n) => n.finding);
  const title =
    notices.length === 1 && first !== undefined
      ? `${KIND_WORD[first.kind]} ${first.finding.severity.toUpperCase()}: ${oneLine(first.finding.title)}`
      : `${plural(notices.length, 'EKS authentication notice')}`;
  const description = renderMarkdown(findings, {
    title: notices.length === 1 && first !== undefined ? noticeTitle(first) : 'Notices',
    maxChars: Math.min(maxDescriptionChars, SNS_LIMITS.chatbotDescriptionChars),
    compact: notices.every((n) => n.kind === 'resolved'),
  });
  const nextSteps = distinct(
    notices
      .filter((n) => n.kind !== 'resolved')
      .flatMap((n) => (n.finding.remediation === undefined ? [] : [oneLine(n.finding.remediation.summary)])),
  )
    .slice(0, 5)
    .map((s) => (s.length > 350 ? `${s.slice(0, 349)}…` : s));
  const c = first?.finding.cluster;
  return {
    version: '1.0',
    source: 'custom',
    ...(notices.length === 1 && first !== undefined ? { id: first.finding.fingerprint.slice(0, 128) } : {}),
    content: {
      textType: 'client-markdown',
      title:
        title.length > SNS_LIMITS.chatbotTitleChars
          ? `${title.slice(0, SNS_LIMITS.chatbotTitleChars - 1)}…`
          : title,
      description,
      ...(nextSteps.length > 0 ? { nextSteps } : {}),
    },
    metadata: {
      ...(first === undefined ? {} : { threadId: first.finding.fingerprint.slice(0, 128) }),
      summary: snsSubject(notices),
      eventType: distinct(notices.map((n) => n.kind)).join(','),
      ...(c === undefined
        ? {}
        : {
            additionalContext: {
              cluster: oneLine(c.name).slice(0, 256),
              region: oneLine(c.region).slice(0, 64),
              account: oneLine(c.accountId).slice(0, 64),
            },
          }),
    },
  };
}

function build(notices: readonly Notice[], level: Level, options: SnsRenderOptions): SnsMessage {
  const text = jsonText(snsText(notices, level.textChars, level.compact));
  const json = jsonText(jsonText(snsJson(notices, level)));
  const https =
    options.https === 'chatbot' ? jsonText(jsonText(chatbotNotification(notices, level.textChars))) : json;
  // `jsonText({ default: text, email: text, sqs: json, lambda: json, https })`, each value encoded
  // once rather than once per key: the same bytes, as the keys hold nothing jsonText escapes.
  const message = `{"default":${text},"email":${text},"sqs":${json},"lambda":${json},"https":${https}}`;
  const messageAttributes = snsAttributes(notices);
  return {
    subject: snsSubject(notices),
    message,
    messageStructure: 'json',
    messageAttributes,
    bytes: utf8Bytes(message) + attributesBytes(messageAttributes),
  };
}

/** One message for the notices (one cluster's), at the most detail that fits the SNS limit. */
export function renderSnsMessage(given: readonly Notice[], options: SnsRenderOptions = {}): SnsMessage {
  const max = options.maxMessageBytes ?? SNS_LIMITS.maxMessageBytes;
  const notices = noticeOrder(given).map((i) => given[i] as Notice);
  let message: SnsMessage | undefined;
  for (const level of LEVELS) {
    message = build(notices, level, options);
    if (message.bytes <= max) return message;
  }
  return message as SnsMessage;
}

/**
 * Messages for a batch: notices packed in order into as few messages as fit at full detail; a
 * notice too large for a message of its own is rendered with less. Each notice in exactly one.
 */
export function renderSnsMessages(
  notices: readonly Notice[],
  options: SnsRenderOptions = {},
): Array<{ message: SnsMessage; notices: number[] }> {
  const max = options.maxMessageBytes ?? SNS_LIMITS.maxMessageBytes;
  const full = LEVELS[0] as Level;
  const out: Array<{ message: SnsMessage; notices: number[] }> = [];
  let group: number[] = [];
  /**
   * The group at full detail, when it was built to see whether it fits: what `renderSnsMessage`
   * would build first and return (the group is in notice order already), so it is not built twice.
   */
  let fitted: SnsMessage | undefined;
  const flush = () => {
    if (group.length === 0) return;
    out.push({
      message:
        fitted ??
        renderSnsMessage(
          group.map((i) => notices[i] as Notice),
          options,
        ),
      notices: group,
    });
    group = [];
    fitted = undefined;
  };
  for (const index of noticeOrder(notices)) {
    const candidate = [...group, index];
    if (group.length === 0) {
      group = candidate;
      continue;
    }
    const built = build(
      candidate.map((i) => notices[i] as Notice),
      full,
      options,
    );
    if (built.bytes > max) {
      flush();
      group = [index];
    } else {
      group = candidate;
      fitted = built;
    }
  }
  flush();
  return out;
}
