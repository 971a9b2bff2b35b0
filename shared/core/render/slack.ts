/**
 * Slack Block Kit rendering of alert notices (docs/design.md#channels): what happened (opened /
 * escalated / resolved), where (cluster, Region, account), who loses access and by when (blast radius), and
 * the fix as code — each fix in a `rich_text_preformatted` element, so it is copied exactly as
 * given (no mrkdwn parsing, no escaping inside code).
 *
 * Limits (Slack reference; the text budget from observed `msg_blocks_too_long` rejections of
 * messages whose blocks together hold ~13 000 characters): ≤ 50 blocks per message, section text
 * ≤ 3000 characters, header ≤ 150, a field ≤ 2000, ≤ 10 fields, the payload ≤ 40 000 bytes. Notices
 * that do not fit one message go to the next one; a notice too large for a message alone loses,
 * in order, its code blocks (a note says where to find them — a code block is shown whole or not
 * at all), then its detail and blast radius lists. Pure.
 */
import type { Notice, NoticeKind } from '../alerts/lifecycle.ts';
import type { Finding, Severity } from '../model.ts';
import { utf8Length } from '../quote/unicode.ts';
import { blastRadiusView, capitalize, podsRunOnLine } from './blast-radius.ts';
import { actorLine, confirmationLine, fixCode, noticeOrder, oneLine, plural, sanitize } from './layout.ts';
import { alertLinks } from './links.ts';

export const SLACK_LIMITS = {
  maxBlocks: 50,
  maxSectionChars: 3000,
  maxHeaderChars: 150,
  maxFieldChars: 2000,
  maxFields: 10,
  maxPayloadBytes: 40_000,
  /** All text of one message's blocks together (see the module comment). */
  maxMessageTextChars: 12_000,
  /** The `text` fallback (notifications, clients without blocks). */
  maxFallbackChars: 3000,
  /** One code block; longer ones are left out with a note rather than cut. */
  maxCodeChars: 3000,
  /** A link's URL (Block Kit `url` fields). */
  maxUrlChars: 3000,
} as const;

export type SlackTextObject = {
  type: 'mrkdwn' | 'plain_text';
  text: string;
  emoji?: boolean;
  verbatim?: boolean;
};

export type SlackRichTextInline =
  | { type: 'text'; text: string; style?: { bold?: boolean } }
  | { type: 'link'; url: string; text: string };

export type SlackRichTextElement =
  | { type: 'rich_text_section'; elements: SlackRichTextInline[] }
  | { type: 'rich_text_preformatted'; elements: Array<{ type: 'text'; text: string }> };

export type SlackBlock =
  | { type: 'header'; text: SlackTextObject & { type: 'plain_text' } }
  | { type: 'section'; text?: SlackTextObject; fields?: SlackTextObject[] }
  | { type: 'context'; elements: SlackTextObject[] }
  | { type: 'rich_text'; elements: SlackRichTextElement[] }
  | { type: 'divider' };

export interface SlackPayload {
  text: string;
  blocks: SlackBlock[];
}

export interface SlackMessage {
  payload: SlackPayload;
  /** Positions, in the array given to `renderSlackMessages`, of the notices this message carries. */
  notices: number[];
}

export interface SlackRenderOptions {
  maxBlocks?: number;
  maxPayloadBytes?: number;
  maxMessageTextChars?: number;
}

const EMOJI: Record<Severity, string> = {
  critical: ':red_circle:',
  high: ':large_orange_circle:',
  medium: ':large_yellow_circle:',
  low: ':large_blue_circle:',
  info: ':white_circle:',
};

const KIND_LABEL: Record<NoticeKind, string> = {
  opened: 'New',
  escalated: 'Escalated',
  confirmed: 'Confirmed',
  resolved: 'Resolved',
};

/** UTF-8 length of a string as JSON would send it (lone surrogates count as U+FFFD). */
export const utf8Bytes = (s: string): number => utf8Length(s);

/** Bytes of the payload as POSTed (`JSON.stringify`, escapes included). */
export function slackPayloadBytes(payload: SlackPayload): number {
  return utf8Bytes(JSON.stringify(payload));
}

/**
 * Escapes the three characters Slack's mrkdwn requires (so `<!channel>` or a link cannot be
 * injected). Only for our own labels and for values inside inline code: snapshot text never goes
 * into mrkdwn as prose (see `plainText`).
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** At most `max` characters, ending in `…` when cut; never in the middle of an entity or a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  cut = cut.replace(/&[a-z]{0,4}$/, '');
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Inline code of a value: one line, escaped; backticks (which would end the code span) become ’. */
function code(value: string): string {
  const v = oneLine(value).replace(/`/g, '’');
  return v.length === 0 ? '—' : `\`${escapeSlack(v)}\``;
}

/** An mrkdwn text object; `verbatim` turns off Slack's auto-linking of URLs, channels and mentions. */
function mrkdwn(text: string): SlackTextObject {
  return { type: 'mrkdwn', text, verbatim: true };
}

/**
 * Snapshot text (titles, details, fix summaries, notes) as a `rich_text` section: rich text is not
 * parsed as mrkdwn, so a user name such as `*admin*`, `_x_`, `~y~` or a bare URL is shown as
 * written, not formatted or linked; invisible characters are shown as `<U+202E>` (`sanitize`).
 */
function plainText(text: string, max: number, label?: string): SlackBlock {
  const body = truncate(sanitize(text).trim(), max) || '—';
  return {
    type: 'rich_text',
    elements: [
      {
        type: 'rich_text_section',
        elements: [
          ...(label === undefined ? [] : [{ type: 'text' as const, text: label, style: { bold: true } }]),
          { type: 'text', text: body },
        ],
      },
    ],
  };
}

/** `a`, `b`, `c` … 7 more (of `total`, when the values are only the first few). */
function codeList(values: readonly string[], max: number, total = values.length): string {
  if (values.length === 0) return '—';
  const shown = values.slice(0, max).map(code).join(', ');
  const more = Math.max(total, values.length) - Math.min(values.length, max);
  return more > 0 ? `${shown} … ${more} more` : shown;
}

/**
 * At most `max` characters of mrkdwn whose backticks are all code-span delimiters (`code` turns a
 * value's own into ’): a cut inside a span closes it, so the rest is never read as mrkdwn.
 */
function truncateMrkdwn(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = truncate(text, max - 1);
  const ticks = cut.split('`').length - 1;
  return ticks % 2 === 1 ? `${cut}\`` : cut;
}

function section(text: string): SlackBlock {
  return { type: 'section', text: mrkdwn(truncateMrkdwn(text, SLACK_LIMITS.maxSectionChars)) };
}

const MAX_FIELD_CHARS = 500;

/**
 * A field of a value in inline code: the value is cut before it is quoted, so the closing
 * backtick always stays (cut after quoting, a long hostile name lost it and its `*_~` and bare
 * URLs rendered as mrkdwn).
 */
function field(label: string, value: string): SlackTextObject {
  const head = `*${label}*\n`;
  const v = escapeSlack(oneLine(value).replace(/`/g, '’'));
  if (v.length === 0) return mrkdwn(`${head}—`);
  return mrkdwn(`${head}\`${truncate(v, MAX_FIELD_CHARS - head.length - 2)}\``);
}

function clusterPhrase(f: Finding): string {
  return `${oneLine(f.cluster.name)} (${oneLine(f.cluster.region)}, account ${oneLine(f.cluster.accountId)})`;
}

/** One line for the fallback text and notifications: `:red_circle: CRITICAL new: <title> — prod (eu-west-1, account …)`. */
export function slackSummaryLine(notice: Notice): string {
  return escapeSlack(summaryLine(notice));
}

function summaryLine(notice: Notice): string {
  const f = notice.finding;
  const head =
    notice.kind === 'resolved'
      ? `:white_check_mark: RESOLVED: ${oneLine(f.title)}`
      : `${EMOJI[f.severity]} ${f.severity.toUpperCase()} ${KIND_LABEL[notice.kind].toLowerCase()}: ${oneLine(f.title)}`;
  return `${head} — ${clusterPhrase(f)}`;
}

type Detail = 'full' | 'no-code' | 'minimal';

/**
 * `arn:aws:iam::111122223333:role/team/KarpenterNodeRole` → `role KarpenterNodeRole`: a header
 * spends its 150 characters on what happened, not on an account ID and a path (the full ARN is
 * in the body: the Subject field and the full title).
 */
export function shortenArns(text: string): string {
  return text.replace(
    /\barn:aws[a-z-]*:(?:iam|sts)::[^\s:]*:(role|user|assumed-role|instance-profile)\/([^\s,;]+)/g,
    (_all, kind: string, path: string, offset: number) => {
      const parts = path.split('/').filter((p) => p !== '');
      // assumed-role/<role>/<session>: the role; role/<path…>/<name>: the name.
      const name = kind === 'assumed-role' ? parts[0] : parts[parts.length - 1];
      const label = kind === 'assumed-role' ? 'role' : kind;
      // "IAM role arn:…:role/x" → "IAM role x", not "IAM role role x".
      const said = new RegExp(`\\b${label}\\s+$`, 'i').test(text.slice(Math.max(0, offset - 20), offset));
      return said ? (name ?? path) : `${label} ${name ?? path}`;
    },
  );
}

/**
 * The header of one notice, within 150 characters and leading with what on-call reads first:
 * severity, cluster, what happened — `:red_circle: CRITICAL · prod · Deleting node group general
 * removes role KarpenterNodeRole from aws-auth: 3 other node(s) lose access`.
 */
export function slackHeader(notice: Notice): string {
  const f = notice.finding;
  const what = shortenArns(oneLine(f.title));
  const cluster = truncate(oneLine(f.cluster.name), 40);
  const head =
    notice.kind === 'resolved'
      ? ':white_check_mark: Resolved'
      : `${EMOJI[f.severity]} ${f.severity.toUpperCase()}${notice.kind === 'opened' ? '' : ` (${KIND_LABEL[notice.kind].toLowerCase()})`}`;
  return truncate(`${head} · ${cluster} · ${what}`, SLACK_LIMITS.maxHeaderChars);
}

/** Links as rich text (never mrkdwn: a URL built from a name cannot turn into a mention). */
function linksBlock(f: Finding): SlackBlock | undefined {
  const links = alertLinks(f).filter((l) => l.url.length <= SLACK_LIMITS.maxUrlChars);
  if (links.length === 0) return undefined;
  const elements: SlackRichTextInline[] = [];
  for (const [i, l] of links.entries()) {
    if (i > 0) elements.push({ type: 'text', text: ' · ' });
    elements.push({ type: 'link', url: l.url, text: l.label });
  }
  return { type: 'rich_text', elements: [{ type: 'rich_text_section', elements }] };
}

/** The blocks of one notice, at a level of detail. */
export function renderSlackNotice(notice: Notice, detail: Detail = 'full'): SlackBlock[] {
  const f = notice.finding;
  const resolved = notice.kind === 'resolved';
  const blocks: SlackBlock[] = [];
  blocks.push({
    type: 'header',
    text: { type: 'plain_text', text: slackHeader(notice), emoji: true },
  });
  blocks.push({
    type: 'section',
    fields: [
      field('Cluster', f.cluster.name),
      field('Region', f.cluster.region),
      field('Account', f.cluster.accountId),
      field('Rule', f.ruleId),
      field('Subject', f.subject),
      field('Trigger', f.trigger),
    ],
  });
  const title = oneLine(f.title);
  if (!resolved && shortenArns(title) !== title) blocks.push(plainText(title, 1000));
  const by = actorLine(f.actor);
  if (by !== undefined) blocks.push(plainText(by, 500, 'Changed by: '));
  if (notice.confirms !== undefined) blocks.push(plainText(confirmationLine(notice.confirms), 500));
  const links = linksBlock(f);
  if (links !== undefined) blocks.push(links);
  const detailText = f.detail.trim();
  if (resolved) {
    blocks.push(
      plainText(
        `No longer found (checked ${oneLine(notice.at)}). It was ${f.severity.toUpperCase()}: ${oneLine(f.title)}`,
        SLACK_LIMITS.maxSectionChars,
      ),
    );
  } else if (detailText.length > 0) {
    blocks.push(
      detail === 'minimal'
        ? plainText(oneLine(detailText), 500)
        : plainText(detailText, SLACK_LIMITS.maxSectionChars),
    );
  }

  const br = f.blastRadius;
  if (!resolved && br !== undefined) {
    const max = detail === 'minimal' ? 3 : 10;
    const list = (names: readonly string[], total: number) => codeList(names, max, total);
    const view = blastRadiusView(br);
    const lines = [`*Who loses access* — ${view.headline(code)}`];
    for (const row of view.rows) {
      if (row.names.length > 0) lines.push(`• ${capitalize(row.label)}: ${list(row.names, row.total)}`);
    }
    if (view.podsRunOn.length > 0) lines.push(`• Where it breaks: ${podsRunOnLine(view.podsRunOn, list)}`);
    if (view.timeToImpact !== undefined) lines.push(`*By when:* ${escapeSlack(view.timeToImpact)}`);
    blocks.push(section(lines.join('\n')));
  }

  const r = f.remediation;
  if (!resolved && r !== undefined) {
    blocks.push(plainText(r.summary, detail === 'minimal' ? 500 : SLACK_LIMITS.maxSectionChars, 'Fix: '));
    const omitted: string[] = [];
    for (const { label, code: body } of fixCode(r)) {
      const text = sanitize(body).replace(/\n+$/, '');
      if (detail !== 'full' || text.length > SLACK_LIMITS.maxCodeChars) {
        omitted.push(`${escapeSlack(label)} (${plural(text.split('\n').length, 'line')})`);
        continue;
      }
      blocks.push({
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: [{ type: 'text', text: `${label}`, style: { bold: true } }],
          },
          { type: 'rich_text_preformatted', elements: [{ type: 'text', text }] },
        ],
      });
    }
    if (omitted.length > 0) {
      blocks.push({
        type: 'context',
        elements: [
          mrkdwn(
            `Not shown here, too long for a Slack message: ${omitted.join(', ')} — see the e-mail (SNS) or run \`eks-auth-sentinel report\`.`,
          ),
        ],
      });
    }
    const notes = detail === 'minimal' ? [] : (r.notes ?? []).map((n) => `• ${oneLine(n)}`);
    if (notes.length > 0) blocks.push(plainText(notes.join('\n'), SLACK_LIMITS.maxSectionChars));
  }
  blocks.push({ type: 'divider' });
  return blocks;
}

function textChars(blocks: readonly SlackBlock[]): number {
  let n = 0;
  for (const b of blocks) {
    if (b.type === 'header') n += b.text.text.length;
    else if (b.type === 'section') {
      n += b.text?.text.length ?? 0;
      for (const f of b.fields ?? []) n += f.text.length;
    } else if (b.type === 'context') for (const e of b.elements) n += e.text.length;
    else if (b.type === 'rich_text') {
      for (const e of b.elements) for (const t of e.elements) n += t.text.length;
    }
  }
  return n;
}

function fallbackText(notices: readonly Notice[]): string {
  const first = notices[0];
  if (first === undefined) return 'eks-auth-sentinel';
  if (notices.length === 1) return truncate(slackSummaryLine(first), SLACK_LIMITS.maxFallbackChars);
  const lines = [`${notices.length} EKS authentication notices`, ...notices.map(slackSummaryLine)];
  return truncate(lines.join('\n'), SLACK_LIMITS.maxFallbackChars);
}

/** A notice as one line of a message's digest: `• HIGH new · <what happened>` (plain text). */
export function slackDigestLine(notice: Notice): string {
  const f = notice.finding;
  const head =
    notice.kind === 'resolved'
      ? 'RESOLVED'
      : `${f.severity.toUpperCase()} ${KIND_LABEL[notice.kind].toLowerCase()}`;
  return truncate(
    `• ${head} · ${truncate(oneLine(f.cluster.name), 40)} · ${shortenArns(oneLine(f.title))}`,
    300,
  );
}

/** Digest lines as rich text blocks of at most `maxSectionChars` each, under a note. */
function digestBlocks(lines: readonly string[], first: boolean): SlackBlock[] {
  if (lines.length === 0) return [];
  const blocks: SlackBlock[] = [
    {
      type: 'context',
      elements: [
        mrkdwn(
          `${first ? 'Also in this run' : 'Continued'}: ${plural(lines.length, 'more notice')}, in one line each — the full alerts (fix included) are in the e-mail (SNS) and in \`eks-auth-sentinel report\`.`,
        ),
      ],
    },
  ];
  let chunk: string[] = [];
  let chars = 0;
  const flush = () => {
    if (chunk.length > 0) blocks.push(plainText(chunk.join('\n'), SLACK_LIMITS.maxSectionChars));
    chunk = [];
    chars = 0;
  };
  for (const line of lines) {
    if (chars + line.length + 1 > SLACK_LIMITS.maxSectionChars) flush();
    chunk.push(line);
    chars += line.length + 1;
  }
  flush();
  return blocks;
}

/**
 * The messages for one cluster's notices of one run: normally exactly one. It shows the notices
 * most severe first — the first whole (at the most detailed level that fits), the next whole as
 * long as what remains still fits as one line each — and every other notice as one line. Only a
 * storm whose one-line digest exceeds a message continues in further messages (to be sent under
 * Slack's rate limit). Every notice appears in exactly one message; `notices` of each message tells
 * which notices it delivers (positions in `notices`).
 */
export function renderSlackMessages(
  notices: readonly Notice[],
  options: SlackRenderOptions = {},
): SlackMessage[] {
  const maxBlocks = options.maxBlocks ?? SLACK_LIMITS.maxBlocks;
  const maxBytes = options.maxPayloadBytes ?? SLACK_LIMITS.maxPayloadBytes;
  const maxText = options.maxMessageTextChars ?? SLACK_LIMITS.maxMessageTextChars;
  const fits = (items: readonly Notice[], blocks: readonly SlackBlock[]): boolean =>
    blocks.length <= maxBlocks &&
    textChars(blocks) <= maxText &&
    slackPayloadBytes({ text: fallbackText(items), blocks: [...blocks] }) <= maxBytes;

  const order = noticeOrder(notices);
  const at = (k: number) => notices[order[k] as number] as Notice;
  const lines = order.map((i) => slackDigestLine(notices[i] as Notice));
  const messages: SlackMessage[] = [];
  if (order.length === 0) return messages;

  // The first message: whole notices while the rest still fits as lines.
  let items: Notice[] = [];
  let blocks: SlackBlock[] = [];
  let k = 0;
  for (; k < order.length; k++) {
    const notice = at(k);
    const restLines = lines.slice(k + 1);
    let taken: SlackBlock[] | undefined;
    for (const level of ['full', 'no-code', 'minimal'] as const) {
      const own = renderSlackNotice(notice, level);
      const candidate = [...blocks, ...own];
      const withRest = [...candidate, ...digestBlocks(restLines, true)];
      if (fits([...items, notice], k === 0 ? candidate : withRest)) {
        taken = own;
        break;
      }
    }
    if (taken === undefined && k === 0) taken = minimalFallback(notice);
    if (taken === undefined) break;
    items = [...items, notice];
    blocks = [...blocks, ...taken];
  }
  // The rest as digest lines, in as few messages as fit.
  let shown: number[] = order.slice(0, k);
  let digest: string[] = [];
  let first = true;
  const flush = () => {
    const all = [...blocks, ...digestBlocks(digest, first)];
    messages.push({ payload: { text: fallbackText(items), blocks: all }, notices: shown });
    first = false;
    items = [];
    blocks = [];
    digest = [];
    shown = [];
  };
  for (; k < order.length; k++) {
    const notice = at(k);
    const line = lines[k] as string;
    const candidate = [...blocks, ...digestBlocks([...digest, line], first)];
    if (shown.length > 0 && !fits([...items, notice], candidate)) flush();
    items.push(notice);
    digest.push(line);
    shown.push(order[k] as number);
  }
  flush();
  return messages;
}

/**
 * One message for all the notices (the edit of a thread's first message, bot-token mode): as
 * `renderSlackMessages`, with what does not fit counted in a last line instead of continued.
 */
export function renderSlackSingleMessage(notices: readonly Notice[]): SlackPayload {
  const reserve = {
    maxBlocks: SLACK_LIMITS.maxBlocks - 1,
    maxMessageTextChars: SLACK_LIMITS.maxMessageTextChars - 300,
    maxPayloadBytes: SLACK_LIMITS.maxPayloadBytes - 1000,
  };
  const [first, ...more] = renderSlackMessages(notices, reserve);
  if (first === undefined) return { text: fallbackText([]), blocks: [] };
  const left = more.reduce((n, m) => n + m.notices.length, 0);
  if (left === 0) return first.payload;
  return {
    text: first.payload.text,
    blocks: [
      ...first.payload.blocks,
      { type: 'context', elements: [mrkdwn(`…and ${plural(left, 'more notice')} (see the thread).`)] },
    ],
  };
}

/** Last resort for a notice whose every field is enormous: header and the summary line only. */
function minimalFallback(notice: Notice): SlackBlock[] {
  return [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: truncate(oneLine(notice.finding.title), 140) || 'EKS notice',
        emoji: true,
      },
    },
    plainText(summaryLine(notice), 1000),
    { type: 'divider' },
  ];
}
