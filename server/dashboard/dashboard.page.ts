/**
 * The dashboard's script, served as /dashboard/assets/dashboard.js (bundled as a script, see page-code/entries.ts).
 * Copy buttons: `data-copy` holds the value. No inline script anywhere (the CSP allows scripts from 'self' only).
 */
document.addEventListener('click', (event) => {
  const target = event.target as Element | null;
  const button = target && target.closest ? target.closest('[data-copy]') : null;
  if (!button) return;
  const value = button.getAttribute('data-copy') || '';
  const label = button.getAttribute('data-label') || button.textContent || '';
  button.setAttribute('data-label', label);
  const done = () => {
    button.textContent = 'Copied';
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(value).then(done, () => undefined);
    return;
  }
  // Without the clipboard API (plain http): copy the value itself from a hidden text area (the field beside the button
  // may show it masked).
  const area = document.createElement('textarea');
  area.value = value;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  document.execCommand('copy');
  area.remove();
  done();
});

export {};
