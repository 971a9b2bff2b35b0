import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/snapshot-builder.ts';

/**
 * The repository cites only documents it contains. Code comments, READMEs and templates cite
 * `docs/<file>.md#<anchor>` (the GitHub anchor of a section heading), and every such citation,
 * like every relative Markdown link, must name a file and a heading that exist.
 */

/** Every file of the checkout: tracked, plus new files not ignored (so a check runs before commit). */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const files = [...new Set(out.split('\0').filter((f) => f !== ''))];
  return files.filter((f) => {
    const stat = lstatSync(join(ROOT, f), { throwIfNoEntry: false });
    return stat?.isFile() === true;
  });
}

const FILES = repositoryFiles();
const TEXT = new Map<string, string>();
for (const file of FILES) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (!text.includes('\0')) TEXT.set(file, text);
}

/** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown document's headings (fenced code skipped). */
function headingAnchors(markdown: string): string[] {
  const anchors: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f?.[1]) {
      if (fence === undefined) fence = f[1][0];
      else if (f[1][0] === fence) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const h = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (h?.[1]) anchors.push(anchorOf(h[1].replace(/`/g, '')));
  }
  return anchors;
}

function anchorsOf(file: string): Set<string> | undefined {
  const text = TEXT.get(file);
  return text === undefined ? undefined : new Set(headingAnchors(text));
}

// Strings that cite the briefing documents outside the repository. Built from parts so that this
// file does not cite them itself.
const SECTION = '§';
const FORBIDDEN: ReadonlyArray<{ id: string; pattern: RegExp }> = [
  { id: 'design-section', pattern: new RegExp(`DESIGN(\\.md)? ${SECTION}`) },
  { id: 'facts-section', pattern: new RegExp(`facts ${SECTION}`) },
  { id: 'facts-file', pattern: new RegExp(['eks', 'auth', 'facts'].join('-')) },
  { id: 'briefing-folder', pattern: new RegExp(['', 'work', 'shared'].join('/')) },
  { id: 'tooling-notes', pattern: new RegExp(`\\b${'TOOL'}ING\\b`) },
  { id: 'style-notes', pattern: new RegExp(`\\b${'STYLE'}\\.md\\b`) },
];

interface Offence {
  file: string;
  line: number;
  what: string;
  text: string;
}

/** Relative paths into a `shared` folder up the tree that do not resolve inside this repository. */
function outsideSharedPaths(file: string, line: string): string[] {
  const bad: string[] = [];
  for (const m of line.matchAll(/(?:\.\.\/)+shared\/[\w./-]*/g)) {
    const target = resolve(ROOT, dirname(file), m[0].replace(/[.]+$/, ''));
    const inside = target.startsWith(ROOT + sep);
    if (!inside || !existsSync(target)) bad.push(m[0]);
  }
  return bad;
}

function offencesIn(file: string, text: string): Offence[] {
  const found: Offence[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { id, pattern } of FORBIDDEN) {
      if (pattern.test(line)) found.push({ file, line: i + 1, what: id, text: line.trim() });
    }
    for (const path of outsideSharedPaths(file, line)) {
      found.push({ file, line: i + 1, what: `${path} (outside the repository)`, text: line.trim() });
    }
  });
  return found;
}

interface Citation {
  file: string;
  line: number;
  target: string;
  anchor?: string;
}

/** `docs/<file>.md[#anchor]` anywhere (optionally `../`-relative), in every file. */
function docCitations(file: string, text: string): Citation[] {
  const out: Citation[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/(?:^|[^\w/.-]|\.\.\/)docs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) {
      out.push({ file, line: i + 1, target: `docs/${m[1]}`, ...(m[2] ? { anchor: m[2] } : {}) });
    }
  });
  return out;
}

/** Relative links of a Markdown file: `[text](path#anchor)` and `[text](#anchor)`. */
function markdownLinks(file: string, text: string): Citation[] {
  const out: Citation[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const href = m[1] ?? '';
      if (/^[a-z]+:/i.test(href)) continue;
      const [path = '', anchor] = href.split('#');
      const target = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), path));
      out.push({ file, line: i + 1, target, ...(anchor ? { anchor } : {}) });
    }
  });
  return out;
}

function brokenCitations(citations: readonly Citation[]): string[] {
  const broken: string[] = [];
  for (const c of citations) {
    const where = `${c.file}:${c.line} → ${c.target}${c.anchor ? `#${c.anchor}` : ''}`;
    if (!existsSync(join(ROOT, c.target))) {
      broken.push(`${where}: no such file`);
      continue;
    }
    if (c.anchor === undefined || !c.target.endsWith('.md')) continue;
    if (!anchorsOf(c.target)?.has(c.anchor)) broken.push(`${where}: no such section`);
  }
  return broken;
}

describe('references to documents', () => {
  it('reads the files of the checkout (git ls-files)', () => {
    expect(FILES).toContain('README.md');
    expect(FILES).toContain('docs/design.md');
    expect(FILES).toContain('docs/eks-auth-semantics.md');
    expect(TEXT.size).toBeGreaterThan(100);
  });

  it('never cite a document outside the repository', () => {
    const left = [...TEXT].flatMap(([file, text]) => offencesIn(file, text));
    expect(left.map((o) => `${o.file}:${o.line}: ${o.what}: ${o.text}`)).toEqual([]);
  });

  it('cite docs/<file>.md#<section> only where the file has that section', () => {
    const citations = [...TEXT].flatMap(([file, text]) => docCitations(file, text));
    expect(citations.length).toBeGreaterThan(30);
    expect(brokenCitations(citations)).toEqual([]);
  });

  it('link, in Markdown, only to files and sections that exist', () => {
    const links = [...TEXT]
      .filter(([file]) => file.endsWith('.md'))
      .flatMap(([file, text]) => markdownLinks(file, text));
    expect(brokenCitations(links)).toEqual([]);
  });

  it('name the page of the traps wherever a trap is cited by its number', () => {
    const traps = 'docs/eks-auth-semantics.md#traps';
    const bare = [...TEXT]
      .filter(
        ([file, text]) => !file.startsWith('docs/') && /\btraps? \d+/i.test(text) && !text.includes(traps),
      )
      .map(([file]) => file);
    expect(bare).toEqual([]);
  });

  it('have sections with unique anchors in docs/, so a citation names one section', () => {
    for (const file of FILES.filter((f) => /^docs\/[^/]+\.md$/.test(f))) {
      const anchors = headingAnchors(TEXT.get(file) ?? '');
      expect(anchors.length, file).toBeGreaterThan(5);
      expect(
        anchors.filter((a, i) => anchors.indexOf(a) !== i),
        file,
      ).toEqual([]);
    }
  });
});

describe('anchorOf', () => {
  it('follows GitHub: lower case, punctuation dropped, spaces as hyphens', () => {
    expect(anchorOf('Timing, tokens and Kubernetes access')).toBe('timing-tokens-and-kubernetes-access');
    expect(anchorOf('onEksEvent prediction and follow-ups')).toBe('oneksevent-prediction-and-follow-ups');
    expect(anchorOf('eks-auth-sentinel — design')).toBe('eks-auth-sentinel--design');
  });

  it('finds headings outside code fences only', () => {
    expect(headingAnchors('# A\n```sh\n# not a heading\n```\n## B c\n')).toEqual(['a', 'b-c']);
  });
});
