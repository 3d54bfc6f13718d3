import { DOM_CORE_PART } from './dom-core.part';

/**
 * Part of DOM_SCRIPT (see dom-script.ts): the indexed snapshot of one document, walked in the flat tree (open
 * shadow roots in place, slotted content once). Plain ES2019 source text, evaluated inside the page.
 *
 * What it decides (the node side, snapshot.ts, splices frames and chooses the text):
 *   - controls: role, name, value, states; an element made clickable only by a listener counts when a signal
 *     says so: an on* attribute, a React/Vue handler prop, or — where the DevTools command-line API is there
 *     (snapshot.ts evaluates through CDP with includeCommandLineAPI) — getEventListeners(el) for the elements a
 *     person could take for clickable: one with a pointer cursor that no clickable ancestor explains, and small
 *     on-screen leaves; the number of queries is capped;
 *   - a checkbox/radio whose native input a click cannot reach (display:none, zero size, clipped, covered) is
 *     listed once, on its visible label (or the clickable wrapper), with hiddenInput set;
 *   - iframes: a {k:'f'} line at their place, the element marked with FRAME for the node side to read it;
 *   - text lines carry v (on screen) and c (their section: a labelled region, a scrollable box, a frame body).
 */
// The shared helpers come first: code that builds its own in-page search from this part (the replay's target
// finder) gets roleOf, accName, scopeOf … with it, as it did when they lived here.
export const DOM_SNAPSHOT_PART = `${DOM_CORE_PART}
${String.raw`var CLICK_EVENTS = ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup'];
var HAS_CONTROL = 'a[href],button,input,select,textarea,[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[onclick],[tabindex]';
var MAX_LISTENER_CHECKS = 400, MAX_LEAF_CHECKS = 150;

/* React (props on the node) and Vue (invokers on the node): handlers a listener query on the node itself misses. */
function frameworkHandler(el) {
  var keys = Object.keys(el);
  for (var i = 0; i < keys.length; i++) {
    /* data properties only: a getter would run page code in the middle of the walk */
    var k = keys[i], d = Object.getOwnPropertyDescriptor(el, k), p = d && d.value;
    if (k.indexOf('__reactProps$') === 0 || k.indexOf('__reactEventHandlers$') === 0) {
      if (p && (p.onClick || p.onMouseDown || p.onMouseUp || p.onPointerDown || p.onPointerUp)) return true;
    } else if (k === '_vei' && p && (p.onClick || p.onMousedown || p.onMouseup || p.onPointerdown || p.onPointerup)) return true;
  }
  return false;
}
function isToggle(c) { return !!c && c.tagName === 'INPUT' && (c.type === 'checkbox' || c.type === 'radio'); }
/* Whether a click on the input itself lands on it (Playwright clicks the centre and checks what it hits). */
function operable(inp) {
  var st = styleOf(inp);
  if (!st || st.display === 'none' || st.visibility !== 'visible' || st.pointerEvents === 'none') return false;
  if ((st.clip && st.clip !== 'auto' && st.position === 'absolute') || (st.clipPath && st.clipPath !== 'none')) return false;
  var r = inp.getBoundingClientRect();
  if (r.width < 4 || r.height < 4) return false;
  var w = viewOf(inp), cx = r.left + r.width / 2, cy = r.top + r.height / 2;
  if (cx < 0 || cy < 0 || cx >= w.innerWidth || cy >= w.innerHeight) return parseFloat(st.opacity) > 0.1;
  var root = inp.getRootNode();
  var hit = (root.elementFromPoint ? root : inp.ownerDocument).elementFromPoint(cx, cy);
  return hit === inp;
}
function visibleLabel(inp) {
  var ls = inp.labels || [];
  for (var i = 0; i < ls.length; i++) { var r = ls[i].getBoundingClientRect(); if (r.width > 0 && r.height > 0 && shown(ls[i])) return ls[i]; }
  return null;
}
/* No label: the nearest visible wrapper a person would click (a custom switch), else the input itself. */
function clickableWrapper(inp) {
  for (var a = upOf(inp), d = 0; a && d < 3 && a.tagName !== 'BODY'; a = upOf(a), d++) {
    var st = styleOf(a), r = a.getBoundingClientRect();
    if (st && st.cursor === 'pointer' && r.width >= 8 && r.height >= 8 && shown(a)) return a;
  }
  return null;
}
/* What a custom select shows as chosen: its text without the label it holds (a floating label inside the box). */
function shownValue(el) {
  var showing = norm(textOf(el, 0));
  var ids = norm(el.getAttribute('aria-labelledby'));
  if (ids) ids.split(' ').forEach(function (id) {
    var l = byId(el, id);
    if (!l || l === el || !el.contains(l)) return;
    var lt = norm(textOf(l, 0));
    if (lt) showing = norm(showing.indexOf(lt) === 0 ? showing.slice(lt.length) : showing.replace(lt, ' '));
  });
  return showing;
}
function hasControl(el) {
  if (el.querySelector(HAS_CONTROL)) return true;
  return !!(el.shadowRoot && el.shadowRoot.querySelector(HAS_CONTROL));
}
function scrollState(el, st) {
  var oy = st.overflowY;
  if ((oy !== 'auto' && oy !== 'scroll') || el.clientHeight < 40 || el.scrollHeight <= el.clientHeight + 4) return null;
  var above = el.scrollTop > 2, below = el.scrollTop + el.clientHeight < el.scrollHeight - 2;
  return above && below ? 'more-above-and-below' : below ? 'more-below' : above ? 'more-above' : null;
}
function boxName(el, role) {
  var nm = accName(el, role);
  if (nm) return nm;
  var h = el.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
  if (h) return norm(textOf(h, 0));
  return clip(norm(String(el.textContent || '').slice(0, 200)), 40);
}
function clearMarks() {
  markedRoots(document, []).forEach(function (r) {
    r.querySelectorAll('[' + IDX + '],[' + SEC + '],[' + FRAME + '],[' + HOST + ']').forEach(function (e) {
      e.removeAttribute(IDX); e.removeAttribute(SEC); e.removeAttribute(FRAME); e.removeAttribute(HOST);
    });
  });
}

/* ---------- snapshot ---------- */
function snapshot(a) {
  var maxEls = a.maxElements || 300, rawCap = a.rawTextChars || 24000;
  var cli = !!a.listeners && typeof getEventListeners === 'function';
  var S, cur, heading, sec, clipR, owners, handled, shadowModal;
  function reset() {
    clearMarks();
    S = { elements: [], lines: [], sections: [], frames: 0, textChars: 0, dropped: 0, checks: 0, leafChecks: 0, index: a.startIndex || 1, frame: a.frameStart || 1, sec: 0 };
    cur = []; heading = 0; sec = 0; owners = []; handled = new Set(); shadowModal = null;
    clipR = a.onScreen === false ? null : { l: 0, t: 0, r: window.innerWidth, b: window.innerHeight };
  }
  function onScreen(el) {
    if (!clipR || !el) return false;
    var r = el.getBoundingClientRect();
    return r.bottom > clipR.t && r.top < clipR.b && r.right > clipR.l && r.left < clipR.r;
  }
  function flush() {
    var s = norm(cur.join(''));
    cur = [];
    if (!s) return;
    var line = { k: 't', s: s };
    if (heading) line.h = heading;
    if (sec) line.c = sec;
    if (S.textChars >= rawCap) { line.s = ''; line.n = s.length; }
    else { S.textChars += s.length; if (onScreen(owners[owners.length - 1])) line.v = 1; }
    S.lines.push(line);
  }
  function record(el, role, scope, name) {
    var info = { index: 0, role: role || el.tagName.toLowerCase(), name: clip(name, 150), tag: el.tagName.toLowerCase(), scope: scope, states: statesOf(el) };
    var v = valueOf(el), t = el.tagName;
    if (v == null && (role === 'combobox' || (role === 'button' && info.states.haspopup === 'listbox'))) {
      var showing = shownValue(el);
      if (showing && info.name.indexOf(showing) < 0) v = showing;
    }
    if (v != null) info.value = clip(String(v), 300);
    if (t === 'SELECT') info.options = Array.prototype.slice.call(el.options, 0, 30).map(function (o) { return clip(norm(o.label || o.text), 80); });
    if (t === 'INPUT' || t === 'TEXTAREA') {
      var dt = DATE_TYPES[(el.type || '').toLowerCase()];
      if (dt) info.format = el.type === 'time' && el.step && Number(el.step) < 60 ? 'hh:mm:ss' : dt;
      var ph = norm(el.getAttribute('placeholder'));
      if (ph && !el.value && ph !== info.name) info.placeholder = clip(ph, 80);
    }
    if (info.states.invalid) { var err = errorOf(el); if (err) info.error = clip(err, 200); }
    return info;
  }
  function put(el, info) {
    flush();
    if (S.elements.length >= maxEls) { S.dropped++; return 0; }
    info.index = S.index++;
    el.setAttribute(IDX, String(info.index));
    S.elements.push(info);
    S.lines.push(heading ? { k: 'e', i: info.index, h: heading } : { k: 'e', i: info.index });
    return info.index;
  }
  /* A checkbox/radio listed once: state from the input, index on what a click must hit. */
  function putToggle(ctl, carrier, scope) {
    handled.add(ctl);
    var info = record(ctl, roleOf(ctl) || 'checkbox', scope, accName(ctl, roleOf(ctl)) || norm(textOf(carrier, 0)));
    info.tag = carrier.tagName.toLowerCase();
    if (carrier !== ctl || !operable(ctl)) info.hiddenInput = true;
    put(carrier, info);
  }
  function startSection(el, role, name, idx) {
    var id = ++S.sec;
    el.setAttribute(SEC, String(id));
    S.sections.push({ id: id, role: role || 'region', name: clip(name, 80), tag: el.tagName.toLowerCase(), idx: idx || 0 });
    return id;
  }
  /* explained: the pointer cursor this element inherits comes from an ancestor known to be clickable */
  function clickSignal(el, st, explained) {
    if (el.hasAttribute('onmousedown') || el.hasAttribute('onpointerdown') || el.hasAttribute('onmouseup')) return true;
    if (frameworkHandler(el)) return true;
    if (!cli || S.checks >= MAX_LISTENER_CHECKS) return false;
    if (st.cursor !== 'pointer' || explained) {
      if (S.leafChecks >= MAX_LEAF_CHECKS || el.childElementCount > 3 || !onScreen(el)) return false;
      S.leafChecks++;
    }
    S.checks++;
    try {
      var ls = getEventListeners(el);
      for (var i = 0; i < CLICK_EVENTS.length; i++) if (ls && ls[CLICK_EVENTS[i]] && ls[CLICK_EVENTS[i]].length) return true;
    } catch (e) { /* a page may shadow the function */ }
    return false;
  }
  function visitFrame(el, scope) {
    var r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) return;
    flush();
    var k = S.frame++;
    S.frames++;
    el.setAttribute(FRAME, String(k));
    var title = clip(norm(el.getAttribute('title') || el.getAttribute('aria-label')), 80);
    S.lines.push({ k: 'f', f: k, t: title, sc: scope, v: onScreen(el) ? 1 : 0, u: String(el.src || (el.hasAttribute('srcdoc') ? 'about:srcdoc' : '')) });
  }
  function visit(el, scope, explained, quiet) {
    var tag = el.tagName;
    if (el.getAttribute('aria-hidden') === 'true' || el.inert) return;
    if (tag === 'IFRAME' || tag === 'FRAME') {
      var fs = styleOf(el);
      if (fs && fs.display !== 'none' && fs.visibility === 'visible') visitFrame(el, scope);
      return;
    }
    if (SKIP[tag]) return;
    if (isSvg(el)) {
      /* an icon is text only as part of a control's name; an svg that is itself a control is listed */
      if (el.localName === 'svg' && (el.getAttribute('role') === 'button' || el.getAttribute('role') === 'link' || el.hasAttribute('onclick'))) {
        put(el, record(el, el.getAttribute('role') || 'button', scope, svgName(el)));
      }
      return;
    }
    if (tag === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return;
    var st = styleOf(el);
    if (!st || st.display === 'none') return;
    var visibleSelf = st.visibility === 'visible';
    var role = roleOf(el);
    var q = quiet, carried = false;
    if ((tag === 'DIALOG' || role === 'dialog' || role === 'alertdialog') && !shadowModal && el.getRootNode() !== document && isModal(el)) shadowModal = el;
    if (visibleSelf && tag === 'LABEL' && el.control) {
      var ctl = el.control;
      if (handled.has(ctl)) { q = true; carried = true; }
      else if (isToggle(ctl) && !operable(ctl)) { putToggle(ctl, el, scope); q = true; carried = true; }
      else if (shown(ctl)) { var lt = norm(textOf(el, 0)); q = !lt || accName(ctl, roleOf(ctl)).indexOf(lt) >= 0; }
    } else if (visibleSelf && isToggle(el)) {
      if (handled.has(el)) return;
      if (!operable(el)) {
        if (visibleLabel(el)) return; /* its label carries it, before or after this point */
        putToggle(el, clickableWrapper(el) || el, scope);
        return;
      }
    }
    var label = scopeLabel(el, role);
    var inner = label || scope;
    var newSec = 0, scroll = null, signal = false;
    if (visibleSelf && isInteractive(el, role)) {
      /* clickable by onclick or focusable by tabindex, without a role: a person sees a button (or a link) */
      if (!role) role = tag === 'A' ? 'link' : 'button';
      var name = accName(el, role);
      var idx = tag === 'A' && el.getAttribute('tabindex') === '-1' && !name ? 0 : put(el, record(el, role, scope, name));
      if (!role || !CONTAINER[role]) return;
      if (label) newSec = startSection(el, role, accName(el, role), idx);
    } else {
      signal = visibleSelf && !carried && tag !== 'BODY' && !(role && (role in SCOPES || role === 'heading')) && clickSignal(el, st, explained);
      if (signal) {
        var tog = el.querySelector('input[type=checkbox],input[type=radio]');
        if (tog && !handled.has(tog) && !operable(tog)) { putToggle(tog, el, scope); return; }
        if (!hasControl(el) && String(el.textContent || '').length <= 600) {
          var cn = accName(el, 'button');
          if (cn) { put(el, record(el, tag === 'A' ? 'link' : 'button', scope, cn)); return; }
        }
      }
      if (visibleSelf) scroll = scrollState(el, st);
      if (scroll) {
        var bn = boxName(el, role);
        var sinfo = record(el, role || 'region', scope, bn);
        sinfo.states.scroll = scroll;
        newSec = startSection(el, role, bn, put(el, sinfo));
      } else if (label && visibleSelf) {
        if (HEADER_SCOPES[role]) { flush(); S.lines.push({ k: 's', s: label }); }
        newSec = startSection(el, role, accName(el, role), 0);
      }
    }
    var block = st.display !== 'contents' && st.display.indexOf('inline') !== 0;
    var h = headingLevel(el, role);
    if (block || h || tag === 'BR') flush();
    var prevHeading = heading, prevSec = sec, prevClip = clipR;
    if (h) heading = h;
    if (newSec) sec = newSec;
    if (scroll && clipR) {
      var r = el.getBoundingClientRect();
      clipR = { l: Math.max(clipR.l, r.left), t: Math.max(clipR.t, r.top), r: Math.min(clipR.r, r.right), b: Math.min(clipR.b, r.bottom) };
    }
    if (block) owners.push(el);
    if (el.shadowRoot) el.setAttribute(HOST, '');
    /* below a pointer that a listener explains (a card holding its own controls), the inherited pointer says nothing */
    var pointer = st.cursor === 'pointer' && (explained || signal);
    var kids = kidsOf(el);
    /* a closed <details> shows only its summary */
    var closed = tag === 'DETAILS' && !el.open;
    for (var i = 0; i < kids.length; i++) {
      var n = kids[i];
      if (closed && n.tagName !== 'SUMMARY') continue;
      if (n.nodeType === 3) { if (visibleSelf && !q) cur.push(n.data); }
      else if (n.nodeType === 1) visit(n, inner, pointer, q);
    }
    if (block || h) flush();
    if (block) owners.pop();
    heading = prevHeading; sec = prevSec; clipR = prevClip;
  }
  function walkFrom(root, scope) {
    if (root === document.body) {
      if (a.frameDoc) sec = startSection(root, 'document', a.frameTitle || document.title || '', 0);
      if (root.shadowRoot) root.setAttribute(HOST, '');
      var kids = kidsOf(root);
      for (var i = 0; i < kids.length; i++) {
        if (kids[i].nodeType === 1) visit(kids[i], scope, false, false);
        else if (kids[i].nodeType === 3) cur.push(kids[i].data);
      }
    } else visit(root, scope, false, false);
    flush();
  }
  reset();
  var modal = topModal();
  if (modal) walkFrom(modal, scopeOf(modal) || a.baseScope || null);
  else if (document.body) {
    walkFrom(document.body, a.baseScope || null);
    if (shadowModal) { modal = shadowModal; reset(); walkFrom(modal, a.baseScope || null); }
  }
  return {
    url: location.href, title: document.title, modal: !!modal, elements: S.elements, lines: S.lines, sections: S.sections,
    truncated: { elements: S.dropped, text: false }, next: S.index, nextFrame: S.frame, frames: S.frames, checks: S.checks,
  };
}
/* The iframes the last snapshot marked, in frame-number order (returned by reference to the node side). */
function frameElements(a) {
  var out = [];
  for (var k = a.from; k < a.to; k++) out.push(findMarked(FRAME, String(k)));
  return out;
}
`}`;
