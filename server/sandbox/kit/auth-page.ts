import type { Response } from 'express';

import { cx } from './class-names';
import { html, raw, type RawHtml } from './html';
import type { SiteDefinition } from './site';

/**
 * A page of the sign-in (the form, a code step, the human check, the device prompt, locked): the kit's card in the
 * site's brand, the same on every simulated site.
 */
export type AuthPage = (res: Response, status: number, title: string, content: RawHtml) => void;

export function authPageOf(site: Pick<SiteDefinition, 'brand'>): AuthPage {
  return (res, status, title, content) => {
    res
      .status(status)
      .type('html')
      .send(
        html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${site.brand.name}</title><style>${raw(site.brand.css)}${raw(AUTH_CSS)}</style></head>
<body class="${cx('auth-body')}"><main class="${cx('auth-main')}"><div class="${cx('auth-card')}">
<div class="${cx('auth-logo')}" aria-hidden="true">${raw(site.brand.logoSvg)}</div>
${content}
</div></main></body></html>`.value,
      );
  };
}

const AUTH_CSS = `
.${cx('auth-body')}{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif}
.${cx('auth-main')}{width:100%;max-width:400px;padding:16px;box-sizing:border-box}
.${cx('auth-card')}{background:#fff;border-radius:12px;box-shadow:0 4px 24px rgba(0,0,0,.08);padding:28px}
.${cx('auth-logo')} svg{width:48px;height:48px}
.${cx('auth-title')}{font-size:22px;margin:12px 0 16px}
.${cx('auth-form')}{display:flex;flex-direction:column;gap:8px}
.${cx('auth-form')} input{padding:10px;border:1px solid #d1d5db;border-radius:8px;font-size:16px}
.${cx('auth-submit')}{margin-top:12px;padding:11px;border:0;border-radius:8px;background:#111827;color:#fff;font-size:16px;cursor:pointer}
.${cx('auth-submit')}:disabled{opacity:.5;cursor:not-allowed}
.${cx('auth-error')}{background:#fef2f2;color:#991b1b;border:1px solid #fecaca;border-radius:8px;padding:10px;margin-bottom:12px}
.${cx('auth-hint')}{color:#4b5563}
.${cx('hv-box')}{display:flex;align-items:center;gap:12px;border:1px solid #d1d5db;border-radius:8px;padding:14px;margin:8px 0}
.${cx('hv-check')}{width:26px;height:26px;border:2px solid #6b7280;border-radius:4px;cursor:pointer;display:flex;align-items:center;justify-content:center;color:#059669;font-weight:700}
`;
