/**
 * In-page source (plain ES2019, like DOM_SCRIPT) that finds the elements a replay step may act on without taking
 * a whole snapshot: the elements with the step's role that the snapshot would list, each with what the snapshot
 * would say of it (name, scope, states …), marked with the snapshot's index attribute. It reuses the snapshot's
 * own helpers (roleOf, accName, scopeOf, isInteractive …) so both name an element alike, and mirrors the snapshot's
 * walk: what it skips (hidden subtrees, SKIP tags, svg, hidden inputs, an element's own visibility) and that it
 * does not list an interactive element inside another one that is not a container.
 *
 * With `name` (only when no redaction could have produced the recorded name) it lists only elements of that
 * name, which spares the walk for the many links of a page that are not the one.
 *
 * It answers `fallback` where it could see less than the snapshot: frames, shadow roots, a changed helper set.
 * The caller then takes the full snapshot, as it does for the final word on a step that did not resolve.
 */
export const DOM_FIND_PART = String.raw`function findTargets(a) {
  var needed = [typeof roleOf, typeof accName, typeof scopeOf, typeof isInteractive, typeof statesOf, typeof valueOf, typeof topModal, typeof styleOf, typeof clip, typeof isSvg, typeof norm];
  if (needed.some(function (t) { return t !== 'function'; }) || typeof SKIP !== 'object' || typeof CONTAINER !== 'object' || typeof IDX !== 'string') return { fallback: 'the snapshot helpers changed' };
  if (!document.body) return { fallback: 'no document body' };
  if (document.querySelector('iframe,frame')) return { fallback: 'the page has frames' };
  var modal = topModal();
  var root = modal || document.body;
  var all = document.body.querySelectorAll('*');
  for (var s = 0; s < all.length; s++) if (all[s].shadowRoot) return { fallback: 'the page has shadow roots' };
  function hiddenSubtree(e) {
    if (SKIP[e.tagName] || isSvg(e) || e.getAttribute('aria-hidden') === 'true' || e.inert) return true;
    var st = styleOf(e);
    return !st || st.display === 'none';
  }
  function listed(el, role) {
    if (el.tagName === 'INPUT' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return false;
    var st = styleOf(el);
    if (!st || st.visibility !== 'visible') return false;
    for (var e = el; e; e = e.parentElement) {
      if (e === document.body && !modal) break;
      if (hiddenSubtree(e)) return false;
      if (e !== el) {
        var r = roleOf(e), es = styleOf(e);
        if (es && es.visibility === 'visible' && isInteractive(e, r) && !(r && CONTAINER[r])) return false;
      }
      if (e === root) break;
    }
    return true;
  }
  document.querySelectorAll('[' + IDX + ']').forEach(function (e) { e.removeAttribute(IDX); });
  var pool = modal ? [modal].concat(Array.prototype.slice.call(modal.querySelectorAll('*'))) : all;
  var out = [];
  for (var i = 0; i < pool.length; i++) {
    var el = pool[i];
    var role = roleOf(el);
    if ((role || el.tagName.toLowerCase()) !== a.role || !isInteractive(el, role)) continue;
    var full = accName(el, role);
    if (a.name != null && clip(full, 150) !== a.name) continue;
    if (!listed(el, role) || (el.tagName === 'A' && el.getAttribute('tabindex') === '-1' && !full)) continue;
    if (out.length >= a.max) return { fallback: 'more than ' + a.max + ' candidates' };
    var index = out.length + 1;
    el.setAttribute(IDX, String(index));
    var info = { index: index, role: a.role, name: clip(full, 150), tag: el.tagName.toLowerCase(), scope: scopeOf(el), states: statesOf(el) };
    var v = valueOf(el);
    if (v != null) info.value = clip(String(v), 300);
    if (el.tagName === 'SELECT') info.options = Array.prototype.slice.call(el.options, 0, 30).map(function (o) { return clip(norm(o.label || o.text), 80); });
    out.push(info);
  }
  return { url: location.href, title: document.title, modal: !!modal, elements: out };
}`;
