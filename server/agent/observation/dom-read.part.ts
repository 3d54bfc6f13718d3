/**
 * Part of DOM_SCRIPT (see dom-script.ts): reading the text of one element, a section or the whole page, page by
 * page (extractText), and finding the option to choose in an open list (markOption). Both look through open
 * shadow roots. Plain ES2019 source text, evaluated inside the page.
 */
export const DOM_READ_PART = String.raw`/* The text a person reads in an element, in the flat tree, one line per block; same-origin frames in place. */
function readText(root) {
  var out = [];
  function walk(el, visible) {
    var kids = kidsOf(el);
    for (var i = 0; i < kids.length; i++) {
      var n = kids[i];
      if (n.nodeType === 3) { if (visible) out.push(n.data); continue; }
      if (n.nodeType !== 1 || n.getAttribute('aria-hidden') === 'true') continue;
      var tag = n.tagName;
      if (tag === 'IFRAME' || tag === 'FRAME') {
        var d = null;
        try { d = n.contentDocument; } catch (e) { d = null; }
        if (d && d.body) { out.push('\n'); walk(d.body, true); out.push('\n'); }
        continue;
      }
      if (SKIP[tag] || isSvg(n)) continue;
      var st = styleOf(n);
      if (!st || st.display === 'none') continue;
      if (tag === 'IMG') { var alt = norm(n.getAttribute('alt')); if (alt && st.visibility === 'visible') out.push(' ' + alt + ' '); continue; }
      if (tag === 'BR') { out.push('\n'); continue; }
      var block = st.display !== 'contents' && st.display.indexOf('inline') !== 0;
      if (block) out.push('\n');
      if (tag === 'DETAILS' && !n.open) { var sm = n.querySelector(':scope > summary'); if (sm) walk(sm, st.visibility === 'visible'); }
      else walk(n, st.visibility === 'visible');
      if (block) out.push('\n');
    }
  }
  walk(root, (styleOf(root) || { visibility: 'visible' }).visibility === 'visible');
  return out.join('').split('\n').map(norm).filter(Boolean).join('\n');
}
/* Pages of at most max characters, cut at line ends where a line allows it. */
function pagesOf(text, max) {
  var pages = [], curPage = '';
  text.split('\n').forEach(function (line) {
    while (line.length > max) {
      if (curPage) { pages.push(curPage); curPage = ''; }
      pages.push(line.slice(0, max)); line = line.slice(max);
    }
    if (curPage && curPage.length + 1 + line.length > max) { pages.push(curPage); curPage = ''; }
    curPage = curPage ? curPage + '\n' + line : line;
  });
  if (curPage || !pages.length) pages.push(curPage);
  return pages;
}
function extractText(a) {
  var el = a.index ? findMarked(IDX, String(a.index)) : a.section ? findMarked(SEC, String(a.section)) : topModal() || document.body;
  if (!el) return { ok: false, error: 'element [' + a.index + '] is no longer on the page' };
  var text = readText(el);
  var pages = pagesOf(text, a.maxChars);
  var page = Math.max(1, a.page || 1);
  if (page > pages.length) return { ok: false, error: 'the text has ' + pages.length + ' page(s); there is no page ' + page };
  return { ok: true, text: pages[page - 1], page: page, pages: pages.length, chars: text.length };
}
function markOption(a) {
  deepAll(document, '[' + OPT + ']').forEach(function (e) { e.removeAttribute(OPT); });
  var target = a.index ? findMarked(IDX, String(a.index)) : null;
  var pools = [];
  if (target) {
    if (roleOf(target) === 'listbox') pools.push(target);
    var ctl = target.getAttribute('aria-controls') || target.getAttribute('aria-owns');
    if (ctl) norm(ctl).split(' ').forEach(function (id) { var e = byId(target, id); if (e) pools.push(e); });
    var own = target.parentElement && target.parentElement.querySelector('[role=listbox]');
    if (own) pools.push(own);
  }
  pools.push(document);
  var want = norm(a.option).toLowerCase();
  for (var p = 0; p < pools.length; p++) {
    var opts = deepAll(pools[p], '[role=option]').filter(shown);
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
`;
