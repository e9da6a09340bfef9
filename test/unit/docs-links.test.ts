// Every relative link in README.md, CONTRIBUTING.md and docs/ resolves: the file exists and, where the link
// names an anchor, the target has a heading that GitHub would give that anchor. A section moved or renamed
// without its links fails here, not in a reader's browser.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function markdownFiles(): string[] {
  const found = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'BENCHMARKS.md', 'CHANGELOG.md']
    .map((file) => join(ROOT, file))
    .filter((file) => existsSync(file));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith('.md')) found.push(join(dir, entry.name));
    }
  };
  walk(join(ROOT, 'docs'));
  return found;
}

/** Text outside fenced code blocks (a link-like string in a shell example is no link). */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```$/gm, '');

/** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces as dashes, repeats numbered. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** The relative links of a Markdown text: [text](target) and [text]: target, outside code. */
function links(text: string): string[] {
  const body = prose(text).replace(/`[^`\n]*`/g, '');
  return [...body.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g), ...body.matchAll(/^\[[^\]]+\]:\s+(\S+)/gm)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

describe('links in README.md and docs/', () => {
  const files = markdownFiles();

  it('finds the documents it walks', () => {
    expect(files.map((file) => relative(ROOT, file))).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/architecture.md', 'docs/manual/README.md']),
    );
  });

  it.each(files.map((file) => [relative(ROOT, file), file]))(
    '%s: every relative link and anchor resolves',
    (_name, file) => {
      const broken: string[] = [];
      for (const link of links(readFileSync(file, 'utf8'))) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(target)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (statSync(target).isDirectory() || !target.endsWith('.md')) {
          broken.push(`${link}: an anchor into a file that is not Markdown`);
          continue;
        }
        if (!anchors(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading with this anchor`);
      }
      expect(broken).toEqual([]);
    },
  );
});

describe('comments cite only documents in the repository', () => {
  // The interface's rules are written in docs/ and the API in openapi.yaml; a comment that cites a document a
  // clone does not hold (a contract, a spec, a style guide kept elsewhere) leaves its reason out of reach.
  const sources: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) sources.push(join(dir, entry.name));
    }
  };
  for (const dir of ['src', 'test', 'scripts']) walk(join(ROOT, dir));

  it('no citation of the contract, the spec or a numbered style practice in src/, test/ or scripts/', () => {
    // The names are put together here so that this file does not match itself.
    const outside = ['CON' + 'TRACT', 'SP' + 'EC', 'STY' + 'LE'];
    const pattern = new RegExp(`${outside[0]}|${outside[2]} [0-9]|${outside[1]}\\b`);
    const cited = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) => (pattern.test(line) ? [`${relative(ROOT, file)}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(sources.length).toBeGreaterThan(100);
    expect(cited).toEqual([]);
  });
});
