import { cx } from '../../../sandbox/kit/site-app';

/**
 * ForgeHub's client-side behaviour (served inline on every page): toasts, the custom listbox, dialogs,
 * the contenteditable editor, "Load more", notifications loaded after the page, the unread badge and the
 * dashboard filter. Elements are found by their generated class names, like a bundled front end would.
 */
const K = Object.fromEntries(
  [
    'fh-toasts',
    'fh-toast',
    'fh-toast-err',
    'fh-toast-x',
    'fh-badge',
    'fh-dd',
    'fh-dd-btn',
    'fh-dd-list',
    'fh-dd-value',
    'fh-dd-active',
    'fh-dlg-open',
    'fh-dlg-close',
    'fh-editor',
    'fh-ed',
    'fh-ed-empty',
    'fh-issue-form',
    'fh-title-err',
    'fh-more-btn',
    'fh-more-count',
    'fh-notifs',
    'fh-notifs-list',
    'fh-spinner',
    'fh-mark-form',
    'fh-markall-form',
    'fh-notif',
    'fh-notif-unread',
    'fh-notif-read',
    'fh-unread-count',
    'fh-filter',
    'fh-icon',
    'fh-once',
  ].map((n) => [n.replace(/^fh-/, '').replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase()), cx(n)]),
);

const CHECK_ICON =
  '<svg class="' +
  cx('fh-icon') +
  '" viewBox="0 0 16 16" width="16" height="16" fill="currentColor" aria-hidden="true"><path d="M13.78 4.22a.75.75 0 0 1 0 1.06l-7.25 7.25a.75.75 0 0 1-1.06 0L2.22 9.28a.751.751 0 0 1 .018-1.042.751.751 0 0 1 1.042-.018L6 10.94l6.72-6.72a.75.75 0 0 1 1.06 0Z"/></svg>';

export const clientScript = `
(function(){
'use strict';
var K = ${JSON.stringify(K)};
var CHECK = ${JSON.stringify(CHECK_ICON)};
var meta = document.querySelector('meta[name="csrf-token"]');
var CSRF = meta ? meta.getAttribute('content') : '';
function q(sel, root){ return (root || document).querySelector(sel); }
function qa(sel, root){ return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
function cls(k){ return '.' + K[k]; }

/* ---------- toasts ---------- */
var host = q(cls('toasts'));
function arm(t){
  var timer = null;
  function start(){ timer = setTimeout(function(){ t.remove(); }, 8000); }
  function stop(){ if (timer) clearTimeout(timer); }
  t.addEventListener('mouseenter', stop); t.addEventListener('mouseleave', start);
  t.addEventListener('focusin', stop); t.addEventListener('focusout', start);
  var x = q(cls('toastX'), t); if (x) x.addEventListener('click', function(){ t.remove(); });
  start();
}
function toast(message, isError){
  if (!host) return;
  var t = document.createElement('div');
  t.className = K.toast + (isError ? ' ' + K.toastErr : '');
  t.innerHTML = CHECK;
  var s = document.createElement('span'); s.textContent = message; t.appendChild(s);
  var x = document.createElement('button'); x.type = 'button'; x.className = K.toastX; x.setAttribute('aria-label', 'Dismiss'); x.textContent = '\\u00d7';
  t.appendChild(x);
  host.appendChild(t); arm(t);
}
qa(cls('toast')).forEach(arm);

function post(url, body){
  return fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'x-csrf-token': CSRF, 'accept': 'application/json', 'content-type': 'application/x-www-form-urlencoded' }, body: body || '' })
    .then(function(r){ if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); });
}
function getJson(url){
  return fetch(url, { credentials: 'same-origin', headers: { 'accept': 'application/json' } })
    .then(function(r){ if (!r.ok) throw new Error('HTTP ' + r.status); return r.json(); });
}

/* ---------- unread badge ---------- */
var badge = q(cls('badge'));
function setBadge(n){
  if (!badge) return;
  badge.textContent = n > 99 ? '99+' : String(n);
  badge.hidden = !(n > 0);
  var link = badge.closest('a'); if (link) link.setAttribute('aria-label', n > 0 ? 'Notifications (' + n + ' unread)' : 'Notifications');
  qa(cls('unreadCount')).forEach(function(el){ el.textContent = String(n); });
}
if (badge) getJson('/notifications/count').then(function(d){ setBadge(d.unread); }).catch(function(){});

/* ---------- custom listbox (e.g. repository visibility) ---------- */
qa(cls('dd')).forEach(function(dd){
  var btn = q(cls('ddBtn'), dd), list = q(cls('ddList'), dd), input = q('input[type=hidden]', dd), value = q(cls('ddValue'), dd);
  var opts = qa('[role=option]', list), active = -1;
  function setActive(i){
    opts.forEach(function(o, j){ o.classList.toggle(K.ddActive, j === i); });
    active = i;
    if (i >= 0) { list.setAttribute('aria-activedescendant', opts[i].id); opts[i].scrollIntoView({ block: 'nearest' }); }
  }
  function open(){
    list.hidden = false; btn.setAttribute('aria-expanded', 'true');
    var sel = opts.findIndex(function(o){ return o.getAttribute('aria-selected') === 'true'; });
    setActive(sel < 0 ? 0 : sel); list.focus();
  }
  function close(focusBtn){ list.hidden = true; btn.setAttribute('aria-expanded', 'false'); if (focusBtn) btn.focus(); }
  function choose(i){
    var o = opts[i]; if (!o) return;
    opts.forEach(function(x){ x.setAttribute('aria-selected', x === o ? 'true' : 'false'); });
    input.value = o.getAttribute('data-value');
    value.textContent = q('strong', o).textContent;
    input.dispatchEvent(new Event('change', { bubbles: true }));
    close(true);
  }
  btn.addEventListener('click', function(){ if (list.hidden) open(); else close(true); });
  btn.addEventListener('keydown', function(e){ if (e.key === 'ArrowDown' || e.key === 'ArrowUp') { e.preventDefault(); open(); } });
  list.addEventListener('keydown', function(e){
    if (e.key === 'ArrowDown') { e.preventDefault(); setActive(Math.min(opts.length - 1, active + 1)); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setActive(Math.max(0, active - 1)); }
    else if (e.key === 'Home') { e.preventDefault(); setActive(0); }
    else if (e.key === 'End') { e.preventDefault(); setActive(opts.length - 1); }
    else if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choose(active); }
    else if (e.key === 'Escape') { e.preventDefault(); close(true); }
    else if (e.key === 'Tab') { close(false); }
  });
  opts.forEach(function(o, i){
    o.addEventListener('click', function(){ choose(i); });
    o.addEventListener('mousemove', function(){ if (active !== i) setActive(i); });
  });
  document.addEventListener('mousedown', function(e){ if (!list.hidden && !dd.contains(e.target)) close(false); });
});

/* ---------- dialogs ---------- */
qa(cls('dlgOpen')).forEach(function(b){
  b.addEventListener('click', function(){
    var d = document.getElementById(b.getAttribute('aria-controls'));
    if (d && !d.open) { d.showModal(); var first = q('[autofocus]', d); if (first) first.focus(); }
  });
});
qa(cls('dlgClose')).forEach(function(b){
  b.addEventListener('click', function(){ var d = b.closest('dialog'); if (d) d.close(); });
});
qa('dialog').forEach(function(d){
  d.addEventListener('click', function(e){ if (e.target === d) d.close(); });
});
/* a dialog the server renders open (the delete dialog after a wrong name, "Confirm access"): modal as the page loads */
qa('dialog[data-open-on-load]').forEach(function(d){
  if (!d.open) { d.showModal(); var first = q('[autofocus]', d); if (first) first.focus(); }
});

/* ---------- contenteditable editor ---------- */
var MARKS = { 'Bold': ['**', '**', 'bold text'], 'Italic': ['_', '_', 'italic text'], 'Code': ['\\u0060', '\\u0060', 'code'], 'Bulleted list': ['- ', '', 'item'], 'Mention': ['@', '', 'username'] };
qa(cls('editor')).forEach(function(box){
  var ed = q(cls('ed'), box), hidden = q('input[type=hidden]', box);
  function text(){ return ed.innerText.replace(/\\u00a0/g, ' ').replace(/\\n{3,}/g, '\\n\\n').trim(); }
  function sync(){
    hidden.value = text();
    ed.classList.toggle(K.edEmpty, hidden.value === '');
  }
  function wrap(name){
    var m = MARKS[name]; if (!m) return;
    ed.focus();
    var sel = window.getSelection();
    if (!sel.rangeCount || !ed.contains(sel.anchorNode)) {
      var r = document.createRange(); r.selectNodeContents(ed); r.collapse(false); sel.removeAllRanges(); sel.addRange(r);
    }
    var chosen = sel.toString();
    document.execCommand('insertText', false, m[0] + (chosen || m[2]) + m[1]);
    sync();
  }
  qa('[role=toolbar] button', box).forEach(function(b){
    b.addEventListener('mousedown', function(e){ e.preventDefault(); });
    b.addEventListener('click', function(){ wrap(b.getAttribute('aria-label')); });
  });
  ed.addEventListener('input', sync);
  ed.addEventListener('paste', function(e){
    e.preventDefault();
    var t = (e.clipboardData || window.clipboardData).getData('text/plain');
    document.execCommand('insertText', false, t);
  });
  ed.addEventListener('keydown', function(e){
    if ((e.ctrlKey || e.metaKey) && !e.altKey) {
      var k = e.key.toLowerCase();
      if (k === 'b') { e.preventDefault(); wrap('Bold'); }
      else if (k === 'i') { e.preventDefault(); wrap('Italic'); }
      else if (k === 'e') { e.preventDefault(); wrap('Code'); }
      else if (k === 'enter') { e.preventDefault(); var f = ed.closest('form'); if (f) f.requestSubmit(); }
    }
  });
  if (hidden.value && !ed.textContent) ed.textContent = hidden.value;
  sync();
  var form = box.closest('form');
  if (form) form.addEventListener('submit', sync, true);
});

/* ---------- forms: client-side checks, no double submits ---------- */
qa(cls('issueForm')).forEach(function(form){
  form.addEventListener('submit', function(e){
    var title = form.elements.namedItem('title'), err = q(cls('titleErr'), form);
    if (title && !title.value.trim()) {
      e.preventDefault();
      title.setAttribute('aria-invalid', 'true');
      if (err) { err.hidden = false; title.setAttribute('aria-describedby', err.id); }
      title.focus();
    }
  });
});
document.addEventListener('submit', function(e){
  var f = e.target;
  if (e.defaultPrevented || !(f instanceof HTMLFormElement) || f.method.toLowerCase() !== 'post') return;
  if (f.classList.contains(K.markForm) || f.classList.contains(K.markallForm)) return;
  setTimeout(function(){ qa('button[type=submit]', f).forEach(function(b){ b.disabled = true; }); }, 0);
});

window.addEventListener('pageshow', function(e){
  if (e.persisted) qa('form button[type=submit][disabled]').forEach(function(b){ b.disabled = false; });
});

/* ---------- "Load more" ---------- */
qa(cls('moreBtn')).forEach(function(btn){
  var list = document.getElementById(btn.getAttribute('aria-controls')), count = q(cls('moreCount'));
  var label = btn.textContent;
  btn.addEventListener('click', function(){
    var next = btn.getAttribute('data-next'); if (!next) return;
    btn.disabled = true; btn.textContent = 'Loading\\u2026'; list.setAttribute('aria-busy', 'true');
    getJson(next).then(function(d){
      var before = list.children.length;
      list.insertAdjacentHTML('beforeend', d.html);
      if (count) count.textContent = d.summary;
      var first = list.children[before] && q('a', list.children[before]); if (first) first.focus();
      if (d.next) { btn.setAttribute('data-next', d.next); btn.disabled = false; btn.textContent = label; }
      else btn.remove();
    }).catch(function(){
      btn.disabled = false; btn.textContent = label; toast('Could not load more issues. Try again.', true);
    }).then(function(){ list.removeAttribute('aria-busy'); });
  });
});

/* ---------- notifications, loaded after the page ---------- */
qa(cls('notifs')).forEach(function(root){
  var spinner = q(cls('spinner'), root), list = q(cls('notifsList'), root);
  function load(){
    spinner.hidden = false; list.hidden = true;
    getJson(root.getAttribute('data-src')).then(function(d){
      list.innerHTML = d.html; spinner.hidden = true; list.hidden = false; setBadge(d.unread);
    }).catch(function(){
      spinner.hidden = true; list.hidden = false;
      list.innerHTML = '';
      var p = document.createElement('p'); p.textContent = 'We could not load your notifications. ';
      var b = document.createElement('button'); b.type = 'button'; b.textContent = 'Retry'; b.addEventListener('click', load);
      p.appendChild(b); list.appendChild(p);
    });
  }
  load();
  root.addEventListener('submit', function(e){
    var f = e.target;
    if (!f.classList.contains(K.markForm) && !f.classList.contains(K.markallForm)) return;
    e.preventDefault();
    var b = q('button', f); if (b) b.disabled = true;
    post(f.getAttribute('action'), '').then(function(d){
      if (f.classList.contains(K.markallForm)) {
        qa(cls('notifUnread'), root).forEach(function(n){ n.classList.remove(K.notifUnread); n.classList.add(K.notifRead); var mf = q(cls('markForm'), n); if (mf) mf.remove(); });
        if (root.getAttribute('data-filter') === 'unread') load();
        toast('All notifications marked as read');
      } else {
        var item = f.closest(cls('notif'));
        if (root.getAttribute('data-filter') === 'unread') item.remove();
        else { item.classList.remove(K.notifUnread); item.classList.add(K.notifRead); f.remove(); }
        toast('Marked as read');
        if (root.getAttribute('data-filter') === 'unread' && !q(cls('notif'), root)) load();
      }
      setBadge(d.unread);
    }).catch(function(){ if (b) b.disabled = false; toast('Something went wrong. Try again.', true); });
  });
});

/* ---------- dashboard: filter your repositories ---------- */
qa(cls('filter')).forEach(function(input){
  var list = document.getElementById(input.getAttribute('aria-controls'));
  input.addEventListener('input', function(){
    var v = input.value.trim().toLowerCase();
    qa('li', list).forEach(function(li){ li.hidden = v !== '' && li.textContent.toLowerCase().indexOf(v) < 0; });
  });
});
})();
`;
