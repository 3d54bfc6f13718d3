/**
 * The browser half of Quill's passkey ceremonies, as the page's own inline script: it turns the server's JSON options
 * into what navigator.credentials takes (base64url to bytes), and the credential back into JSON. Written by hand, as
 * sites without a bundler do, so it runs on any Chromium without the newer parse…FromJSON helpers.
 */
export const PASSKEY_SCRIPT = `
const dec = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (c) => c.charCodeAt(0)).buffer;
const enc = (b) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const say = (text) => { const el = document.getElementById('passkey-status'); if (el) { el.textContent = text; el.hidden = !text; } };
async function post(url, body) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
  return r.json();
}
async function addPasskey(csrf) {
  say('');
  const o = await post('/passkeys/register/options', { _csrf: csrf });
  if (!o.options) return say(o.error || 'The passkey could not be added.');
  const opts = o.options;
  opts.challenge = dec(opts.challenge);
  opts.user.id = dec(opts.user.id);
  opts.excludeCredentials = (opts.excludeCredentials || []).map((c) => ({ ...c, id: dec(c.id) }));
  let cred;
  try { cred = await navigator.credentials.create({ publicKey: opts }); } catch (e) { return say('The passkey was not added (' + e.name + '). You can try again or choose Not now.'); }
  const r = cred.response;
  const done = await post('/passkeys/register/verify', { _csrf: csrf, response: {
    id: cred.id, rawId: enc(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(),
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    response: { clientDataJSON: enc(r.clientDataJSON), attestationObject: enc(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] },
  } });
  if (done.redirect) location.assign(done.redirect); else say(done.error || 'The passkey could not be added.');
}
async function signInWithPasskey(csrf, ticket, next) {
  say('');
  const o = await post('/login/passkey/options', { _csrf: csrf, tenant_token: ticket, next });
  if (!o.options) return say(o.error || 'Passkey sign-in is not available.');
  const opts = o.options;
  opts.challenge = dec(opts.challenge);
  opts.allowCredentials = (opts.allowCredentials || []).map((c) => ({ ...c, id: dec(c.id) }));
  let cred;
  try { cred = await navigator.credentials.get({ publicKey: opts }); } catch (e) { return say('No passkey signed you in (' + e.name + ').'); }
  const r = cred.response;
  const done = await post('/login/passkey/verify', { _csrf: csrf, response: {
    id: cred.id, rawId: enc(cred.rawId), type: cred.type, clientExtensionResults: cred.getClientExtensionResults(),
    authenticatorAttachment: cred.authenticatorAttachment || undefined,
    response: { clientDataJSON: enc(r.clientDataJSON), authenticatorData: enc(r.authenticatorData), signature: enc(r.signature),
      userHandle: r.userHandle ? enc(r.userHandle) : undefined },
  } });
  if (done.redirect) location.assign(done.redirect); else say(done.error || 'The passkey was not accepted.');
}
for (const b of document.querySelectorAll('[data-passkey]')) {
  b.addEventListener('click', (ev) => {
    ev.preventDefault();
    const d = b.dataset;
    void (d.passkey === 'add' ? addPasskey(d.csrf) : signInWithPasskey(d.csrf, d.ticket, d.next));
  });
}
`;
