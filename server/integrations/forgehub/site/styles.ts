import { cx } from '../../../sandbox/kit/site-app';

/** ForgeHub's stylesheet; every class name goes through cx() so the markup looks like generated CSS-in-JS. */
const c = (name: string) => `.${cx(name)}`;

export const forgehubCss = `
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
${c('fh-body')}{margin:0;font:14px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:#1f2328;background:#fff;min-height:100vh;display:flex;flex-direction:column}
${c('fh-body')} a{color:#0969da;text-decoration:none}
${c('fh-body')} a:hover{text-decoration:underline}
${c('fh-body')} :focus-visible{outline:2px solid #0969da;outline-offset:1px}
${c('fh-sr')}{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
${c('fh-skip')}{position:absolute;left:-999px;top:8px;background:#fff;padding:6px 10px;z-index:50}
${c('fh-skip')}:focus{left:8px}
${c('fh-icon')}{vertical-align:text-bottom;flex:none}

${c('fh-header')}{display:flex;align-items:center;gap:16px;padding:12px 24px;background:#1f2328;color:#fff}
${c('fh-brand')}{display:flex;align-items:center;gap:8px;color:#fff!important;font-weight:600;font-size:16px}
${c('fh-brand')} svg{width:32px;height:32px}
${c('fh-hsearch')} input{width:260px;padding:5px 10px;border-radius:6px;border:1px solid #57606a;background:#1f2328;color:#fff;font-size:14px}
${c('fh-hsearch')} input::placeholder{color:#a0a8b0}
${c('fh-nav')}{display:flex;gap:16px}
${c('fh-nav')} a{color:#fff!important;font-weight:600}
${c('fh-nav')} a[aria-current="page"]{text-decoration:underline;text-underline-offset:6px}
${c('fh-hright')}{margin-left:auto;display:flex;align-items:center;gap:14px}
${c('fh-hicon')},${c('fh-hnew')},${c('fh-me')}{display:flex;align-items:center;gap:6px;color:#fff!important}
${c('fh-bell')}>span:first-of-type{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
${c('fh-bell')}{position:relative}
${c('fh-badge')}{background:#0969da;color:#fff;border-radius:10px;font-size:11px;font-weight:600;padding:0 6px;line-height:16px}
${c('fh-hnew')}{border:1px solid #57606a;border-radius:6px;padding:3px 8px}
${c('fh-logout')}{margin:0}
${c('fh-logout')} button{background:transparent;color:#d0d7de;border:1px solid #57606a;border-radius:6px;padding:3px 10px;cursor:pointer;font:inherit}
${c('fh-logout')} button:hover{color:#fff;border-color:#8c959f}

${c('fh-avatar')}{display:inline-flex;align-items:center;justify-content:center;border-radius:50%;color:#fff;font-weight:600;flex:none;letter-spacing:.5px;vertical-align:middle}
${c('fh-main')}{flex:1;width:100%;max-width:1200px;margin:0 auto;padding:24px}
${c('fh-footer')}{display:flex;gap:18px;align-items:center;justify-content:center;padding:28px;color:#59636e;font-size:12px;border-top:1px solid #d1d9e0;margin-top:40px}
${c('fh-footer')} svg{width:20px;height:20px;filter:grayscale(1);opacity:.6}

${c('fh-toasts')}{position:fixed;bottom:24px;left:24px;z-index:100;display:flex;flex-direction:column;gap:8px}
${c('fh-toast')}{display:flex;align-items:center;gap:10px;min-width:280px;max-width:460px;background:#1f2328;color:#fff;padding:12px 14px;border-radius:8px;box-shadow:0 8px 24px rgba(0,0,0,.24);animation:${cx('fh-toast-in')} .2s ease-out}
${c('fh-toast')} svg{color:#4ac26b}
${c('fh-toast-err')} svg{color:#ff8182}
${c('fh-toast-x')}{margin-left:auto;background:none;border:0;color:#d0d7de;font-size:18px;cursor:pointer;line-height:1}
@keyframes ${cx('fh-toast-in')}{from{transform:translateY(12px);opacity:0}to{transform:none;opacity:1}}

${c('fh-btn')}{display:inline-flex;align-items:center;gap:6px;padding:5px 16px;font-weight:500;font-size:14px;line-height:20px;font-family:inherit;border:1px solid #d1d9e0;border-radius:6px;background:#f6f8fa;color:#25292e;cursor:pointer;white-space:nowrap;text-decoration:none!important}
${c('fh-btn')}:hover{background:#eff2f5}
${c('fh-btn')}[disabled]{opacity:.6;cursor:not-allowed}
${c('fh-btn-primary')}{background:#1f883d;border-color:rgba(31,35,40,.15);color:#fff!important}
${c('fh-btn-primary')}:hover{background:#1c8139}
${c('fh-btn-danger')}{color:#d1242f!important}
${c('fh-btn-danger')}:hover{background:#d1242f;color:#fff!important}
${c('fh-danger')}{border-color:#d1242f}
${c('fh-danger-row')}{display:flex;align-items:center;justify-content:space-between;gap:16px}
${c('fh-btn-sm')}{padding:2px 10px;font-size:12px}
${c('fh-counter')}{display:inline-block;min-width:20px;padding:0 6px;border-radius:20px;background:rgba(175,184,193,.3);font-size:12px;font-weight:500;line-height:18px;text-align:center;color:#1f2328}

${c('fh-pagehead')}{display:flex;align-items:center;gap:12px;margin-bottom:16px;padding-bottom:12px;border-bottom:1px solid #d1d9e0}
${c('fh-pagehead')} h1{font-size:22px;font-weight:600;margin:0}
${c('fh-pagehead')}>:last-child:not(:first-child){margin-left:auto}
${c('fh-grid')}{display:grid;grid-template-columns:minmax(0,1fr) 296px;gap:32px}
${c('fh-grid-left')}{grid-template-columns:296px minmax(0,1fr)}
@media (max-width:860px){${c('fh-grid')}{grid-template-columns:1fr}${c('fh-hsearch')}{display:none}}
${c('fh-box')}{border:1px solid #d1d9e0;border-radius:6px;background:#fff}
${c('fh-box-head')}{padding:12px 16px;background:#f6f8fa;border-bottom:1px solid #d1d9e0;border-radius:6px 6px 0 0;display:flex;align-items:center;gap:12px;flex-wrap:wrap}
${c('fh-box-row')}{padding:12px 16px;border-top:1px solid #d1d9e0}
${c('fh-box-row')}:first-child{border-top:0}
${c('fh-list')}{list-style:none;margin:0;padding:0}
${c('fh-muted')}{color:#59636e}
${c('fh-small')}{font-size:12px}
${c('fh-label')}{display:inline-block;padding:0 7px;border-radius:2em;font-size:12px;font-weight:500;line-height:18px;border:1px solid transparent;white-space:nowrap}
${c('fh-vis')}{border-color:#d1d9e0;color:#59636e}
${c('fh-topic')}{background:#ddf4ff;color:#0969da!important;margin:0 4px 4px 0}

${c('fh-lang')}{display:inline-flex;align-items:center;gap:4px}
${c('fh-lang-dot')}{width:12px;height:12px;border-radius:50%;border:1px solid rgba(31,35,40,.1)}
${c('fh-repo-item')}{display:flex;gap:16px;justify-content:space-between;align-items:flex-start;padding:20px 0;border-bottom:1px solid #d1d9e0}
${c('fh-repo-item')} h3{margin:0 0 4px;font-size:20px;font-weight:600;display:flex;align-items:center;gap:8px}
${c('fh-repo-desc')}{margin:0 0 8px;color:#59636e;max-width:700px}
${c('fh-repo-meta')}{display:flex;gap:16px;flex-wrap:wrap;color:#59636e;font-size:12px;align-items:center}
${c('fh-repo-meta')} a{color:#59636e}
${c('fh-searchrow')}{display:flex;gap:8px;align-items:center;margin-bottom:8px}
${c('fh-searchrow')} input{flex:1}
${c('fh-resultcount')}{padding:8px 0;border-bottom:1px solid #d1d9e0;color:#59636e}

${c('fh-input')}{width:100%;padding:5px 12px;font-size:14px;line-height:20px;font-family:inherit;border:1px solid #d1d9e0;border-radius:6px;background:#f6f8fa;color:#1f2328}
${c('fh-input')}:focus{background:#fff;border-color:#0969da;outline:none;box-shadow:inset 0 0 0 1px #0969da}
${c('fh-input')}[aria-invalid="true"]{border-color:#d1242f}
textarea${c('fh-input')}{min-height:110px;resize:vertical}
${c('fh-field')}{margin:0 0 18px}
${c('fh-field-label')}{display:block;font-weight:600;margin-bottom:6px}
${c('fh-hint')}{color:#59636e;font-size:12px;margin:4px 0 0}
${c('fh-error')}{color:#d1242f;font-size:12px;margin:6px 0 0;display:flex;gap:4px;align-items:center}
${c('fh-error-summary')}{border:1px solid #ff818266;background:#ffebe9;border-radius:6px;padding:12px 16px;margin-bottom:16px;color:#1f2328}
${c('fh-form')}{max-width:720px}
${c('fh-owner-row')}{display:flex;align-items:flex-end;gap:10px}
${c('fh-owner-row')} > div:last-child{flex:1}
${c('fh-slash')}{font-size:22px;padding-bottom:4px}
${c('fh-ownerchip')}{display:inline-flex;align-items:center;gap:6px;padding:5px 12px;border:1px solid #d1d9e0;border-radius:6px;background:#f6f8fa;font-weight:500}
${c('fh-check')}{display:flex;gap:8px;align-items:flex-start}
${c('fh-sep')}{border:0;border-top:1px solid #d1d9e0;margin:20px 0}

${c('fh-dd')}{position:relative;display:inline-block;min-width:260px}
${c('fh-dd-btn')}{width:100%;justify-content:space-between}
${c('fh-dd-list')}{position:absolute;left:0;top:calc(100% + 4px);z-index:30;min-width:340px;margin:0;padding:6px 0;list-style:none;background:#fff;border:1px solid #d1d9e0;border-radius:12px;box-shadow:0 8px 24px rgba(140,149,159,.3)}
${c('fh-dd-list')}:focus{outline:none}
${c('fh-dd-opt')}{display:flex;gap:10px;padding:8px 14px;cursor:pointer;align-items:flex-start}
${c('fh-dd-opt')} strong{display:block}
${c('fh-dd-opt')} span{color:#59636e;font-size:12px}
${c('fh-dd-opt')}[aria-selected="true"]>svg:first-child{visibility:visible}
${c('fh-dd-opt')}>svg:first-child{visibility:hidden;margin-top:3px}
${c('fh-dd-opt')}:hover,${c('fh-dd-active')}{background:#f6f8fa}

${c('fh-dialog')}{border:0;border-radius:12px;padding:0;width:min(720px,92vw);box-shadow:0 12px 48px rgba(31,35,40,.35);color:#1f2328}
${c('fh-dialog')}::backdrop{background:rgba(31,35,40,.5)}
${c('fh-dialog-sm')}{width:min(440px,92vw)}
${c('fh-dialog-head')}{display:flex;align-items:center;padding:14px 18px;border-bottom:1px solid #d1d9e0}
${c('fh-dialog-head')} h2{font-size:16px;margin:0}
${c('fh-dialog-x')}{margin-left:auto;background:none;border:0;font-size:20px;cursor:pointer;color:#59636e}
${c('fh-dialog-body')}{padding:18px}
${c('fh-dialog-foot')}{display:flex;justify-content:flex-end;gap:8px;padding:12px 18px;border-top:1px solid #d1d9e0}

${c('fh-editor')}{border:1px solid #d1d9e0;border-radius:6px;overflow:hidden}
${c('fh-editor')}:focus-within{border-color:#0969da;box-shadow:inset 0 0 0 1px #0969da}
${c('fh-toolbar')}{display:flex;gap:2px;padding:4px 8px;background:#f6f8fa;border-bottom:1px solid #d1d9e0}
${c('fh-toolbar')} button{background:none;border:0;border-radius:6px;padding:4px 8px;cursor:pointer;color:#59636e;font:600 13px/18px ui-monospace,SFMono-Regular,Menlo,monospace}
${c('fh-toolbar')} button:hover{background:#e6eaef;color:#1f2328}
${c('fh-ed')}{min-height:150px;padding:10px 12px;white-space:pre-wrap;outline:none;overflow-wrap:anywhere}
${c('fh-ed')}${c('fh-ed-empty')}::before{content:attr(aria-placeholder);color:#8c959f;pointer-events:none}

${c('fh-repohead')}{background:#f6f8fa;border-bottom:1px solid #d1d9e0;margin:-24px -24px 24px;padding:18px 24px 0}
${c('fh-repohead-top')}{display:flex;align-items:center;gap:10px;flex-wrap:wrap;font-size:20px}
${c('fh-repohead-top')} strong a{color:#1f2328}
${c('fh-repohead-actions')}{margin-left:auto;display:flex;gap:8px;font-size:14px}
${c('fh-star-form')}{display:inline-flex;margin:0}
${c('fh-star-form')} ${c('fh-btn')}{border-radius:6px 0 0 6px}
${c('fh-star-count')}{display:inline-flex;align-items:center;padding:5px 12px;border:1px solid #d1d9e0;border-left:0;border-radius:0 6px 6px 0;background:#fff;font-weight:600;font-size:12px;color:#1f2328!important}
${c('fh-starred')} svg{color:#eac54f}
${c('fh-tabs')}{display:flex;gap:4px;margin-top:14px}
${c('fh-tabs')} a{display:flex;align-items:center;gap:8px;padding:8px 14px;color:#1f2328;border-bottom:2px solid transparent;text-decoration:none!important}
${c('fh-tabs')} a:hover{border-bottom-color:#d1d9e0}
${c('fh-tabs')} a[aria-current="page"]{border-bottom-color:#fd8c73;font-weight:600}
${c('fh-about')} h2{font-size:16px;margin:0 0 10px}
${c('fh-about')} p{margin:0 0 14px}
${c('fh-about-stats')}{list-style:none;padding:0;margin:0 0 16px;display:flex;flex-direction:column;gap:8px;color:#59636e}
${c('fh-readme')}{padding:16px 32px 24px}
${c('fh-clone')}{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:#f6f8fa;border:1px solid #d1d9e0;border-radius:6px;padding:8px 12px;overflow:auto}

${c('fh-md')} p{margin:0 0 12px}
${c('fh-md')}>:last-child{margin-bottom:0}
${c('fh-md')} code{background:rgba(175,184,193,.2);padding:.2em .4em;border-radius:6px;font:85% ui-monospace,SFMono-Regular,Menlo,monospace}
${c('fh-md')} pre{background:#f6f8fa;padding:14px;border-radius:6px;overflow:auto}
${c('fh-md')} pre code{background:none;padding:0}
${c('fh-md')} h2{font-size:24px;border-bottom:1px solid #d1d9e0;padding-bottom:6px;margin:8px 0 16px}
${c('fh-md')} h3{font-size:18px;margin:20px 0 10px}

${c('fh-states')}{display:flex;gap:14px}
${c('fh-states')} a{display:flex;gap:6px;align-items:center;color:#59636e;text-decoration:none!important}
${c('fh-states')} a[aria-current="page"]{color:#1f2328;font-weight:600}
${c('fh-issue-item')}{display:flex;gap:10px;padding:10px 16px;border-top:1px solid #d1d9e0;align-items:flex-start}
${c('fh-issue-item')}:first-child{border-top:0}
${c('fh-issue-item')}:hover{background:#f6f8fa}
${c('fh-issue-title')}{font-weight:600;font-size:16px;color:#1f2328!important}
${c('fh-issue-meta')}{color:#59636e;font-size:12px;margin-top:2px}
${c('fh-issue-right')}{margin-left:auto;color:#59636e;display:flex;gap:4px;align-items:center;font-size:12px}
${c('fh-io')}{color:#1a7f37}
${c('fh-ic')}{color:#8250df}
${c('fh-lbl-bug')}{background:#d73a4a;color:#fff}
${c('fh-lbl-enhancement')}{background:#a2eeef;color:#1f2328}
${c('fh-lbl-documentation')}{background:#0075ca;color:#fff}
${c('fh-lbl-question')}{background:#d876e3;color:#fff}
${c('fh-lbl-good-first-issue')}{background:#7057ff;color:#fff}
${c('fh-more')}{display:flex;flex-direction:column;align-items:center;gap:8px;padding:16px;border-top:1px solid #d1d9e0}

${c('fh-issue-h1')}{font-size:32px;font-weight:400;margin:0 0 8px}
${c('fh-issue-h1')} span{color:#59636e;font-weight:300}
${c('fh-state')}{display:inline-flex;align-items:center;gap:4px;padding:5px 12px;border-radius:2em;color:#fff;font-weight:500}
${c('fh-state-open')}{background:#1f883d}
${c('fh-state-closed')}{background:#8250df}
${c('fh-issue-sub')}{display:flex;gap:8px;align-items:center;padding-bottom:16px;margin-bottom:20px;border-bottom:1px solid #d1d9e0;color:#59636e}
${c('fh-timeline')}{display:flex;flex-direction:column;gap:16px;margin-bottom:16px}
${c('fh-comment')}{display:flex;gap:14px}
${c('fh-comment-box')}{flex:1;border:1px solid #d1d9e0;border-radius:6px;min-width:0}
${c('fh-comment-head')}{padding:8px 16px;background:#f6f8fa;border-bottom:1px solid #d1d9e0;border-radius:6px 6px 0 0;color:#59636e}
${c('fh-comment-head')} a{color:#1f2328;font-weight:600}
${c('fh-comment-body')}{padding:14px 16px}
${c('fh-event')}{display:flex;gap:10px;align-items:center;margin-left:54px;color:#59636e}
${c('fh-event')} a{color:#1f2328;font-weight:600}
${c('fh-event-icon')}{display:inline-flex;width:28px;height:28px;border-radius:50%;align-items:center;justify-content:center;color:#fff}
${c('fh-actions')}{display:flex;justify-content:flex-end;gap:8px;margin-top:10px}

${c('fh-spinner')}{display:flex;align-items:center;justify-content:center;gap:10px;padding:40px;color:#59636e}
${c('fh-spin')}{width:20px;height:20px;border:2px solid #d1d9e0;border-top-color:#0969da;border-radius:50%;animation:${cx('fh-rot')} .7s linear infinite}
@keyframes ${cx('fh-rot')}{to{transform:rotate(360deg)}}
${c('fh-notif')}{display:flex;gap:12px;align-items:center;padding:12px 16px;border-top:1px solid #d1d9e0}
${c('fh-notif')}:first-child{border-top:0}
${c('fh-notif-unread')}{background:#ddf4ff44}
${c('fh-notif-unread')} ${c('fh-notif-subject')}{font-weight:600}
${c('fh-notif-dot')}{width:8px;height:8px;border-radius:50%;background:#0969da;flex:none}
${c('fh-notif-read')} ${c('fh-notif-dot')}{visibility:hidden}
${c('fh-notif-main')}{flex:1;min-width:0}
${c('fh-notif-subject')}{color:#1f2328!important}
${c('fh-notif')} form{margin:0}

${c('fh-profile-name')}{font-size:24px;font-weight:600;margin:16px 0 0;line-height:1.25}
${c('fh-profile-login')}{font-size:20px;font-weight:300;color:#59636e;margin:0 0 16px}
${c('fh-profile-side')} ${c('fh-avatar')}{box-shadow:0 0 0 1px #d1d9e0}
${c('fh-stats')}{display:flex;flex-wrap:wrap;gap:4px 14px;margin:12px 0;color:#59636e}
${c('fh-stats')} strong{color:#1f2328}
${c('fh-facts')}{list-style:none;padding:0;margin:12px 0;display:flex;flex-direction:column;gap:4px}
${c('fh-cards')}{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:16px}
${c('fh-card')}{border:1px solid #d1d9e0;border-radius:6px;padding:16px;display:flex;flex-direction:column;gap:8px}
${c('fh-card')} p{margin:0;color:#59636e;font-size:12px;flex:1}

${c('fh-feed-item')}{display:flex;gap:12px;padding:14px 0;border-bottom:1px solid #d1d9e0}
${c('fh-feed-item')} p{margin:0}
${c('fh-side-list')} li{display:flex;gap:8px;align-items:center;padding:5px 0}
${c('fh-side-list')} a{color:#1f2328;font-weight:600}
${c('fh-side-head')}{display:flex;align-items:center;justify-content:space-between;margin-bottom:8px}
${c('fh-side-head')} h2{font-size:14px;margin:0}

${c('fh-blank')}{text-align:center;padding:48px 24px;color:#59636e}
${c('fh-blank')} h3{color:#1f2328;font-size:20px;margin:12px 0 4px}
${c('fh-blank-icon')}{width:24px;height:24px}
${c('fh-404')}{text-align:center;padding:80px 0}
${c('fh-404')} h1{font-size:72px;margin:0;color:#d1d9e0}

${c('fh-pagination')}{display:flex;justify-content:center;gap:4px;margin:24px 0;flex-wrap:wrap}
${c('fh-page')}{min-width:32px;padding:5px 10px;border-radius:6px;text-align:center;color:#1f2328!important;border:1px solid transparent;text-decoration:none!important}
${c('fh-page')}:hover{border-color:#d1d9e0}
${c('fh-page-cur')}{background:#0969da;color:#fff!important}
${c('fh-page-off')}{color:#8c959f!important}
${c('fh-page-gap')}{padding:5px 6px;color:#59636e}
`;
