/**
 * In the page: what the type tool asks of a field (type.tool.ts), on the element — its kind and the text that may
 * state its date format, and what it holds after typing.
 */
export interface Field {
  tag: string;
  type: string;
  /** Placeholder, title, label and description text: where a text field states its date format. */
  hint: string;
  /**
   * The field suggests as you type (a combobox, aria-autocomplete, a datalist): such scripts listen for key events,
   * which a plain fill does not send, so the tool types it key by key.
   */
  suggests: boolean;
}

/** A form field's own properties, read by name (the element may be an input, a text area, a rich-text editor). */
type FieldLike = Partial<Pick<HTMLInputElement, 'labels' | 'value' | 'validity' | 'validationMessage'>>;

function field(el: Element): Field {
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  const parts: string[] = [];
  ['placeholder', 'aria-placeholder', 'title', 'data-date-format'].forEach((a) => {
    const v = el.getAttribute(a);
    if (v) parts.push(v);
  });
  const labels = (el as FieldLike).labels;
  if (labels) for (let i = 0; i < labels.length; i++) parts.push(labels[i]!.textContent || '');
  (el.getAttribute('aria-describedby') || '').split(/\s+/).forEach((id) => {
    const d = id && el.ownerDocument.getElementById(id);
    if (d) parts.push(d.textContent || '');
  });
  const role = (el.getAttribute('role') || '').toLowerCase();
  const autocomplete = (el.getAttribute('aria-autocomplete') || 'none').toLowerCase();
  return {
    tag: el.tagName.toLowerCase(),
    type,
    hint: parts.join(' | ').replace(/\s+/g, ' ').slice(0, 600),
    suggests: role === 'combobox' || autocomplete !== 'none' || el.hasAttribute('list'),
  };
}

function readBack(el: Element): { value: string; valid: boolean; message: string } {
  const f = el as FieldLike;
  return {
    value: String(f.value == null ? '' : f.value),
    valid: !f.validity || f.validity.valid,
    message: String(f.validationMessage || '').slice(0, 200),
  };
}

export default { field, readBack };
