import { createHash } from 'node:crypto';

import type { NextFunction, Request, Response } from 'express';

import { escapeHtml, html, raw, type RawHtml } from '../../../sandbox/kit/html';
import type { LayoutInput } from '../../../sandbox/kit/site';
import { cx } from '../../../sandbox/kit/site-app';
import { clientScript } from './client';
import { forgehubCss } from './styles';

export { cx };

export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" aria-hidden="true"><rect width="64" height="64" rx="14" fill="#111827"/>' +
  '<path d="M20 40 L32 16 L44 40 Z" fill="none" stroke="#f97316" stroke-width="4" stroke-linejoin="round"/><rect x="18" y="42" width="28" height="6" rx="2" fill="#f97316"/></svg>';

/** Express 4 does not catch rejected promises; route handlers go through this. */
export const h = (fn: (req: Request, res: Response) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) => {
  fn(req, res).catch(next);
};

/** Only same-site paths are accepted as a redirect target. */
export function backTo(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.includes('\\') && value.length < 400
    ? value
    : fallback;
}

export const wantsJson = (req: Request) => (req.get('accept') ?? '').includes('application/json');

// ---------- small pieces ----------

const ICONS: Record<string, string> = {
  repo: '<path d="M2 2.5A2.5 2.5 0 0 1 4.5 0h8.75a.75.75 0 0 1 .75.75v12.5a.75.75 0 0 1-.75.75h-2.5a.75.75 0 0 1 0-1.5h1.75v-2h-8a1 1 0 0 0-.714 1.7.75.75 0 1 1-1.072 1.05A2.495 2.495 0 0 1 2 11.5Zm10.5-1h-8a1 1 0 0 0-1 1v6.708A2.486 2.486 0 0 1 4.5 9h8ZM5 12.25a.25.25 0 0 1 .25-.25h3.5a.25.25 0 0 1 .25.25v3.25a.25.25 0 0 1-.4.2l-1.45-1.087a.249.249 0 0 0-.3 0L5.4 15.7a.25.25 0 0 1-.4-.2Z"/>',
  star: '<path d="M8 .25a.75.75 0 0 1 .673.418l1.882 3.815 4.21.612a.75.75 0 0 1 .416 1.279l-3.046 2.97.719 4.192a.751.751 0 0 1-1.088.791L8 12.347l-3.766 1.98a.75.75 0 0 1-1.088-.79l.72-4.194L.818 6.374a.75.75 0 0 1 .416-1.28l4.21-.611L7.327.668A.75.75 0 0 1 8 .25Zm0 2.445L6.615 5.5a.75.75 0 0 1-.564.41l-3.097.45 2.24 2.184a.75.75 0 0 1 .216.664l-.528 3.084 2.769-1.456a.75.75 0 0 1 .698 0l2.77 1.456-.53-3.084a.75.75 0 0 1 .216-.664l2.24-2.183-3.096-.45a.75.75 0 0 1-.564-.41L8 2.694Z"/>',
  starFill:
    '<path d="M8 .25a.75.75 0 0 1 .673.418l1.882 3.815 4.21.612a.75.75 0 0 1 .416 1.279l-3.046 2.97.719 4.192a.751.751 0 0 1-1.088.791L8 12.347l-3.766 1.98a.75.75 0 0 1-1.088-.79l.72-4.194L.818 6.374a.75.75 0 0 1 .416-1.28l4.21-.611L7.327.668A.75.75 0 0 1 8 .25Z"/>',
  issue:
    '<path d="M8 9.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3Z"/><path d="M8 0a8 8 0 1 1 0 16A8 8 0 0 1 8 0ZM1.5 8a6.5 6.5 0 1 0 13 0 6.5 6.5 0 0 0-13 0Z"/>',
  closed:
    '<path d="M11.28 6.78a.75.75 0 0 0-1.06-1.06L7.25 8.69 5.78 7.22a.75.75 0 0 0-1.06 1.06l2 2a.75.75 0 0 0 1.06 0l3.5-3.5Z"/><path d="M16 8A8 8 0 1 1 0 8a8 8 0 0 1 16 0Zm-1.5 0a6.5 6.5 0 1 0-13 0 6.5 6.5 0 0 0 13 0Z"/>',
  bell: '<path d="M8 16a2 2 0 0 0 1.985-1.75c.017-.137-.097-.25-.235-.25h-3.5c-.138 0-.252.113-.235.25A2 2 0 0 0 8 16ZM3 5a5 5 0 0 1 10 0v2.947c0 .05.015.098.042.139l1.703 2.555A1.519 1.519 0 0 1 13.482 13H2.518a1.516 1.516 0 0 1-1.263-2.36l1.703-2.554A.255.255 0 0 0 3 7.947Zm5-3.5A3.5 3.5 0 0 0 4.5 5v2.947c0 .346-.102.683-.294.97l-1.703 2.556a.017.017 0 0 0-.003.01l.001.006c0 .002.002.004.004.006l.006.004.007.001h10.964l.007-.001.006-.004.004-.006.001-.007a.017.017 0 0 0-.003-.01l-1.703-2.554a1.745 1.745 0 0 1-.294-.97V5A3.5 3.5 0 0 0 8 1.5Z"/>',
  lock: '<path d="M4 4a4 4 0 0 1 8 0v2h.25c.966 0 1.75.784 1.75 1.75v5.5A1.75 1.75 0 0 1 12.25 15h-8.5A1.75 1.75 0 0 1 2 13.25v-5.5C2 6.784 2.784 6 3.75 6H4Zm8.25 3.5h-8.5a.25.25 0 0 0-.25.25v5.5c0 .138.112.25.25.25h8.5a.25.25 0 0 0 .25-.25v-5.5a.25.25 0 0 0-.25-.25ZM10.5 6V4a2.5 2.5 0 1 0-5 0v2Z"/>',
  comment:
    '<path d="M1 2.75C1 1.784 1.784 1 2.75 1h10.5c.966 0 1.75.784 1.75 1.75v7.5A1.75 1.75 0 0 1 13.25 12H9.06l-2.573 2.573A1.458 1.458 0 0 1 4 13.543V12H2.75A1.75 1.75 0 0 1 1 10.25Zm1.75-.25a.25.25 0 0 0-.25.25v7.5c0 .138.112.25.25.25h2a.75.75 0 0 1 .75.75v2.19l2.72-2.72a.749.749 0 0 1 .53-.22h4.5a.25.25 0 0 0 .25-.25v-7.5a.25.25 0 0 0-.25-.25Z"/>',
  book: '<path d="M0 1.75A.75.75 0 0 1 .75 1h4.253c1.227 0 2.317.59 3 1.501A3.743 3.743 0 0 1 11.006 1h4.245a.75.75 0 0 1 .75.75v10.5a.75.75 0 0 1-.75.75h-4.507a2.25 2.25 0 0 0-1.591.659l-.622.621a.75.75 0 0 1-1.06 0l-.622-.621A2.25 2.25 0 0 0 5.258 13H.75a.75.75 0 0 1-.75-.75Zm7.251 10.324.004-5.073-.002-2.253A2.25 2.25 0 0 0 5.003 2.5H1.5v9h3.757a3.75 3.75 0 0 1 1.994.574ZM8.755 4.75l-.004 7.322a3.752 3.752 0 0 1 1.992-.572H14.5v-9h-3.495a2.25 2.25 0 0 0-2.25 2.25Z"/>',
  people:
    '<path d="M2 5.5a3.5 3.5 0 1 1 5.898 2.549 5.508 5.508 0 0 1 3.034 4.084.75.75 0 1 1-1.482.235 4 4 0 0 0-7.9 0 .75.75 0 0 1-1.482-.236A5.507 5.507 0 0 1 3.102 8.05 3.493 3.493 0 0 1 2 5.5ZM11 4a3.001 3.001 0 0 1 2.22 5.018 5.01 5.01 0 0 1 2.56 3.012.749.749 0 0 1-.885.954.752.752 0 0 1-.549-.514 3.507 3.507 0 0 0-2.522-2.372.75.75 0 0 1-.574-.73v-.352a.75.75 0 0 1 .416-.672A1.5 1.5 0 0 0 11 5.5.75.75 0 0 1 11 4Zm-5.5-.5a2 2 0 1 0-.001 3.999A2 2 0 0 0 5.5 3.5Z"/>',
  location:
    '<path d="m12.596 11.596-3.535 3.536a1.5 1.5 0 0 1-2.122 0l-3.535-3.536a6.5 6.5 0 1 1 9.192-9.193 6.5 6.5 0 0 1 0 9.193Zm-1.06-8.132v-.001a5 5 0 1 0-7.072 7.072L8 14.07l3.536-3.534a5 5 0 0 0 0-7.072ZM8 9a2 2 0 1 1-.001-3.999A2 2 0 0 1 8 9Z"/>',
  fork: '<path d="M5 5.372v.878c0 .414.336.75.75.75h4.5a.75.75 0 0 0 .75-.75v-.878a2.25 2.25 0 1 1 1.5 0v.878a2.25 2.25 0 0 1-2.25 2.25h-1.5v2.128a2.251 2.251 0 1 1-1.5 0V8.5h-1.5A2.25 2.25 0 0 1 3.5 6.25v-.878a2.25 2.25 0 1 1 1.5 0ZM5 3.25a.75.75 0 1 0-1.5 0 .75.75 0 0 0 1.5 0Zm6.75.75a.75.75 0 1 0 0-1.5.75.75 0 0 0 0 1.5Zm-3 8.75a.75.75 0 1 0-1.5 0 .75.75 0 0 0 1.5 0Z"/>',
  plus: '<path d="M7.75 2a.75.75 0 0 1 .75.75V7h4.25a.75.75 0 0 1 0 1.5H8.5v4.25a.75.75 0 0 1-1.5 0V8.5H2.75a.75.75 0 0 1 0-1.5H7V2.75A.75.75 0 0 1 7.75 2Z"/>',
  chevron:
    '<path d="M12.78 5.22a.749.749 0 0 1 0 1.06l-4.25 4.25a.749.749 0 0 1-1.06 0L3.22 6.28a.749.749 0 1 1 1.06-1.06L8 8.939l3.72-3.719a.749.749 0 0 1 1.06 0Z"/>',
  gear: '<path d="M8 0a8.2 8.2 0 0 1 .701.031C9.444.095 9.99.645 10.16 1.29l.288 1.107c.018.066.079.158.212.224.231.114.454.243.668.386.123.082.233.09.299.071l1.103-.303c.644-.176 1.392.021 1.82.63.27.385.506.792.704 1.218.315.675.111 1.422-.364 1.891l-.814.806c-.049.048-.098.147-.088.294.016.257.016.515 0 .772-.01.147.038.246.088.294l.814.806c.475.469.679 1.216.364 1.891a7.977 7.977 0 0 1-.704 1.217c-.428.61-1.176.807-1.82.63l-1.102-.302c-.067-.019-.177-.011-.3.071a5.909 5.909 0 0 1-.668.386c-.133.066-.194.158-.211.224l-.29 1.106c-.168.646-.715 1.196-1.458 1.26a8.006 8.006 0 0 1-1.402 0c-.743-.064-1.289-.614-1.458-1.26l-.289-1.106c-.018-.066-.079-.158-.212-.224a5.738 5.738 0 0 1-.668-.386c-.123-.082-.233-.09-.299-.071l-1.103.303c-.644.176-1.392-.021-1.82-.63a8.12 8.12 0 0 1-.704-1.218c-.315-.675-.111-1.422.363-1.891l.815-.806c.05-.048.098-.147.088-.294a6.214 6.214 0 0 1 0-.772c.01-.147-.038-.246-.088-.294l-.815-.806C.635 6.045.431 5.298.746 4.623a7.92 7.92 0 0 1 .704-1.217c.428-.61 1.176-.807 1.82-.63l1.102.302c.067.019.177.011.3-.071.214-.143.437-.272.668-.386.133-.066.194-.158.211-.224l.29-1.106C6.009.645 6.556.095 7.299.03 7.53.01 7.764 0 8 0Zm-.571 1.525c-.036.003-.108.036-.137.146l-.289 1.105c-.147.561-.549.967-.998 1.189-.173.086-.34.183-.5.29-.417.278-.97.423-1.529.27l-1.103-.303c-.109-.03-.175.016-.195.045-.22.312-.412.644-.573.99-.014.031-.021.11.059.19l.815.806c.411.406.562.957.53 1.456a4.709 4.709 0 0 0 0 .582c.032.499-.119 1.05-.53 1.456l-.815.806c-.081.08-.073.159-.059.19.162.346.353.677.573.989.02.03.085.076.195.046l1.102-.303c.56-.153 1.113-.008 1.53.27.161.107.328.204.501.29.447.222.85.629.997 1.189l.289 1.105c.029.109.101.143.137.146a6.6 6.6 0 0 0 1.142 0c.036-.003.108-.036.137-.146l.289-1.105c.147-.561.549-.967.998-1.189.173-.086.34-.183.5-.29.417-.278.97-.423 1.529-.27l1.103.303c.109.029.175-.016.195-.045.22-.313.411-.644.573-.99.014-.031.021-.11-.059-.19l-.815-.806c-.411-.406-.562-.957-.53-1.456a4.709 4.709 0 0 0 0-.582c-.032-.499.119-1.05.53-1.456l.815-.806c.081-.08.073-.159.059-.19a6.464 6.464 0 0 0-.573-.989c-.02-.03-.085-.076-.195-.046l-1.102.303c-.56.153-1.113.008-1.53-.27a4.44 4.44 0 0 0-.501-.29c-.447-.222-.85-.629-.997-1.189l-.289-1.105c-.029-.11-.101-.143-.137-.146a6.6 6.6 0 0 0-1.142 0ZM11 8a3 3 0 1 1-6 0 3 3 0 0 1 6 0ZM9.5 8a1.5 1.5 0 1 0-3.001.001A1.5 1.5 0 0 0 9.5 8Z"/>',
  check:
    '<path d="M13.78 4.22a.75.75 0 0 1 0 1.06l-7.25 7.25a.75.75 0 0 1-1.06 0L2.22 9.28a.751.751 0 0 1 .018-1.042.751.751 0 0 1 1.042-.018L6 10.94l6.72-6.72a.75.75 0 0 1 1.06 0Z"/>',
};

export function icon(name: keyof typeof ICONS | string, cls = ''): RawHtml {
  return raw(
    `<svg class="${cx('fh-icon')} ${escapeHtml(cls)}" viewBox="0 0 16 16" width="16" height="16" fill="currentColor" aria-hidden="true" focusable="false">${ICONS[name] ?? ''}</svg>`,
  );
}

function hue(s: string) {
  return parseInt(createHash('md5').update(s.toLowerCase()).digest('hex').slice(0, 6), 16) % 360;
}

/** An initials avatar, coloured per user. */
export function avatar(username: string, size = 20, name?: string): RawHtml {
  const initials =
    (name ?? username)
      .replace(/[^A-Za-z0-9 _-]/g, '')
      .split(/[ _-]+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((p) => p[0]!.toUpperCase())
      .join('') || '?';
  return html`<span class="${cx('fh-avatar')}" aria-hidden="true" style="${`width:${size}px;height:${size}px;font-size:${Math.round(size * 0.42)}px;background:hsl(${hue(username)} 55% 42%)`}">${initials}</span>`;
}

export function ago(date: Date | string, now: Date): RawHtml {
  const d = new Date(date);
  const s = Math.max(0, Math.round((now.getTime() - d.getTime()) / 1000));
  let text: string;
  if (s < 45) text = 'just now';
  else if (s < 90 * 60) text = `${Math.max(1, Math.round(s / 60))} minute${Math.round(s / 60) > 1 ? 's' : ''} ago`;
  else if (s < 36 * 3600) text = `${Math.round(s / 3600)} hours ago`;
  else if (s < 30 * 86400) text = Math.round(s / 86400) === 1 ? 'yesterday' : `${Math.round(s / 86400)} days ago`;
  else
    text = `on ${d.toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: d.getFullYear() === now.getFullYear() ? undefined : 'numeric' })}`;
  return html`<time datetime="${d.toISOString()}" title="${d.toUTCString()}">${text}</time>`;
}

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export const LANG_COLORS: Record<string, string> = {
  Go: '#00ADD8',
  TypeScript: '#3178c6',
  JavaScript: '#f1e05a',
  Python: '#3572A5',
  Rust: '#dea584',
  C: '#555555',
  Shell: '#89e051',
  CSS: '#563d7c',
  HTML: '#e34c26',
  Markdown: '#083fa1',
  Lua: '#000080',
  Kotlin: '#A97BFF',
};

export function lang(language?: string): RawHtml | string {
  if (!language) return '';
  return html`<span class="${cx('fh-lang')}"><span class="${cx('fh-lang-dot')}" style="${`background:${LANG_COLORS[language] ?? '#8b949e'}`}" aria-hidden="true"></span>${language}</span>`;
}

/** Issue and comment bodies: plain text with a little Markdown (**bold**, _italic_, `code`, lists, headings, @mentions). */
export function rich(text: string): RawHtml {
  const inline = (s: string) =>
    escapeHtml(s)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/(^|[\s(])_([^_]+)_(?=[\s).,!?:;]|$)/g, '$1<em>$2</em>')
      .replace(/(^|[\s(])@([A-Za-z0-9][A-Za-z0-9_-]{0,38})/g, '$1<a href="/$2">@$2</a>');
  const blocks = text
    .replace(/\r\n?/g, '\n')
    .replace(/\u00a0/g, ' ')
    .trim()
    .split(/\n\s*\n/)
    .filter((b) => b.trim());
  const out = blocks.map((b) => {
    const lines = b.split('\n');
    if (lines[0]!.startsWith('```')) {
      const code = lines.slice(1, lines[lines.length - 1]!.startsWith('```') ? -1 : undefined).join('\n');
      return `<pre><code>${escapeHtml(code)}</code></pre>`;
    }
    const heading = /^(#{1,3}) (.+)$/.exec(lines[0]!);
    if (heading && lines.length === 1) {
      const level = heading[1]!.length + 1;
      return `<h${level}>${inline(heading[2]!)}</h${level}>`;
    }
    // Runs of "- item" lines become lists; other lines stay a paragraph with line breaks.
    const parts: string[] = [];
    let para: string[] = [];
    let items: string[] = [];
    const flush = () => {
      if (para.length) parts.push(`<p>${para.map(inline).join('<br>')}</p>`);
      if (items.length) parts.push(`<ul>${items.map((l) => `<li>${inline(l)}</li>`).join('')}</ul>`);
      para = [];
      items = [];
    };
    for (const line of lines) {
      const item = /^\s*[-*] (.*)$/.exec(line);
      if (item) {
        if (para.length) flush();
        items.push(item[1]!);
      } else {
        if (items.length) flush();
        para.push(line);
      }
    }
    flush();
    return parts.join('');
  });
  return raw(`<div class="${cx('fh-md')}">${out.join('')}</div>`);
}

/** Numbered pagination: Previous 1 2 … 9 Next. */
export function pagination(page: number, pages: number, href: (p: number) => string): RawHtml | string {
  if (pages <= 1) return '';
  const shown = [...new Set([1, pages, page - 1, page, page + 1].filter((p) => p >= 1 && p <= pages))].sort((a, b) => a - b);
  const items: RawHtml[] = [];
  shown.forEach((p, i) => {
    if (i > 0 && p - shown[i - 1]! > 1) items.push(html`<span class="${cx('fh-page-gap')}" aria-hidden="true">…</span>`);
    items.push(
      p === page
        ? html`<a class="${cx('fh-page')} ${cx('fh-page-cur')}" href="${href(p)}" aria-current="page" aria-label="${`Page ${p}`}">${p}</a>`
        : html`<a class="${cx('fh-page')}" href="${href(p)}" aria-label="${`Page ${p}`}">${p}</a>`,
    );
  });
  return html`<nav class="${cx('fh-pagination')}" aria-label="Pagination">
${page > 1 ? html`<a class="${cx('fh-page')}" href="${href(page - 1)}" rel="prev">‹ Previous</a>` : html`<span class="${cx('fh-page')} ${cx('fh-page-off')}" aria-disabled="true">‹ Previous</span>`}
${items}
${page < pages ? html`<a class="${cx('fh-page')}" href="${href(page + 1)}" rel="next">Next ›</a>` : html`<span class="${cx('fh-page')} ${cx('fh-page-off')}" aria-disabled="true">Next ›</span>`}
</nav>`;
}

export function blankslate(title: string, text: string | RawHtml, iconName = 'repo'): RawHtml {
  return html`<div class="${cx('fh-blank')}">${icon(iconName, cx('fh-blank-icon'))}<h3>${title}</h3><p>${text}</p></div>`;
}

export function notFound(what = 'page'): RawHtml {
  return html`<div class="${cx('fh-404')}"><h1>404</h1><p>${`This is not the ${what} you are looking for.`}</p><p><a href="/">Back to your dashboard</a></p></div>`;
}

// ---------- the page chrome ----------

const NAV: [string, string, string][] = [
  ['dashboard', '/', 'Dashboard'],
  ['repositories', '/repositories', 'Repositories'],
  ['issues', '/issues', 'Issues'],
  ['stars', '/stars', 'Stars'],
];

export function layout(input: LayoutInput): RawHtml {
  const { user, active } = input;
  const cur = (key: string) => (active === key ? raw(' aria-current="page"') : '');
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${input.csrfToken}">
<title>${input.title} · ForgeHub</title>
<link rel="icon" href="${`data:image/svg+xml,${encodeURIComponent(LOGO_SVG)}`}">
<style>${raw(forgehubCss)}</style>
</head>
<body class="${cx('fh-body')}">
<a class="${cx('fh-skip')}" href="#main-content">Skip to content</a>
<header class="${cx('fh-header')}">
  <a class="${cx('fh-brand')}" href="/" aria-label="ForgeHub dashboard">${raw(LOGO_SVG)}<span>ForgeHub</span></a>
  <form class="${cx('fh-hsearch')}" role="search" method="get" action="/repositories">
    <label class="${cx('fh-sr')}" for="${cx('fh-global-q')}">Search ForgeHub</label>
    <input id="${cx('fh-global-q')}" type="search" name="q" placeholder="Search or jump to…" autocomplete="off">
  </form>
  <nav class="${cx('fh-nav')}" aria-label="Global">
    ${NAV.map(([key, href, label]) => html`<a href="${href}"${cur(key)}>${label}</a>`)}
  </nav>
  <div class="${cx('fh-hright')}">
    <a class="${cx('fh-hicon')} ${cx('fh-bell')}" href="/notifications"${cur('notifications')}>${icon('bell')}<span>Notifications</span><span class="${cx('fh-badge')}" hidden></span></a>
    <a class="${cx('fh-hnew')}" href="/new" title="Create new repository">${icon('plus')}<span>New</span></a>
    <a class="${cx('fh-me')}" href="${`/${user.username}`}"${cur('profile')}>${avatar(user.username, 24, user.displayName)}<span>${user.displayName}</span></a>
    <form method="post" action="/logout" class="${cx('fh-logout')}"><input type="hidden" name="_csrf" value="${input.csrfToken}"><button type="submit">Sign out</button></form>
  </div>
</header>
<div class="${cx('fh-toasts')}" role="status" aria-live="polite">${input.toast ? html`<div class="${cx('fh-toast')}">${icon('check')}<span>${input.toast}</span><button type="button" class="${cx('fh-toast-x')}" aria-label="Dismiss">×</button></div>` : ''}</div>
<main id="main-content" class="${cx('fh-main')}">
${input.body}
</main>
<footer class="${cx('fh-footer')}">
  ${raw(LOGO_SVG)}<span>© ${new Date().getFullYear()} ForgeHub (sandbox)</span>
  <span>Terms</span><span>Privacy</span><span>Docs</span><span>Status</span>
</footer>
<script>${raw(clientScript)}</script>
</body>
</html>`;
}
