/**
 * Part of DOM_SCRIPT (see dom-script.ts): shared constants and helpers, the indexed snapshot of the page,
 * extractText and markOption. Plain ES2019 source text, evaluated inside the page.
 */
export const DOM_SNAPSHOT_PART = String.raw`var IDX = 'data-agentlink-idx', OPT = 'data-agentlink-opt';
var SKIP = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, META: 1, LINK: 1, IFRAME: 1, OBJECT: 1, EMBED: 1, CANVAS: 1, svg: 1, SVG: 1 };
var INTERACTIVE = { button: 1, link: 1, checkbox: 1, radio: 1, 'switch': 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, option: 1, combobox: 1, listbox: 1, textbox: 1, searchbox: 1, slider: 1, spinbutton: 1, treeitem: 1, dialog: 1, alertdialog: 1, menu: 1 };
var CONTAINER = { dialog: 1, alertdialog: 1, listbox: 1, menu: 1, tablist: 1, radiogroup: 1 };
var FROM_CONTENT = { button: 1, link: 1, option: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, heading: 1, checkbox: 1, radio: 1, 'switch': 1, treeitem: 1, cell: 1, columnheader: 1, rowheader: 1, tooltip: 1 };
/* scope roles: 1 = only when the element has a name */
var SCOPES = { dialog: 0, alertdialog: 0, article: 0, navigation: 0, main: 0, complementary: 0, banner: 0, contentinfo: 0, search: 0, feed: 0, listbox: 0, menu: 0, region: 1, form: 1, list: 1, table: 1, grid: 1, group: 1, toolbar: 1, tablist: 1, radiogroup: 1 };
var HEADER_SCOPES = { dialog: 1, alertdialog: 1, article: 1, navigation: 1, main: 1, complementary: 1, banner: 1, contentinfo: 1, search: 1, region: 1, form: 1, feed: 1 };

function norm(s) { return String(s == null ? '' : s).replace(/[\s\u00a0\u200b]+/g, ' ').trim(); }
function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
function quote(s) { return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'"; }
function isSvg(el) { return el.namespaceURI === 'http://www.w3.org/2000/svg'; }
function styleOf(el) { try { return getComputedStyle(el); } catch (e) { return null; } }
function shown(el) {
  for (var a = el; a && a.nodeType === 1; a = a.parentElement) {
    if (a.getAttribute('aria-hidden') === 'true' || a.inert) return false;
  }
  var st = styleOf(el);
  if (!st || st.display === 'none' || st.visibility !== 'visible') return false;
  if (st.display === 'contents') return true;
  if (typeof el.checkVisibility === 'function') return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
  return el.getClientRects().length > 0;
}
function landmarkHeader(el) {
  var p = el.parentElement;
  return !(p && p.closest('article,aside,main,nav,section'));
}
function roleOf(el) {
  var r = el.getAttribute('role');
  if (r && norm(r)) return norm(r).split(' ')[0].toLowerCase();
  var t = el.tagName;
  switch (t) {
    case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
    case 'BUTTON': case 'SUMMARY': return 'button';
    case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    case 'TEXTAREA': return 'textbox';
    case 'INPUT': {
      var ty = (el.getAttribute('type') || 'text').toLowerCase();
      if (ty === 'hidden') return null;
      if (ty === 'checkbox') return 'checkbox';
      if (ty === 'radio') return 'radio';
      if (ty === 'range') return 'slider';
      if (ty === 'number') return 'spinbutton';
      if (ty === 'button' || ty === 'submit' || ty === 'reset' || ty === 'image' || ty === 'file') return 'button';
      if (el.hasAttribute('list')) return 'combobox';
      if (ty === 'search') return 'searchbox';
      return 'textbox';
    }
    case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
    case 'DIALOG': return 'dialog';
    case 'OPTION': return 'option';
    case 'ARTICLE': return 'article';
    case 'NAV': return 'navigation';
    case 'MAIN': return 'main';
    case 'ASIDE': return 'complementary';
    case 'HEADER': return landmarkHeader(el) ? 'banner' : null;
    case 'FOOTER': return landmarkHeader(el) ? 'contentinfo' : null;
    case 'FORM': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'form' : null;
    case 'SECTION': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
    case 'UL': case 'OL': return 'list';
    case 'LI': return 'listitem';
    case 'TABLE': return 'table';
    case 'TR': return 'row';
    case 'TD': return 'cell';
    case 'TH': return 'columnheader';
    case 'FIELDSET': return 'group';
    case 'IMG': return 'img';
  }
  var ce = el.getAttribute('contenteditable');
  if (ce !== null && ce !== 'false' && el.isContentEditable) return 'textbox';
  return null;
}
function headingLevel(el, role) {
  if (role !== 'heading') return 0;
  var m = /^H([1-6])$/.exec(el.tagName);
  if (m) return Number(m[1]);
  var l = parseInt(el.getAttribute('aria-level') || '2', 10);
  return l >= 1 && l <= 6 ? l : 2;
}
function textOf(node, depth) {
  var out = '';
  for (var n = node.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 3) { out += n.data; continue; }
    if (n.nodeType !== 1 || SKIP[n.tagName] || isSvg(n)) continue;
    if (n.getAttribute('aria-hidden') === 'true') continue;
    var st = styleOf(n);
    if (!st || st.display === 'none') continue;
    var sep = st.display.indexOf('inline') === 0 || st.display === 'contents' ? '' : ' ';
    if (n.tagName === 'IMG') { out += ' ' + (n.getAttribute('alt') || '') + ' '; continue; }
    if (n.tagName === 'INPUT' || n.tagName === 'SELECT' || n.tagName === 'TEXTAREA') continue;
    var al = n.getAttribute('aria-label');
    if (al && norm(al)) { out += ' ' + al + ' '; continue; }
    if (depth < 25) out += sep + textOf(n, depth + 1) + sep;
  }
  return out;
}
function accName(el, role) {
  var ids = el.getAttribute('aria-labelledby');
  if (ids) {
    var parts = [];
    norm(ids).split(' ').forEach(function (id) {
      var r = id && document.getElementById(id);
      if (r) parts.push(r === el ? el.getAttribute('aria-label') || '' : r.getAttribute('aria-label') || textOf(r, 0));
    });
    var s = norm(parts.join(' '));
    if (s) return s;
  }
  var al = norm(el.getAttribute('aria-label'));
  if (al) return al;
  var t = el.tagName;
  if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA') {
    var ty = (el.getAttribute('type') || '').toLowerCase();
    if (t === 'INPUT' && (ty === 'button' || ty === 'submit' || ty === 'reset')) return norm(el.value) || (ty === 'submit' ? 'Submit' : ty === 'reset' ? 'Reset' : '');
    if (t === 'INPUT' && ty === 'image') return norm(el.getAttribute('alt')) || 'Submit';
    if (el.labels && el.labels.length) {
      var ls = norm(Array.prototype.map.call(el.labels, function (l) { return textOf(l, 0); }).join(' '));
      if (ls) return ls;
    }
    return norm(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || el.getAttribute('title'));
  }
  if (t === 'IMG') return norm(el.getAttribute('alt') || el.getAttribute('title'));
  if (t === 'FIELDSET') { var lg = el.querySelector(':scope > legend'); if (lg) return norm(textOf(lg, 0)); }
  if (t === 'TABLE') { var cp = el.querySelector(':scope > caption'); if (cp) return norm(textOf(cp, 0)); }
  if (role && FROM_CONTENT[role]) { var c = norm(textOf(el, 0)); if (c) return c; }
  if (role === 'textbox' || role === 'searchbox' || role === 'combobox') {
    var p = norm(el.getAttribute('aria-placeholder') || el.getAttribute('data-placeholder') || el.getAttribute('placeholder'));
    if (p) return p;
  }
  return norm(el.getAttribute('title'));
}
function isInteractive(el, role) {
  if (role && INTERACTIVE[role]) return true;
  var t = el.tagName;
  if (t === 'INPUT' || t === 'SELECT' || t === 'TEXTAREA' || t === 'BUTTON') return true;
  if (el.hasAttribute('onclick')) return true;
  var ti = el.getAttribute('tabindex');
  return ti !== null && parseInt(ti, 10) >= 0 && (!role || !(role in SCOPES) && role !== 'listitem' && role !== 'heading');
}
function statesOf(el) {
  var s = {}, t = el.tagName;
  if (t === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) s.checked = el.indeterminate ? 'mixed' : el.checked;
  else {
    var ac = el.getAttribute('aria-checked');
    if (ac === 'true' || ac === 'false') s.checked = ac === 'true'; else if (ac === 'mixed') s.checked = 'mixed';
  }
  var dis = false;
  try { dis = el.matches(':disabled'); } catch (e) { dis = !!el.disabled; }
  if (dis || el.getAttribute('aria-disabled') === 'true') s.disabled = true;
  var ae = el.getAttribute('aria-expanded');
  if (ae === 'true' || ae === 'false') s.expanded = ae === 'true';
  if (t === 'DETAILS') s.expanded = el.open;
  if (t === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') s.expanded = el.parentElement.open;
  if (el.getAttribute('aria-selected') === 'true') s.selected = true;
  var ap = el.getAttribute('aria-pressed');
  if (ap === 'true' || ap === 'false' || ap === 'mixed') s.pressed = ap === 'mixed' ? 'mixed' : ap === 'true';
  if (el.required || el.getAttribute('aria-required') === 'true') s.required = true;
  if (el.getAttribute('aria-invalid') === 'true') s.invalid = true;
  if (el.readOnly === true || el.getAttribute('aria-readonly') === 'true') s.readonly = true;
  if (document.activeElement === el) s.focused = true;
  var hp = el.getAttribute('aria-haspopup');
  if (hp && hp !== 'false') s.haspopup = hp === 'true' ? 'menu' : hp;
  if (el.getAttribute('aria-current') && el.getAttribute('aria-current') !== 'false') s.current = true;
  return s;
}
function valueOf(el) {
  var t = el.tagName;
  if (t === 'INPUT') {
    var ty = (el.type || 'text').toLowerCase();
    if (ty === 'checkbox' || ty === 'radio' || ty === 'button' || ty === 'submit' || ty === 'reset' || ty === 'image') return null;
    if (ty === 'password') return el.value ? '[hidden]' : '';
    if (ty === 'file') return el.files && el.files.length ? el.files.length + ' file(s)' : '';
    return el.value;
  }
  if (t === 'TEXTAREA') return el.value;
  if (t === 'SELECT') return Array.prototype.filter.call(el.options, function (o) { return o.selected; }).map(function (o) { return norm(o.label || o.text); }).join(', ');
  var ce = el.getAttribute('contenteditable');
  if (ce !== null && ce !== 'false' && el.isContentEditable) return (el.innerText || '').replace(/\n{3,}/g, '\n\n').trim();
  var vt = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
  return vt == null ? null : vt;
}
function scopeLabel(el, role) {
  if (!role || !(role in SCOPES)) return null;
  var nm = clip(accName(el, role), 80);
  if (SCOPES[role] && !nm) return null;
  return nm ? role + ' ' + quote(nm) : role;
}
function scopeOf(el) {
  for (var a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    var s = scopeLabel(a, roleOf(a));
    if (s) return s;
  }
  return null;
}
function isModal(d) {
  try { if (d.matches(':modal')) return true; } catch (e) { /* older engines */ }
  return d.getAttribute('aria-modal') === 'true';
}
function topModal() {
  var found = null;
  document.querySelectorAll('dialog[open],[role=dialog],[role=alertdialog]').forEach(function (d) {
    if (isModal(d) && shown(d)) found = d;
  });
  return found;
}

/* ---------- snapshot ---------- */
function snapshot(a) {
  var maxEls = a.maxElements || 300, maxText = a.maxTextChars || 6000;
  document.querySelectorAll('[' + IDX + ']').forEach(function (e) { e.removeAttribute(IDX); });
  var elements = [], lines = [], textChars = 0, textCut = false, dropped = 0, cur = [], heading = 0;
  function flush() {
    var s = norm(cur.join(''));
    cur = [];
    if (!s) return;
    if (textChars >= maxText) { textCut = true; return; }
    if (textChars + s.length > maxText) { s = s.slice(0, maxText - textChars) + '\u2026'; textCut = true; }
    textChars += s.length;
    lines.push(heading ? { k: 't', s: s, h: heading } : { k: 't', s: s });
  }
  function emit(el, role, scope) {
    flush();
    if (elements.length >= maxEls) { dropped++; return; }
    var index = elements.length + 1;
    el.setAttribute(IDX, String(index));
    var info = { index: index, role: role || el.tagName.toLowerCase(), name: clip(accName(el, role), 150), tag: el.tagName.toLowerCase(), scope: scope, states: statesOf(el) };
    var v = valueOf(el);
    if (v != null) info.value = clip(String(v), 300);
    if (el.tagName === 'SELECT') info.options = Array.prototype.slice.call(el.options, 0, 30).map(function (o) { return clip(norm(o.label || o.text), 80); });
    elements.push(info);
    lines.push(heading ? { k: 'e', i: index, h: heading } : { k: 'e', i: index });
  }
  function visit(el, scope) {
    if (SKIP[el.tagName] || isSvg(el)) return;
    if (el.getAttribute('aria-hidden') === 'true' || el.inert) return;
    if (el.tagName === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return;
    var st = styleOf(el);
    if (!st || st.display === 'none') return;
    var visibleSelf = st.visibility === 'visible';
    var role = roleOf(el);
    var label = scopeLabel(el, role);
    var inner = label || scope;
    if (visibleSelf && isInteractive(el, role)) {
      var name = accName(el, role);
      var skip = el.tagName === 'A' && el.getAttribute('tabindex') === '-1' && !name;
      if (!skip) emit(el, role, scope);
      if (!role || !CONTAINER[role]) return;
    } else if (label && HEADER_SCOPES[role] && visibleSelf) {
      flush();
      lines.push({ k: 's', s: label });
    }
    var block = st.display !== 'contents' && st.display.indexOf('inline') !== 0;
    var h = headingLevel(el, role);
    if (block || h || el.tagName === 'BR') flush();
    var prev = heading;
    if (h) heading = h;
    for (var n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 3) { if (visibleSelf) cur.push(n.data); }
      else if (n.nodeType === 1) visit(n, inner);
    }
    if (block || h) flush();
    heading = prev;
  }
  var modal = topModal();
  if (modal) visit(modal, scopeOf(modal));
  else if (document.body) for (var c = document.body.firstElementChild; c; c = c.nextElementSibling) visit(c, null);
  flush();
  return { url: location.href, title: document.title, modal: !!modal, elements: elements, lines: lines, truncated: { elements: dropped, text: textCut } };
}

/* ---------- extract / options ---------- */
function innerTextOf(el) { return (el.innerText || el.textContent || '').replace(/[ \t\u00a0]+/g, ' ').replace(/\n\s*\n+/g, '\n').trim(); }
function extractText(a) {
  var el = a.index ? document.querySelector('[' + IDX + '="' + a.index + '"]') : topModal() || document.querySelector('main,[role=main]') || document.body;
  if (!el) return { ok: false, error: 'element [' + a.index + '] is no longer on the page' };
  var s = innerTextOf(el);
  return { ok: true, text: s.length > a.maxChars ? s.slice(0, a.maxChars) + '\u2026' : s };
}
function markOption(a) {
  document.querySelectorAll('[' + OPT + ']').forEach(function (e) { e.removeAttribute(OPT); });
  var target = a.index ? document.querySelector('[' + IDX + '="' + a.index + '"]') : null;
  var pools = [];
  if (target) {
    if (roleOf(target) === 'listbox') pools.push(target);
    var ctl = target.getAttribute('aria-controls') || target.getAttribute('aria-owns');
    if (ctl) norm(ctl).split(' ').forEach(function (id) { var e = document.getElementById(id); if (e) pools.push(e); });
    var own = target.parentElement && target.parentElement.querySelector('[role=listbox]');
    if (own) pools.push(own);
  }
  pools.push(document);
  var want = norm(a.option).toLowerCase();
  for (var p = 0; p < pools.length; p++) {
    var opts = Array.prototype.filter.call(pools[p].querySelectorAll('[role=option]'), shown);
    if (!opts.length) continue;
    var named = opts.map(function (o) { return { el: o, name: norm(accName(o, 'option')), value: o.getAttribute('data-value') || o.getAttribute('value') || '' }; });
    var pick = null;
    var tests = [
      function (o) { return o.name.toLowerCase() === want; },
      function (o) { return o.value.toLowerCase() === want; },
      function (o) { return o.name.toLowerCase().indexOf(want) === 0; },
      function (o) { return want.length > 1 && o.name.toLowerCase().indexOf(want) >= 0; },
    ];
    for (var i = 0; i < tests.length && !pick; i++) {
      var hits = named.filter(tests[i]);
      if (hits.length === 1) pick = hits[0];
      else if (hits.length > 1) return { ok: false, error: 'several options match ' + quote(a.option) + ': ' + hits.map(function (h) { return quote(h.name); }).join(', ') };
    }
    if (!pick) return { ok: false, error: 'no option matches ' + quote(a.option) + '; the options are ' + named.map(function (h) { return quote(h.name); }).join(', ') };
    pick.el.setAttribute(OPT, '1');
    return { ok: true, name: pick.name };
  }
  return { ok: false, error: 'no open list of options on the page' };
}

/* ---------- bindings of final answers to the page ---------- */
`;
