/**
 * Part of DOM_SCRIPT (see dom-script.ts): the helpers every operation shares — the flat tree (open shadow roots
 * and slots, as the page is rendered), visibility, roles, accessible names, states and values. Plain ES2019
 * source text, evaluated inside the page; no template literals.
 */
export const DOM_CORE_PART = String.raw`var IDX = 'data-agentlink-idx', OPT = 'data-agentlink-opt', FRAME = 'data-agentlink-frame', SEC = 'data-agentlink-sec', HOST = 'data-agentlink-host';
var SKIP = { SCRIPT: 1, STYLE: 1, NOSCRIPT: 1, TEMPLATE: 1, HEAD: 1, META: 1, LINK: 1, IFRAME: 1, FRAME: 1, OBJECT: 1, EMBED: 1, CANVAS: 1, svg: 1, SVG: 1 };
var INTERACTIVE = { button: 1, link: 1, checkbox: 1, radio: 1, 'switch': 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, option: 1, combobox: 1, listbox: 1, textbox: 1, searchbox: 1, slider: 1, spinbutton: 1, treeitem: 1, dialog: 1, alertdialog: 1, menu: 1 };
var CONTAINER = { dialog: 1, alertdialog: 1, listbox: 1, menu: 1, tablist: 1, radiogroup: 1 };
var FROM_CONTENT = { button: 1, link: 1, option: 1, tab: 1, menuitem: 1, menuitemcheckbox: 1, menuitemradio: 1, heading: 1, checkbox: 1, radio: 1, 'switch': 1, treeitem: 1, cell: 1, columnheader: 1, rowheader: 1, tooltip: 1 };
/* scope roles: 1 = only when the element has a name */
var SCOPES = { dialog: 0, alertdialog: 0, article: 0, navigation: 0, main: 0, complementary: 0, banner: 0, contentinfo: 0, search: 0, feed: 0, listbox: 0, menu: 0, region: 1, form: 1, list: 1, table: 1, grid: 1, group: 1, toolbar: 1, tablist: 1, radiogroup: 1 };
var HEADER_SCOPES = { dialog: 1, alertdialog: 1, article: 1, navigation: 1, main: 1, complementary: 1, banner: 1, contentinfo: 1, search: 1, region: 1, form: 1, feed: 1 };
/* The wire format of each date/time input type (what its value holds, whatever the browser displays). */
var DATE_TYPES = { date: 'yyyy-mm-dd', time: 'hh:mm', 'datetime-local': 'yyyy-mm-ddThh:mm', month: 'yyyy-mm', week: 'yyyy-Www' };

function norm(s) { return String(s == null ? '' : s).replace(/[\s\u00a0\u200b]+/g, ' ').trim(); }
/* Rendered text of an element (the answer bindings of replays read values with it). */
function innerTextOf(el) { return (el.innerText || el.textContent || '').replace(/[ \t\u00a0]+/g, ' ').replace(/\n\s*\n+/g, '\n').trim(); }
function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + '\u2026' : s; }
function quote(s) { return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'"; }
function isSvg(el) { return el.namespaceURI === 'http://www.w3.org/2000/svg'; }
function viewOf(el) { return (el.ownerDocument && el.ownerDocument.defaultView) || window; }
function styleOf(el) { try { return viewOf(el).getComputedStyle(el); } catch (e) { return null; } }
/* The flat tree: an open shadow root is rendered instead of the host's children; a slot shows what is assigned to it. */
function kidsOf(el) {
  if (el.shadowRoot) return el.shadowRoot.childNodes;
  if (el.tagName === 'SLOT' && typeof el.assignedNodes === 'function') { var a = el.assignedNodes(); if (a.length) return a; }
  return el.childNodes;
}
function upOf(n) { return n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null; }
/* IDREFs resolve in the element's own tree (its shadow root), then in its document. */
function byId(el, id) {
  var root = el.getRootNode ? el.getRootNode() : null;
  return (root && root.getElementById && root.getElementById(id)) || el.ownerDocument.getElementById(id);
}
function shown(el) {
  for (var a = el; a && a.nodeType === 1; a = upOf(a)) {
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
function idrefText(el, ids) {
  var parts = [];
  norm(ids).split(' ').forEach(function (id) {
    var r = id && byId(el, id);
    if (r) parts.push(r === el ? el.getAttribute('aria-label') || '' : r.getAttribute('aria-label') || textOf(r, 0));
  });
  return norm(parts.join(' '));
}
/* An icon's name: aria-label, labelledby, its own <title>, or the <title> of the symbol it uses. */
function svgName(svg) {
  var al = norm(svg.getAttribute('aria-label'));
  if (al) return al;
  var lb = svg.getAttribute('aria-labelledby');
  if (lb) { var l = idrefText(svg, lb); if (l) return l; }
  for (var c = svg.firstElementChild; c; c = c.nextElementSibling) {
    if (c.localName === 'title') return norm(c.textContent);
    if (c.localName === 'use') {
      var href = c.getAttribute('href') || c.getAttribute('xlink:href') || '';
      if (href.charAt(0) === '#') {
        var sym = byId(svg, href.slice(1));
        var tt = sym && sym.querySelector('title');
        if (tt) return norm(tt.textContent);
      }
    }
  }
  return '';
}
function textOf(node, depth) {
  var out = '';
  var kids = kidsOf(node);
  for (var i = 0; i < kids.length; i++) {
    var n = kids[i];
    if (n.nodeType === 3) { out += n.data; continue; }
    if (n.nodeType !== 1) continue;
    if (n.getAttribute('aria-hidden') === 'true') continue;
    if (isSvg(n)) { if (n.localName === 'svg') out += ' ' + svgName(n) + ' '; continue; }
    if (SKIP[n.tagName]) continue;
    var st = styleOf(n);
    if (!st || st.display === 'none') continue;
    var sep = st.display.indexOf('inline') === 0 || st.display === 'contents' ? '' : ' ';
    if (n.tagName === 'IMG') { out += ' ' + (n.getAttribute('alt') || n.getAttribute('title') || '') + ' '; continue; }
    if (n.tagName === 'INPUT' || n.tagName === 'SELECT' || n.tagName === 'TEXTAREA') continue;
    var al = n.getAttribute('aria-label');
    if (al && norm(al)) { out += ' ' + al + ' '; continue; }
    var sub = depth < 25 ? textOf(n, depth + 1) : '';
    /* accname: a descendant without text content is named by its tooltip (title) */
    if (!norm(sub) && n.getAttribute('title')) sub = n.getAttribute('title');
    out += sep + sub + sep;
  }
  return out;
}
function accName(el, role) {
  var ids = el.getAttribute('aria-labelledby');
  if (ids) { var s = idrefText(el, ids); if (s) return s; }
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
  if (isSvg(el)) return svgName(el) || norm(el.getAttribute('title'));
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
/* The message a person sees for an invalid field: its error element, its visible description, the browser's own. */
function errorOf(el) {
  var em = el.getAttribute('aria-errormessage');
  if (em) { var e = idrefText(el, em); if (e) return e; }
  var db = el.getAttribute('aria-describedby');
  if (db) {
    var parts = [];
    norm(db).split(' ').forEach(function (id) { var r = id && byId(el, id); if (r && shown(r)) parts.push(textOf(r, 0)); });
    var d = norm(parts.join(' '));
    if (d) return d;
  }
  return norm(el.validationMessage || '');
}
function userInvalid(el) {
  if (!el.validity || el.validity.valid) return false;
  try { return el.matches(':user-invalid'); } catch (e) { return false; }
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
  if (el.getAttribute('aria-invalid') === 'true' || userInvalid(el)) s.invalid = true;
  if (el.readOnly === true || el.getAttribute('aria-readonly') === 'true') s.readonly = true;
  if (activeOf(el.ownerDocument) === el) s.focused = true;
  var hp = el.getAttribute('aria-haspopup');
  if (hp && hp !== 'false') s.haspopup = hp === 'true' ? 'menu' : hp;
  if (el.getAttribute('aria-current') && el.getAttribute('aria-current') !== 'false') s.current = true;
  return s;
}
/* The focused element, through open shadow roots. */
function activeOf(doc) {
  var a = doc.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a;
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
/* Every open shadow root we marked into (hosts carry HOST), for finding and clearing our marks. */
function markedRoots(root, out) {
  out.push(root);
  root.querySelectorAll('[' + HOST + ']').forEach(function (h) { if (h.shadowRoot) markedRoots(h.shadowRoot, out); });
  return out;
}
function findMarked(attr, value) {
  var roots = markedRoots(document, []);
  for (var i = 0; i < roots.length; i++) {
    var hit = roots[i].querySelector('[' + attr + '="' + value + '"]');
    if (hit) return hit;
  }
  return null;
}
/* All matches in a tree and every open shadow root below it (for the rare operations that need it). */
function deepAll(root, sel, out) {
  out = out || [];
  root.querySelectorAll(sel).forEach(function (e) { out.push(e); });
  root.querySelectorAll('*').forEach(function (e) { if (e.shadowRoot) deepAll(e.shadowRoot, sel, out); });
  return out;
}
`;
