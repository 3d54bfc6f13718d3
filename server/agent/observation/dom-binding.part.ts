/**
 * Part of DOM_SCRIPT (see dom-script.ts): where a value of a final answer stands on the page (bindLeaf,
 * bindList) and reading it back (readLeaf, readList), for replays. Uses the helpers of DOM_SNAPSHOT_PART.
 */
export const DOM_BINDING_PART = String.raw`function elementsFor(anchor) {
  var out = [];
  document.querySelectorAll(anchor.tag).forEach(function (el) {
    if ((scopeOf(el) || null) === (anchor.scope || null) && shown(el)) out.push(el);
  });
  return out;
}
function anchorOf(el) {
  var tag = el.tagName.toLowerCase();
  var anchor = { tag: tag, scope: scopeOf(el), nth: 0 };
  anchor.nth = Math.max(0, elementsFor(anchor).indexOf(el));
  return anchor;
}
var NUM = /^[-+]?\d[\d,]*(?:\.\d+)?/;
function isWordChar(ch) { return !!ch && /[\p{L}\p{N}_]/u.test(ch); }
function findIn(text, c) {
  var from = 0;
  while (true) {
    var i = text.indexOf(c, from);
    if (i < 0) return -1;
    var before = text.charAt(i - 1), after = text.charAt(i + c.length);
    var okBefore = i === 0 || !isWordChar(c.charAt(0)) || !isWordChar(before);
    var okAfter = !isWordChar(c.charAt(c.length - 1)) || !isWordChar(after);
    if (/\d/.test(c.charAt(0)) && (/\d/.test(before) || /[.,]/.test(before) && /\d/.test(text.charAt(i - 2)))) okBefore = false;
    if (/\d/.test(c.charAt(c.length - 1)) && (/\d/.test(after) || /[.,]/.test(after) && /\d/.test(text.charAt(i + c.length + 1)))) okAfter = false;
    if (okBefore && okAfter) return i;
    from = i + 1;
  }
}
function around(text, i, len, kind) {
  var before = text.slice(0, i), after = text.slice(i + len);
  var pw = before.split(' ').filter(Boolean).slice(-3).join(' ');
  if (pw.length > 30) pw = pw.slice(pw.length - 30).replace(/^\S*\s/, '');
  var prefix = i === 0 ? '' : pw + (/\s$/.test(before) ? ' ' : '');
  var aw = after.split(' ').filter(Boolean);
  var suffix = '';
  if (after.length) suffix = (/^\s/.test(after) ? ' ' : '') + (kind === 'number' ? aw.slice(0, 1) : aw.slice(0, 3)).join(' ').slice(0, 30);
  return { prefix: prefix, suffix: kind === 'number' ? norm(suffix) : suffix };
}
function readFrom(el, b) {
  var text = norm(innerTextOf(el));
  var start = 0;
  if (b.prefix) {
    var i = text.indexOf(b.prefix);
    if (i < 0) return { ok: false, error: 'the text before the value (' + quote(b.prefix) + ') is not there' };
    start = i + b.prefix.length;
  }
  var rest = text.slice(start).replace(/^\s+/, '');
  if (b.kind === 'number') {
    var m = NUM.exec(rest);
    if (!m) return { ok: false, error: 'no number where one was recorded' };
    if (b.suffix) {
      var tail = rest.slice(m[0].length).replace(/^\s+/, '').toLowerCase();
      var stem = b.suffix.toLowerCase().replace(/s$/, '');
      if (tail.indexOf(stem) !== 0) return { ok: false, error: 'the number is no longer followed by ' + quote(b.suffix) };
    }
    return { ok: true, text: m[0] };
  }
  var v;
  if (b.suffix) {
    var j = rest.indexOf(b.suffix.replace(/^\s+/, ''));
    if (j < 0) return { ok: false, error: 'the text after the value (' + quote(b.suffix) + ') is not there' };
    v = rest.slice(0, j);
  } else v = rest;
  v = norm(v);
  return v ? { ok: true, text: v } : { ok: false, error: 'empty value' };
}
function readLeaf(b) {
  var els = elementsFor(b.anchor);
  if (els.length <= b.anchor.nth) return { ok: false, error: 'no ' + b.anchor.tag + ' #' + (b.anchor.nth + 1) + (b.anchor.scope ? ' in ' + b.anchor.scope : '') + ' on the page' };
  return readFrom(els[b.anchor.nth], b);
}
function candidates(c) {
  var seen = new Set(), out = [];
  var first = c.split(' ')[0];
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (var n = walker.nextNode(); n && out.length < 400; n = walker.nextNode()) {
    if (n.data.indexOf(first) < 0) continue;
    var el = n.parentElement;
    for (var d = 0; el && el !== document.body && d < 5; d++, el = el.parentElement) {
      if (seen.has(el)) continue;
      seen.add(el);
      if (SKIP[el.tagName] || isSvg(el) || !shown(el)) continue;
      var text = norm(innerTextOf(el));
      if (text.length > Math.max(300, c.length + 200)) break;
      var i = findIn(text, c);
      if (i >= 0) out.push({ el: el, text: text, i: i, c: c });
    }
  }
  return out;
}
function rank(list, c, kind) {
  function score(x) {
    var exact = x.text === c, h = /^H[1-6]$/.test(x.el.tagName) ? 5 : 0;
    var s = kind === 'number' ? (exact ? 60 : x.text.length <= 80 ? 100 : 10) : exact ? 100 + h : x.text.length <= 80 ? 50 : 10;
    return s - x.text.length / 1000;
  }
  return list.map(function (x, k) { return { x: x, s: score(x), k: k }; }).sort(function (p, q) { return q.s - p.s || p.k - q.k; }).map(function (p) { return p.x; });
}
function bindLeaf(a) {
  for (var f = 0; f < a.forms.length; f++) {
    var c = a.forms[f];
    var ranked = rank(candidates(c), c, a.kind);
    for (var k = 0; k < ranked.length && k < 25; k++) {
      var x = ranked[k];
      var b = around(x.text, x.i, c.length, a.kind);
      var binding = { anchor: anchorOf(x.el), prefix: b.prefix, suffix: b.suffix, kind: a.kind };
      var back = readLeaf(binding);
      if (back.ok && back.text === c) return { ok: true, binding: binding, text: c };
    }
  }
  return { ok: false, error: 'not found on the page' };
}
function tagPath(from, to) {
  var path = [];
  for (var e = to; e && e !== from; e = e.parentElement) {
    var n = 0;
    for (var s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) n++;
    path.unshift([e.tagName.toLowerCase(), n]);
  }
  return path;
}
function follow(root, path) {
  var e = root;
  for (var i = 0; e && i < path.length; i++) {
    var want = path[i][0].toUpperCase(), n = path[i][1], hit = null;
    for (var c = e.firstElementChild; c; c = c.nextElementSibling) if (c.tagName === want && n-- === 0) { hit = c; break; }
    e = hit;
  }
  return e;
}
function lca(nodes) {
  var a = nodes[0];
  while (a && !nodes.every(function (n) { return a.contains(n); })) a = a.parentElement;
  return a;
}
function itemsOf(container, signature) {
  var out = [];
  container.querySelectorAll(signature[signature.length - 1]).forEach(function (el) {
    var tags = tagPath(container, el).map(function (p) { return p[0]; });
    if (tags.join('>') === signature.join('>') && shown(el)) out.push(el);
  });
  return out;
}
function isListish(el) {
  var r = roleOf(el);
  return r === 'list' || r === 'table' || r === 'feed' || r === 'grid' || r === 'listbox' || el.tagName === 'TBODY';
}
function bindList(a) {
  /* a.items: [[{forms, kind}|null, ...]] one entry per field (null = not read from the page) */
  var roots = [], picks = [];
  for (var i = 0; i < a.items.length; i++) {
    var fields = a.items[i];
    var cands = fields.map(function (f) {
      if (!f) return null;
      for (var k = 0; k < f.forms.length; k++) { var r = rank(candidates(f.forms[k]), f.forms[k], f.kind); if (r.length) return { list: r, form: f.forms[k] }; }
      return { list: [], form: f.forms[0] };
    });
    var firstField = cands.findIndex(function (c) { return c; });
    if (firstField < 0) return { ok: false, error: 'no field of the items is read from the page' };
    if (cands.some(function (c) { return c && !c.list.length; })) return { ok: false, error: 'item ' + i + ' is not on the page' };
    var found = null;
    for (var q = 0; q < cands[firstField].list.length && q < 10 && !found; q++) {
      var start = cands[firstField].list[q].el;
      for (var r = start, d = 0; r && r !== document.body && d < 10 && !found; r = r.parentElement, d++) {
        var chosen = cands.map(function (c) {
          if (!c) return null;
          for (var z = 0; z < c.list.length; z++) if (r.contains(c.list[z].el)) return c.list[z];
          return undefined;
        });
        if (chosen.every(function (x) { return x !== undefined; })) found = { root: r, chosen: chosen };
      }
    }
    if (!found) return { ok: false, error: 'the fields of item ' + i + ' do not stand together on the page' };
    roots.push(found.root);
    picks.push(found.chosen);
  }
  var container;
  if (roots.length > 1) container = lca(roots);
  else {
    container = roots[0].parentElement;
    for (var up = roots[0].parentElement; up && up !== document.body; up = up.parentElement) if (isListish(up)) { container = up; break; }
  }
  if (!container || roots.indexOf(container) >= 0) return { ok: false, error: 'the items have no common list on the page' };
  var signature = tagPath(container, roots[0]).map(function (p) { return p[0]; });
  var all = itemsOf(container, signature);
  for (var j = 0; j < roots.length; j++) if (all[j] !== roots[j]) return { ok: false, error: 'the items are not the first ' + roots.length + ' of their list on the page' };
  /* Per field: the first place (path from the item, text around the value) that reads every item's value back. */
  var fieldsOut = [];
  for (var fi = 0; fi < a.items[0].length; fi++) {
    var f0 = a.items[0][fi];
    if (!f0) { fieldsOut.push(null); continue; }
    var inFirst = [];
    f0.forms.forEach(function (form) { inFirst = inFirst.concat(rank(candidates(form), form, f0.kind).filter(function (x) { return roots[0].contains(x.el); })); });
    var chosenField = null;
    for (var ci = 0; ci < inFirst.length && ci < 20 && !chosenField; ci++) {
      var x = inFirst[ci];
      var b = around(x.text, x.i, x.c.length, f0.kind);
      var fd = { path: tagPath(roots[0], x.el), prefix: b.prefix, suffix: b.suffix, kind: f0.kind };
      var good = roots.every(function (r, i) {
        var e = fd.path.length ? follow(r, fd.path) : r;
        if (!e) return false;
        var got = readFrom(e, fd);
        return got.ok && a.items[i][fi].forms.indexOf(got.text) >= 0;
      });
      if (good) chosenField = fd;
    }
    if (!chosenField) return { ok: false, error: 'field ' + (fi + 1) + ' of the items is not at the same place in every item' };
    fieldsOut.push(chosenField);
  }
  var plan = { container: anchorOf(container), signature: signature, limit: all.length === roots.length ? null : roots.length, fields: fieldsOut };
  return { ok: true, plan: plan };
}
function readList(plan) {
  var cs = elementsFor(plan.container);
  if (cs.length <= plan.container.nth) return { ok: false, error: 'the list (' + plan.container.tag + (plan.container.scope ? ' in ' + plan.container.scope : '') + ') is not on the page' };
  var items = itemsOf(cs[plan.container.nth], plan.signature);
  if (plan.limit != null) {
    if (items.length < plan.limit) return { ok: false, error: 'the list has ' + items.length + ' items, fewer than the ' + plan.limit + ' recorded' };
    items = items.slice(0, plan.limit);
  }
  var rows = [];
  for (var i = 0; i < items.length; i++) {
    var row = [];
    for (var f = 0; f < plan.fields.length; f++) {
      var fd = plan.fields[f];
      if (!fd) { row.push(null); continue; }
      var el = fd.path.length ? follow(items[i], fd.path) : items[i];
      if (!el) return { ok: false, error: 'item ' + i + ' has no element at the recorded place' };
      var got = readFrom(el, fd);
      if (!got.ok) return { ok: false, error: 'item ' + i + ': ' + got.error };
      row.push(got.text);
    }
    rows.push(row);
  }
  return { ok: true, rows: rows };
}
`;
