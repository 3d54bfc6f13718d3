/**
 * A local stand-in for Node-RED's editor where issue 34 was seen: one workspace tab per flow at the top (its name only
 * in a tooltip), the sidebar's tab bar ("info"), and the sidebar's list of flows — each a line of text followed by
 * its icon buttons (an eye, a lock, a circle). Adding a flow adds elements above the sidebar, so every element after
 * them moves up the page's count of its tag: what a binding by place alone reads then is another element.
 */
export interface FlowEditorOptions {
  /** The heading above the list of flows. */
  heading?: string;
  /** HTML placed right after the list of flows (a sibling list …). */
  after?: string;
  /** HTML placed right before the list of flows, after its heading. */
  before?: string;
}

const controls =
  '<span class="controls"><button aria-label="eye"><i class="fa fa-eye"></i></button>' +
  '<button aria-label="lock"><i class="fa fa-lock"></i></button><button aria-label="circle"><i class="fa fa-circle"></i></button></span>';

export function flowRows(flows: string[]): string {
  return flows.map((f) => `<div class="row"><span class="label">${f}</span>${controls}</div>`).join('');
}

export function flowEditor(flows: string[], o: FlowEditorOptions = {}): string {
  const tabs = flows
    .map(
      (f) => `<div class="tab" title="${f}"><div class="tab-icon"><i class="fa fa-sitemap"></i></div><div class="tab-status">•</div></div>`,
    )
    .join('');
  return `<!doctype html><html><body><div id="header"><h1>Flow editor</h1></div>
  <div id="workspace"><div class="tabs">${tabs}</div><div class="canvas"><svg width="100" height="50"></svg></div></div>
  <div id="sidebar"><div class="sidebar-tabs"><div class="stab"><div><span>info</span></div></div></div>
  <div class="sidebar-content"><section><h3>${o.heading ?? 'Flows'}</h3>${o.before ?? ''}<div class="tree">${flowRows(flows)}</div>${o.after ?? ''}</section></div></div>
  </body></html>`;
}
