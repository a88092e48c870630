// Renders the change feed as Atom 1.0 (RFC 4287): one entry per upstream bump and per block change.
// Entry ids are tag URIs (RFC 4151) built from the build date, the kind and the block id, so the same change in
// the same build always has the same id and a feed reader never shows it twice. Every string is escaped, and
// characters XML 1.0 cannot carry at all (control characters, lone surrogates) are replaced.
import type { BlockChange, ChangeFeed, SourceChange, UpstreamPin } from '../contract/changes.ts';

export interface AtomOptions {
  /** The published site's root URL (e.g. `https://user.github.io/nnblocks/`): links and the tag URI authority. */
  siteUrl?: string;
  nnblocksVersion?: string;
}

/** Used as the tag authority when no site URL is known: `.invalid` is reserved (RFC 2606), so it claims no one's domain. */
const FALLBACK_AUTHORITY = 'nnblocks.invalid';
/** The tag URI date: fixed, since an id must not change from one build to the next. */
const TAG_DATE = '2025';

// XML 1.0 Char excludes C0 controls other than tab/LF/CR, U+FFFE/U+FFFF and unpaired surrogates; escaping can't help.
const NOT_XML_CHAR =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML_CHAR, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Percent-encodes everything outside the unreserved set, so any block id is a valid tag URI segment. */
const segment = (s: string) =>
  encodeURIComponent(s.replace(LONE_SURROGATE, '\uFFFD')).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

function siteBase(siteUrl: string | undefined): { url: URL | null; authority: string; prefix: string } {
  if (!siteUrl) return { url: null, authority: FALLBACK_AUTHORITY, prefix: '/' };
  let url: URL;
  try {
    url = new URL(siteUrl.endsWith('/') ? siteUrl : `${siteUrl}/`);
  } catch {
    return { url: null, authority: FALLBACK_AUTHORITY, prefix: '/' };
  }
  return { url, authority: url.hostname.toLowerCase() || FALLBACK_AUTHORITY, prefix: url.pathname };
}

const pinText = (p: UpstreamPin | undefined) =>
  p ? (p.commit ? p.commit.slice(0, 12) : [p.version, p.tag && `(${p.tag})`].filter(Boolean).join(' ')) : '';

function upstreamTitle(u: SourceChange): string {
  if (u.kind === 'added') return `Source added: ${u.sourceId} ${pinText(u.after)}`.trimEnd();
  if (u.kind === 'removed') return `Source removed: ${u.sourceId}`;
  return `Upstream: ${u.sourceId} ${pinText(u.before)} → ${pinText(u.after)}`;
}

function upstreamText(u: SourceChange): string {
  const pin = (label: string, p?: UpstreamPin) =>
    p
      ? [
          `${label}: ${[p.commit && `commit ${p.commit}`, p.version && `version ${p.version}`, p.tag && `tag ${p.tag}`].filter(Boolean).join(', ')}`,
        ]
      : [];
  return [...pin('before', u.before), ...pin('after', u.after), `blocks: ${u.blocks.before} → ${u.blocks.after}`].join(
    '\n',
  );
}

const where = (r: { id: string; path?: string; lines?: [number, number] }) =>
  r.path ? `${r.path}${r.lines ? `:${r.lines[0]}-${r.lines[1]}` : ''}` : r.id;

function changeTitle(c: BlockChange): string {
  const who = `${c.block.name} (${c.block.sourceId})`;
  if (c.kind === 'new') return `New: ${who}`;
  if (c.kind === 'removed') return `Removed: ${who}`;
  if (c.kind === 'moved') return `Moved: ${who}: ${where(c.from)} → ${where(c.block)}`;
  return `Changed: ${who}: ${c.fields.map((f) => f.field).join(', ')}`;
}

function changeText(c: BlockChange): string {
  const lines = [`id: ${c.block.id}`];
  if (c.block.path) lines.push(`at: ${where(c.block)}`);
  if (c.kind === 'moved') lines.push(`from: ${c.from.id} at ${where(c.from)} (matched by ${c.matchedBy})`);
  if (c.kind === 'moved' || c.kind === 'changed')
    for (const f of c.fields) lines.push(`${f.field}: ${f.before} → ${f.after}`);
  return lines.join('\n');
}

export function renderAtom(feed: ChangeFeed, opts: AtomOptions = {}): string {
  const { url, authority, prefix } = siteBase(opts.siteUrl);
  const tag = (path: string) => `tag:${authority},${TAG_DATE}:${prefix}${path}`;
  // Absolute under the site's URL when it is known; else relative to the feed's own address, which the site serves
  // at its root (/changes.atom): `changes.atom` is then the feed itself, `blocks/<slug>/` a block's page. Every feed
  // has its rel="self" (RFC 4287 4.2.7: feeds SHOULD), which readers use to find where to poll.
  const link = (path: string, rel = 'alternate') =>
    `<link rel="${rel}" href="${escapeXml(url ? new URL(path, url).href : path)}"/>`;
  const updated = escapeXml(feed.generatedAt);
  const build = segment(feed.generatedAt);
  const out: string[] = [];
  const entry = (id: string, title: string, text: string, href: string) => {
    out.push(
      '  <entry>',
      `    <id>${escapeXml(id)}</id>`,
      `    <title type="text">${escapeXml(title)}</title>`,
      `    <updated>${updated}</updated>`,
      `    ${link(href)}`,
      `    <content type="text">${escapeXml(text)}</content>`,
      '  </entry>',
    );
  };
  for (const u of feed.upstream) {
    entry(
      tag(`changes/${build}/upstream/${segment(u.sourceId)}`),
      upstreamTitle(u),
      upstreamText(u),
      `sources/${segment(u.sourceId)}/`,
    );
  }
  for (const c of feed.changes) {
    // A removed block has no page any more: its entry points at the changes page.
    const href = c.kind === 'removed' ? 'changes/' : `blocks/${segment(c.block.slug)}/`;
    entry(tag(`changes/${build}/${c.kind}/${segment(c.block.id)}`), changeTitle(c), changeText(c), href);
  }
  const s = feed.summary;
  const subtitle = feed.previous
    ? `${s.new} new, ${s.removed} removed, ${s.moved} moved, ${s.changed} changed, ${s.upstream} upstream; compared with ${feed.previous.origin}`
    : 'No previous catalog to compare with: this build is the baseline.';
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>${escapeXml(tag('changes'))}</id>`,
    '  <title type="text">nnblocks catalog changes</title>',
    `  <subtitle type="text">${escapeXml(subtitle)}</subtitle>`,
    `  <updated>${updated}</updated>`,
    '  <author><name>nnblocks</name></author>',
    `  <generator${opts.nnblocksVersion ? ` version="${escapeXml(opts.nnblocksVersion)}"` : ''}>nnblocks</generator>`,
    `  ${link('changes.atom', 'self')}`,
    `  ${link('changes/')}`,
    ...out,
    '</feed>',
    '',
  ].join('\n');
}
