import type { ElementStates, ObservedElement } from '../types';
import { shownValue } from './controls.page';
import { idrefText, roleOf, textOf } from './roles.page';
import { folderState } from './structure.page';
import { activeOf, asHtml, byId, clip, isInput, isSelect, norm, shown } from './tree.page';

/**
 * In the page (see agent-dom.page.ts): what the snapshot says of a control besides its role and name — its states,
 * its value, the error a person sees on it — and the record it lists for it.
 */

/** The wire format of each date/time input type (what its value holds, whatever the browser displays). */
export const DATE_TYPES: Record<string, string | undefined> = {
  date: 'yyyy-mm-dd',
  time: 'hh:mm',
  'datetime-local': 'yyyy-mm-ddThh:mm',
  month: 'yyyy-mm',
  week: 'yyyy-Www',
};

/** A form control's own properties, read by name (the element may be any of them, or none). */
type FormLike = Partial<Pick<HTMLInputElement, 'validity' | 'validationMessage' | 'disabled' | 'required' | 'readOnly'>>;

/** The message a person sees for an invalid field: its error element, its visible description, the browser's own. */
export function errorOf(el: Element): string {
  const em = el.getAttribute('aria-errormessage');
  if (em) {
    const e = idrefText(el, em);
    if (e) return e;
  }
  const db = el.getAttribute('aria-describedby');
  if (db) {
    const parts: string[] = [];
    norm(db)
      .split(' ')
      .forEach((id) => {
        const r = id && byId(el, id);
        if (r && shown(r)) parts.push(textOf(r, 0));
      });
    const d = norm(parts.join(' '));
    if (d) return d;
  }
  return norm((el as FormLike).validationMessage || '');
}

function userInvalid(el: Element): boolean {
  const validity = (el as FormLike).validity;
  if (!validity || validity.valid) return false;
  try {
    return el.matches(':user-invalid');
  } catch {
    return false;
  }
}

export function statesOf(el: Element): ElementStates {
  const s: ElementStates = {};
  const t = el.tagName;
  if (isInput(el) && (el.type === 'checkbox' || el.type === 'radio')) s.checked = el.indeterminate ? 'mixed' : el.checked;
  else {
    const ac = el.getAttribute('aria-checked');
    if (ac === 'true' || ac === 'false') s.checked = ac === 'true';
    else if (ac === 'mixed') s.checked = 'mixed';
  }
  let dis: boolean;
  try {
    dis = el.matches(':disabled');
  } catch {
    dis = !!(el as FormLike).disabled;
  }
  if (dis || el.getAttribute('aria-disabled') === 'true') s.disabled = true;
  const ae = el.getAttribute('aria-expanded');
  if (ae === 'true' || ae === 'false') s.expanded = ae === 'true';
  if (t === 'DETAILS') s.expanded = (el as HTMLDetailsElement).open;
  if (t === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS')
    s.expanded = (el.parentElement as HTMLDetailsElement).open;
  if (s.expanded === undefined) {
    const folder = folderState(el, roleOf(el));
    if (folder !== undefined) s.expanded = folder;
  }
  if (el.getAttribute('aria-selected') === 'true') s.selected = true;
  const ap = el.getAttribute('aria-pressed');
  if (ap === 'true' || ap === 'false' || ap === 'mixed') s.pressed = ap === 'mixed' ? 'mixed' : ap === 'true';
  if ((el as FormLike).required || el.getAttribute('aria-required') === 'true') s.required = true;
  if (el.getAttribute('aria-invalid') === 'true' || userInvalid(el)) s.invalid = true;
  if ((el as FormLike).readOnly === true || el.getAttribute('aria-readonly') === 'true') s.readonly = true;
  if (activeOf(el.ownerDocument) === el) s.focused = true;
  const hp = el.getAttribute('aria-haspopup');
  if (hp && hp !== 'false') s.haspopup = hp === 'true' ? 'menu' : hp;
  if (el.getAttribute('aria-current') && el.getAttribute('aria-current') !== 'false') s.current = true;
  // a textarea and a multi-line editor take line breaks (Enter) where a one-line field submits
  if (
    t === 'TEXTAREA' ||
    el.getAttribute('aria-multiline') === 'true' ||
    (t !== 'INPUT' && asHtml(el).isContentEditable && el.getAttribute('aria-multiline') !== 'false')
  )
    s.multiline = true;
  return s;
}

/** What a control holds (a password as "[hidden]"), or null when it holds nothing of its own. */
export function valueOf(el: Element): string | null {
  if (isInput(el)) {
    const ty = (el.type || 'text').toLowerCase();
    if (ty === 'checkbox' || ty === 'radio' || ty === 'button' || ty === 'submit' || ty === 'reset' || ty === 'image') return null;
    if (ty === 'password') return el.value ? '[hidden]' : '';
    if (ty === 'file') return el.files && el.files.length ? el.files.length + ' file(s)' : '';
    return el.value;
  }
  if (el.tagName === 'TEXTAREA') return (el as HTMLTextAreaElement).value;
  if (isSelect(el))
    return Array.from(el.options)
      .filter((o) => o.selected)
      .map((o) => norm(o.label || o.text))
      .join(', ');
  const ce = el.getAttribute('contenteditable');
  if (ce !== null && ce !== 'false' && asHtml(el).isContentEditable) return (asHtml(el).innerText || '').replace(/\n{3,}/g, '\n\n').trim();
  const vt = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
  return vt == null ? null : vt;
}

/** The element record the snapshot lists: role, name, value, states … (index given when it is put). */
export function record(el: Element, role: string | null, scope: string | null, name: string): ObservedElement {
  const states: ElementStates = statesOf(el);
  const info: ObservedElement = {
    index: 0,
    role: role || el.tagName.toLowerCase(),
    name: clip(name, 150),
    tag: el.tagName.toLowerCase(),
    scope,
    states,
  };
  let v = valueOf(el);
  if (v == null && (role === 'combobox' || (role === 'button' && states.haspopup === 'listbox'))) {
    const showing = shownValue(el);
    if (showing && info.name.indexOf(showing) < 0) v = showing;
  }
  if (v != null) info.value = clip(String(v), 300);
  if (isSelect(el))
    info.options = Array.prototype.slice.call(el.options, 0, 30).map((o: HTMLOptionElement) => clip(norm(o.label || o.text), 80));
  if (isInput(el) || el.tagName === 'TEXTAREA') {
    const field = el as HTMLInputElement;
    const dt = DATE_TYPES[(field.type || '').toLowerCase()];
    if (dt) info.format = field.type === 'time' && field.step && Number(field.step) < 60 ? 'hh:mm:ss' : dt;
    const ph = norm(el.getAttribute('placeholder'));
    if (ph && !field.value && ph !== info.name) info.placeholder = clip(ph, 80);
  }
  if (states.invalid) {
    const err = errorOf(el);
    if (err) info.error = clip(err, 200);
  }
  return info;
}
