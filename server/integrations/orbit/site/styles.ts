import { C } from './classes';

const s = (name: keyof typeof C) => `.${C[name]}`;

export const ORBIT_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img" aria-label="Orbit"><rect width="64" height="64" rx="14" fill="#4f46e5"/>' +
  '<circle cx="32" cy="32" r="11" fill="#fff"/><ellipse cx="32" cy="32" rx="24" ry="9" fill="none" stroke="#fff" stroke-width="3" transform="rotate(-25 32 32)"/></svg>';

/** The whole stylesheet (served inline; the kit's login pages use it too). */
export const ORBIT_CSS = `
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body${s('body')}{margin:0;background:#f4f2ee;color:#1f2328;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
a{color:#4338ca;text-decoration:none}a:hover{text-decoration:underline}
button{font:inherit}
h1,h2,h3{margin:0}
${s('srOnly')}{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
${s('header')}{position:sticky;top:0;z-index:20;background:#fff;border-bottom:1px solid #e5e7eb}
${s('headerInner')}{max-width:1128px;margin:0 auto;display:flex;align-items:center;gap:16px;padding:0 16px;height:56px}
${s('brand')}{display:flex;align-items:center;gap:8px;color:#111827;font-weight:700;font-size:18px}
${s('brand')} svg{width:34px;height:34px}
${s('search')}{flex:0 1 280px}
${s('search')} input{width:100%;padding:8px 12px;border-radius:6px;border:1px solid transparent;background:#eef3f8;font:inherit}
${s('search')} input:focus{outline:2px solid #4f46e5;background:#fff}
${s('nav')}{margin-left:auto;display:flex;align-items:stretch;height:100%}
${s('navItem')}{position:relative;display:flex;flex-direction:column;align-items:center;justify-content:center;min-width:76px;padding:0 6px;color:#5f6368;font-size:12px;border-bottom:2px solid transparent}
${s('navItem')}:hover{color:#111827;text-decoration:none}
${s('navActive')}{color:#111827;border-bottom-color:#111827}
${s('navIcon')}{width:24px;height:24px;fill:currentColor}
${s('badge')}{position:absolute;top:5px;left:calc(50% + 4px);min-width:18px;height:18px;padding:0 5px;border-radius:9px;background:#cc1016;color:#fff;font-size:11px;font-weight:700;display:flex;align-items:center;justify-content:center}
${s('signout')}{display:flex;align-items:center;margin-left:8px}
${s('main')}{max-width:1128px;margin:24px auto;padding:0 16px}
${s('home')}{display:grid;grid-template-columns:225px minmax(0,1fr) 300px;gap:24px;align-items:start}
${s('profileLayout')}{display:grid;grid-template-columns:minmax(0,1fr) 300px;gap:24px;align-items:start}
@media (max-width:960px){${s('home')},${s('profileLayout')}{grid-template-columns:1fr}${s('side')}{display:none}}
${s('card')}{background:#fff;border:1px solid #e0dfdc;border-radius:10px;margin-bottom:12px;overflow:hidden}
${s('pad')}{padding:16px}
${s('cardTitle')}{font-size:16px;font-weight:600;margin-bottom:12px}
${s('heading')}{font-size:20px;font-weight:600}
${s('pageHead')}{display:flex;align-items:center;justify-content:space-between;gap:12px;margin-bottom:12px}
${s('btn')}{display:inline-flex;align-items:center;justify-content:center;gap:6px;padding:6px 16px;border-radius:999px;border:1px solid #4f46e5;background:#fff;color:#4f46e5;font-weight:600;cursor:pointer;line-height:20px}
${s('btn')}:hover{background:#eef2ff;text-decoration:none}
${s('btnPrimary')}{background:#4f46e5;color:#fff}
${s('btnPrimary')}:hover{background:#4338ca}
${s('btn')}:disabled{opacity:.45;cursor:not-allowed}
${s('btnGhost')}{border-color:#6b7280;color:#374151}
${s('btnGhost')}:hover{background:#f3f4f6}
${s('btnDanger')}{background:#b91c1c;border-color:#b91c1c;color:#fff}
${s('btnDanger')}:hover{background:#991b1b}
${s('btnSm')}{padding:3px 12px;font-size:13px}
${s('avatar')}{flex:none;display:inline-flex;align-items:center;justify-content:center;width:48px;height:48px;border-radius:50%;color:#fff;font-weight:700;font-size:17px;letter-spacing:.5px}
${s('avatarSm')}{width:32px;height:32px;font-size:12px}
${s('avatarLg')}{width:132px;height:132px;font-size:44px;border:4px solid #fff}
${s('muted')}{color:#666}
${s('small')}{font-size:12px}
${s('cover')}{height:56px;background:linear-gradient(120deg,#a5b4fc,#c7d2fe 40%,#fde68a)}
${s('meCard')}{text-align:center}
${s('meCard')} ${s('avatar')}{margin-top:-30px;border:3px solid #fff;width:64px;height:64px;font-size:22px}
${s('meName')}{display:block;font-size:16px;font-weight:600;color:#111827;margin-top:8px}
${s('meStats')}{border-top:1px solid #e5e7eb;padding:12px 16px;text-align:left;font-size:12px;display:flex;flex-direction:column;gap:4px}
${s('stat')}{display:flex;justify-content:space-between}
${s('stat')} b{color:#4338ca}
${s('composeBox')}{display:flex;gap:12px;align-items:center}
${s('composeTrigger')}{flex:1;text-align:left;padding:12px 16px;border-radius:999px;border:1px solid #a8a8a8;background:#fff;color:#555;font-weight:600;cursor:pointer}
${s('composeTrigger')}:hover{background:#f3f3f3}
${s('post')}{background:#fff;border:1px solid #e0dfdc;border-radius:10px;margin-bottom:10px}
${s('repostHead')}{padding:10px 16px;border-bottom:1px solid #eee;color:#555;font-size:13px}
${s('postHead')}{display:flex;gap:10px;padding:12px 16px 0}
${s('postWho')}{min-width:0}
${s('postName')}{font-weight:600;color:#111827}
${s('postMeta')}{color:#666;font-size:12px;display:flex;gap:6px;align-items:center;flex-wrap:wrap}
${s('vis')}{display:inline-flex;align-items:center;gap:3px}
${s('vis')} svg{width:14px;height:14px;fill:currentColor}
${s('repostHead')} svg{width:16px;height:16px;vertical-align:-3px}
${s('postText')}{padding:8px 16px 4px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:14.5px}
${s('postStats')}{display:flex;gap:6px;padding:6px 16px;color:#666;font-size:12px;border-bottom:1px solid #eee}
${s('postStats')} a{color:#666}
${s('postActions')}{display:flex;padding:4px 8px}
${s('postActions')} form{display:contents}
${s('action')}{flex:1;display:flex;align-items:center;justify-content:center;gap:6px;padding:10px 8px;border:0;border-radius:6px;background:none;color:#555;font-weight:600;cursor:pointer}
${s('action')}:hover{background:#f3f3f3;text-decoration:none}
${s('action')} svg{width:20px;height:20px;fill:currentColor}
${s('pressed')}{color:#4f46e5}
${s('backdrop')}{position:fixed;inset:0;background:rgba(0,0,0,.55);z-index:40}
${s('dialog')}{position:fixed;z-index:50;left:50%;top:10vh;transform:translateX(-50%);width:min(560px,calc(100vw - 24px));max-height:80vh;display:flex;flex-direction:column;background:#fff;border-radius:10px;box-shadow:0 12px 40px rgba(0,0,0,.3)}
${s('dialog')}[hidden],${s('backdrop')}[hidden]{display:none}
${s('dialogHead')}{display:flex;align-items:center;gap:12px;padding:16px 20px;border-bottom:1px solid #eee}
${s('dialogHead')} h2{font-size:18px;font-weight:600}
${s('dialogClose')}{margin-left:auto;width:36px;height:36px;border-radius:50%;border:0;background:none;font-size:22px;color:#555;cursor:pointer}
${s('dialogClose')}:hover{background:#f3f3f3}
${s('dialogBody')}{padding:16px 20px;overflow:auto}
${s('dialogFoot')}{display:flex;justify-content:flex-end;align-items:center;gap:10px;padding:12px 20px;border-top:1px solid #eee}
${s('editor')}{min-height:160px;padding:8px 2px;font-size:17px;outline:none;white-space:pre-wrap;overflow-wrap:anywhere}
${s('editor')}:empty:before{content:attr(data-placeholder);color:#888}
${s('counter')}{margin-right:auto;color:#666;font-size:12px}
${s('dd')}{position:relative;margin-bottom:8px;display:flex;align-items:center;gap:8px}
${s('ddLabel')}{color:#555;font-size:13px}
${s('ddButton')}{display:inline-flex;align-items:center;gap:6px;padding:4px 12px;border-radius:999px;border:1px solid #6b7280;background:#fff;font-weight:600;color:#374151;cursor:pointer}
${s('ddButton')}:hover{background:#f3f4f6}
${s('ddList')}{position:absolute;top:100%;left:0;margin:4px 0 0;padding:6px 0;list-style:none;background:#fff;border:1px solid #ddd;border-radius:8px;box-shadow:0 8px 24px rgba(0,0,0,.15);min-width:280px;z-index:5;outline:none}
${s('ddOption')}{padding:8px 14px;cursor:pointer;display:flex;flex-direction:column}
${s('ddOption')} small{color:#666}
${s('ddOption')}[aria-selected=true]{font-weight:600;box-shadow:inset 3px 0 0 #4f46e5}
${s('ddOption')}:hover,${s('ddActive')}{background:#eef2ff}
${s('toastWrap')}{position:fixed;left:24px;bottom:24px;z-index:60;display:flex;flex-direction:column;gap:8px}
${s('toast')}{display:flex;align-items:center;gap:12px;min-width:280px;max-width:420px;padding:12px 14px;background:#fff;border-radius:8px;box-shadow:0 6px 24px rgba(0,0,0,.2);border-left:4px solid #057642;animation:${C.toast}-in .2s ease-out}
@keyframes ${C.toast}-in{from{transform:translateY(12px);opacity:0}to{transform:none;opacity:1}}
${s('toastClose')}{margin-left:auto;border:0;background:none;font-size:18px;cursor:pointer;color:#555}
${s('spinner')}{display:flex;align-items:center;justify-content:center;gap:10px;padding:32px;color:#555}
${s('spin')}{width:22px;height:22px;border-radius:50%;border:3px solid #c7d2fe;border-top-color:#4f46e5;animation:${C.spin}-r .8s linear infinite}
@keyframes ${C.spin}-r{to{transform:rotate(360deg)}}
${s('loadMoreWrap')}{display:flex;justify-content:center;padding:8px 0 24px}
${s('caughtUp')}{text-align:center;color:#666;padding:16px}
${s('pager')}{display:flex;justify-content:center;align-items:center;gap:4px;padding:16px}
${s('pagerLink')}{min-width:34px;height:34px;padding:0 10px;display:inline-flex;align-items:center;justify-content:center;border-radius:6px;color:#374151;font-weight:600}
${s('pagerLink')}:hover{background:#f3f4f6;text-decoration:none}
${s('pagerCurrent')}{background:#4f46e5;color:#fff}
${s('pagerCurrent')}:hover{background:#4f46e5}
${s('pagerDisabled')}{color:#aaa;pointer-events:none}
${s('peopleGrid')}{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:12px;padding:0 16px 8px}
${s('personCard')}{border:1px solid #e0dfdc;border-radius:10px;overflow:hidden;text-align:center;display:flex;flex-direction:column;padding-bottom:14px}
${s('personCard')} ${s('avatar')}{margin:-36px auto 0;width:72px;height:72px;font-size:24px;border:3px solid #fff}
${s('personCover')}{height:56px;background:linear-gradient(120deg,#e0e7ff,#fef3c7)}
${s('personName')}{display:block;font-weight:600;color:#111827;margin:8px 10px 2px}
${s('personCard')} p{margin:0 10px 10px;color:#555;font-size:12px;min-height:34px}
${s('personCard')} form,${s('personCard')} > ${s('btn')}{margin:auto 12px 0}
${s('personCard')} form ${s('btn')}{width:100%}
${s('profileHead')}{position:relative}
${s('profileHead')} ${s('cover')}{height:160px}
${s('profileHead')} ${s('avatar')}{position:absolute;top:80px;left:24px}
${s('profileBody')}{padding:72px 24px 20px}
${s('profileName')}{font-size:24px;font-weight:600}
${s('headline')}{font-size:16px;margin:2px 0 6px}
${s('counts')}{display:flex;gap:16px;margin:8px 0 12px;font-weight:600;color:#4338ca;list-style:none;padding:0}
${s('profileActions')}{display:flex;gap:8px;flex-wrap:wrap}
${s('profileActions')} form{display:contents}
${s('section')}{padding:16px 24px}
${s('section')} h2{font-size:18px;font-weight:600;margin-bottom:8px}
${s('comments')}{list-style:none;margin:0;padding:0 16px 8px}
${s('comment')}{display:flex;gap:8px;margin:12px 0}
${s('commentBody')}{flex:1;background:#f2f2f2;border-radius:0 8px 8px 8px;padding:8px 12px}
${s('commentBody')} p{margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
${s('likedByAuthor')}{display:inline-block;margin-top:4px;font-size:12px;color:#4338ca}
${s('commentForm')}{display:flex;flex-direction:column;gap:6px;padding:12px 16px;border-top:1px solid #eee}
${s('field')}{display:flex;flex-direction:column;gap:4px}
${s('field')} label{font-weight:600;font-size:13px;color:#374151}
${s('textarea')}{width:100%;min-height:64px;padding:10px 12px;border:1px solid #a8a8a8;border-radius:8px;font:inherit;resize:vertical}
${s('textarea')}:focus{outline:2px solid #4f46e5;border-color:transparent}
${s('commentForm')} ${s('btn')}{align-self:flex-end}
${s('msgLayout')}{display:grid;grid-template-columns:320px minmax(0,1fr);min-height:560px}
@media (max-width:760px){${s('msgLayout')}{grid-template-columns:1fr}}
${s('convList')}{list-style:none;margin:0;padding:0;border-right:1px solid #eee;overflow:auto}
${s('convItem')}{display:flex;gap:10px;padding:12px 14px;color:#1f2328;border-left:3px solid transparent}
${s('convItem')}:hover{background:#f6f6f6;text-decoration:none}
${s('convActive')}{background:#eef2ff;border-left-color:#4f46e5}
${s('convUnread')} ${s('convSnippet')}{font-weight:700;color:#111827}
${s('convSnippet')}{color:#666;font-size:13px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
${s('thread')}{display:flex;flex-direction:column;min-width:0}
${s('threadHead')}{display:flex;gap:10px;align-items:center;padding:12px 16px;border-bottom:1px solid #eee}
${s('threadMsgs')}{flex:1;list-style:none;margin:0;padding:12px 16px;overflow:auto;max-height:480px;display:flex;flex-direction:column;gap:10px}
${s('bubble')}{display:flex;gap:8px;align-items:flex-start}
${s('bubble')} p{margin:2px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
${s('bubbleMe')} ${s('postName')}{color:#4338ca}
${s('sendForm')}{display:flex;flex-direction:column;gap:6px;padding:12px 16px;border-top:1px solid #eee}
${s('sendForm')} ${s('btn')}{align-self:flex-end}
${s('empty')}{padding:48px 24px;text-align:center;color:#666}
${s('notifList')}{list-style:none;margin:0;padding:0}
${s('notifItem')}{display:flex;gap:12px;align-items:center;padding:14px 16px;border-bottom:1px solid #eee}
${s('notifUnread')}{background:#eef3fb}
${s('notifDot')}{width:8px;height:8px;border-radius:50%;background:#4f46e5;flex:none}
${s('notifText')}{flex:1;color:#1f2328}
${s('pickerInput')}{width:100%;padding:8px 12px;border:1px solid #a8a8a8;border-radius:6px;font:inherit;margin-bottom:8px}
${s('pickerList')}{list-style:none;margin:0;padding:0;max-height:320px;overflow:auto}
${s('pickerList')} a{display:flex;gap:10px;align-items:center;padding:8px;border-radius:6px;color:#1f2328}
${s('pickerList')} a:hover{background:#f3f4f6;text-decoration:none}
${s('suggest')}{list-style:none;margin:0;padding:0}
${s('suggestItem')}{display:flex;gap:10px;margin-bottom:14px}
${s('suggestItem')} form{margin-top:6px}
${s('footer')}{text-align:center;color:#666;font-size:12px;padding:8px}
${s('confirmText')}{margin:0;color:#374151}
${s('fieldError')}{margin:10px 0 0;color:#b91c1c;font-weight:600}
`;
