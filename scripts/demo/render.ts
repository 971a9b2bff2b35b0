/** Readable text of what the sinks received: a Slack Block Kit message, an SNS Publish. */
import type { SnsRecord } from '../../infra/sandbox/index.ts';

type Text = { text?: unknown };
type Block = {
  type?: unknown;
  text?: Text;
  fields?: Text[];
  elements?: Array<Text & { type?: unknown; elements?: Text[] }>;
};

const str = (t: Text | undefined): string => (typeof t?.text === 'string' ? t.text : '');

/** Block Kit → plain lines: header, sections and fields, code blocks indented, context, dividers. */
export function renderSlackMessage(body: unknown): string[] {
  const message = body as { text?: unknown; blocks?: unknown };
  const blocks = Array.isArray(message.blocks) ? (message.blocks as Block[]) : [];
  if (blocks.length === 0) return typeof message.text === 'string' ? message.text.split('\n') : [];
  const lines: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'header':
        lines.push(`▌ ${str(block.text)}`);
        break;
      case 'section': {
        if (block.text) lines.push(...str(block.text).split('\n'));
        const fields = (block.fields ?? []).map((f) => str(f).replace(/\*([^*\n]+)\*\n/, '$1: '));
        if (fields.length > 0) lines.push(fields.map((f) => f.replaceAll('\n', ' ')).join(' · '));
        break;
      }
      case 'context':
        for (const e of block.elements ?? [])
          lines.push(
            ...str(e)
              .split('\n')
              .map((l) => `(${l})`),
          );
        break;
      case 'rich_text':
        for (const e of block.elements ?? []) {
          const text = (e.elements ?? []).map(str).join('');
          if (e.type === 'rich_text_preformatted') {
            lines.push(
              ...text
                .replace(/\n$/, '')
                .split('\n')
                .map((l) => `    │ ${l}`),
            );
          } else {
            lines.push(...text.split('\n'));
          }
        }
        break;
      case 'divider':
        lines.push('────');
        break;
      default:
        break;
    }
  }
  return lines.map((l) => l.replace(/\s+$/, '')).filter((l, i, all) => l !== '' || all[i - 1] !== '');
}

/** An SNS message: Subject, the filter-policy attributes, and the first lines of the e-mail text. */
export function renderSnsMessage(record: SnsRecord, maxLines = 4): string[] {
  const attributes = Object.entries(record.messageAttributes)
    .map(([k, v]) => `${k}=${v.StringValue ?? `(${v.DataType})`}`)
    .join(' ');
  let text = record.message;
  if (record.messageStructure === 'json') {
    try {
      const perProtocol = JSON.parse(record.message) as Record<string, unknown>;
      text = String(perProtocol.email ?? perProtocol.default ?? '');
    } catch {
      // Shown as it came.
    }
  }
  const body = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, maxLines);
  return [
    `Subject: ${record.subject ?? '(none)'}`,
    `attributes: ${attributes}`,
    ...body.map((l) => `| ${l}`),
  ];
}
