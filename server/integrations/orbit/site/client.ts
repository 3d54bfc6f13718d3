import { C } from './classes';

/**
 * The client-side parts of Orbit (one inline script): dialogs with focus handling (also one the server renders
 * open, like "Confirm it's you"), the compose editor (contenteditable), the visibility listbox, likes without a
 * reload, "load more", notifications fetched after load, nav badges and toasts. Every state change goes through
 * fetch() with the x-csrf-token header or a regular form post with the _csrf field.
 */
export const ORBIT_CLIENT_JS = `(function(){
'use strict';
var C=${JSON.stringify(C)};
function dot(n){return '.'+C[n];}
function $(s,r){return (r||document).querySelector(s);}
function $$(s,r){return Array.prototype.slice.call((r||document).querySelectorAll(s));}
var meta=$('meta[name="csrf-token"]');var csrf=meta?meta.getAttribute('content'):'';
function getJSON(url){return fetch(url,{headers:{accept:'application/json'},credentials:'same-origin'}).then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.json();});}
function postJSON(url){return fetch(url,{method:'POST',headers:{accept:'application/json','x-csrf-token':csrf},credentials:'same-origin'}).then(function(r){if(!r.ok)throw new Error('HTTP '+r.status);return r.json();});}

/* ---------- toasts ---------- */
function autoHide(t){setTimeout(function(){if(t.parentNode)t.parentNode.removeChild(t);},6000);}
function toast(msg){var w=$(dot('toastWrap'));if(!w)return;var t=document.createElement('div');t.className=C.toast;t.setAttribute('role','status');
var s=document.createElement('span');s.textContent=msg;t.appendChild(s);var b=document.createElement('button');b.type='button';b.className=C.toastClose;b.setAttribute('aria-label','Dismiss');b.textContent='\\u00d7';t.appendChild(b);w.appendChild(t);autoHide(t);}
$$(dot('toast')).forEach(autoHide);
document.addEventListener('click',function(e){var b=e.target.closest(dot('toastClose'));if(b){var t=b.closest(dot('toast'));if(t)t.remove();}});

/* ---------- dialogs ---------- */
var backdrop=$(dot('backdrop'));var openDlg=null,opener=null;
function focusables(el){return $$('a[href],button:not([disabled]),input:not([type=hidden]),textarea,[contenteditable=true],[tabindex]:not([tabindex="-1"])',el).filter(function(x){return !x.closest('[hidden]');});}
function openDialog(d,from){if(openDlg)closeDialog();openDlg=d;opener=from||document.activeElement;d.hidden=false;if(backdrop)backdrop.hidden=false;document.body.style.overflow='hidden';
var f=d.querySelector('[autofocus]')||focusables(d)[0];if(f)f.focus();d.dispatchEvent(new CustomEvent('dialog-open'));}
function closeDialog(){if(!openDlg)return;var d=openDlg;d.hidden=true;if(backdrop)backdrop.hidden=true;document.body.style.overflow='';var o=opener;openDlg=null;opener=null;d.dispatchEvent(new CustomEvent('dialog-close'));if(o&&o.focus)o.focus();}
document.addEventListener('click',function(e){
 var o=e.target.closest(dot('dlgOpen'));
 if(o){var d=document.getElementById(o.getAttribute('aria-controls'));if(d){e.preventDefault();openDialog(d,o);}return;}
 if(openDlg&&e.target.closest(dot('dialogClose')+',[data-dismiss="dialog"]')){e.preventDefault();closeDialog();}
});
if(backdrop)backdrop.addEventListener('click',closeDialog);
/* a dialog the server shows with the page (e.g. "Confirm it's you" after Send) is modal from the start */
var onLoad=$('[role=dialog][data-open-on-load]');if(onLoad)openDialog(onLoad,$(dot('sendForm')+' textarea'));
document.addEventListener('keydown',function(e){
 if(!openDlg)return;
 if(e.key==='Escape'){e.preventDefault();closeDialog();return;}
 if(e.key==='Tab'){var f=focusables(openDlg);if(!f.length)return;var first=f[0],last=f[f.length-1];
  if(e.shiftKey&&document.activeElement===first){e.preventDefault();last.focus();}
  else if(!e.shiftKey&&document.activeElement===last){e.preventDefault();first.focus();}}
});

/* ---------- custom dropdown (button + listbox) ---------- */
$$(dot('dd')).forEach(function(dd){
 var btn=$(dot('ddButton'),dd),list=$(dot('ddList'),dd),input=$('input[type=hidden]',dd),value=btn.querySelector('span');
 var opts=$$('[role=option]',list);var active=0;
 function setActive(i){active=(i+opts.length)%opts.length;opts.forEach(function(o,j){o.classList.toggle(C.ddActive,j===active);});list.setAttribute('aria-activedescendant',opts[active].id);}
 function open(){list.hidden=false;btn.setAttribute('aria-expanded','true');var sel=opts.findIndex(function(o){return o.getAttribute('aria-selected')==='true';});setActive(sel<0?0:sel);list.focus();}
 function close(focusBtn){if(list.hidden)return;list.hidden=true;btn.setAttribute('aria-expanded','false');if(focusBtn)btn.focus();}
 function choose(o){opts.forEach(function(x){x.setAttribute('aria-selected',String(x===o));});input.value=o.getAttribute('data-value');value.textContent=o.querySelector('span').textContent;close(true);}
 btn.addEventListener('click',function(){if(list.hidden)open();else close(true);});
 btn.addEventListener('keydown',function(e){if(e.key==='ArrowDown'||e.key==='ArrowUp'){e.preventDefault();open();}});
 list.addEventListener('keydown',function(e){
  if(e.key==='ArrowDown'){e.preventDefault();setActive(active+1);}
  else if(e.key==='ArrowUp'){e.preventDefault();setActive(active-1);}
  else if(e.key==='Home'){e.preventDefault();setActive(0);}
  else if(e.key==='End'){e.preventDefault();setActive(opts.length-1);}
  else if(e.key==='Enter'||e.key===' '){e.preventDefault();choose(opts[active]);}
  else if(e.key==='Escape'){e.preventDefault();e.stopPropagation();close(true);}
  else if(e.key==='Tab'){close(false);}
 });
 opts.forEach(function(o,i){o.addEventListener('click',function(){choose(o);});o.addEventListener('mousemove',function(){if(active!==i)setActive(i);});});
 document.addEventListener('mousedown',function(e){if(!dd.contains(e.target))close(false);});
});

/* ---------- compose: contenteditable editor ---------- */
$$(dot('composeForm')).forEach(function(form){
 var ed=$(dot('editor'),form),hid=form.querySelector('input[name=text]'),submit=form.querySelector('button[type=submit]'),counter=$(dot('counter'),form);
 function text(){return (ed.innerText||'').replace(/\\u00a0/g,' ').trim();}
 function sync(){var t=text();if(!t&&ed.innerHTML!=='')ed.innerHTML='';counter.textContent=t.length+' / 3000';submit.disabled=!t||t.length>3000;}
 ed.addEventListener('input',sync);
 ed.addEventListener('paste',function(e){e.preventDefault();var t=(e.clipboardData||window.clipboardData).getData('text/plain');document.execCommand('insertText',false,t);});
 form.addEventListener('submit',function(e){var t=text();if(!t||t.length>3000){e.preventDefault();return;}hid.value=t;setTimeout(function(){submit.disabled=true;submit.textContent='Posting\\u2026';},0);});
 sync();
});

/* ---------- likes without a page reload ---------- */
document.addEventListener('submit',function(e){
 var f=e.target;if(!f.classList||!f.classList.contains(C.likeForm))return;
 e.preventDefault();var btn=f.querySelector('button');if(btn.disabled)return;btn.disabled=true;
 var action=f.getAttribute('action');
 postJSON(action).then(function(d){
  $$('form'+dot('likeForm')).filter(function(g){return g.getAttribute('action')===action;}).forEach(function(g){
   var b=g.querySelector('button');b.setAttribute('aria-pressed',String(d.liked));b.classList.toggle(C.pressed,d.liked);
   var a=g.closest('article');var n=a&&a.querySelector(dot('likeCount'));if(n)n.textContent=d.label;});
 }).catch(function(){toast('Something went wrong. Please try again.');}).then(function(){btn.disabled=false;});
});

/* ---------- "load more" on the feed ---------- */
document.addEventListener('click',function(e){
 var b=e.target.closest(dot('loadMore'));if(!b)return;e.preventDefault();
 if(b.getAttribute('aria-busy')==='true')return;
 var label=b.textContent;b.setAttribute('aria-busy','true');b.disabled=true;
 b.innerHTML='<span class="'+C.spin+'" aria-hidden="true"></span><span>Loading\\u2026</span>';
 getJSON(b.getAttribute('data-src')).then(function(d){
  var feed=$(dot('feed'));feed.insertAdjacentHTML('beforeend',d.html);
  if(d.next){b.setAttribute('data-src',d.next);b.textContent=label;b.disabled=false;b.removeAttribute('aria-busy');}
  else{var p=document.createElement('p');p.className=C.caughtUp;p.textContent="You're all caught up";b.parentNode.replaceWith(p);}
 }).catch(function(){b.textContent=label;b.disabled=false;b.removeAttribute('aria-busy');toast('Could not load more posts.');});
});

/* ---------- nav badges ---------- */
function setBadge(href,n){var a=$('a'+dot('navItem')+'[href="'+href+'"]');if(!a)return;var b=a.querySelector(dot('badge'));if(!b)return;
 b.hidden=!n;b.innerHTML=n?(n>99?'99+':String(n))+'<span class="'+C.srOnly+'"> new</span>':'';}
getJSON('/badges').then(function(d){setBadge('/notifications',d.notifications);setBadge('/messaging',d.messages);}).catch(function(){});

/* ---------- notifications fetched after load ---------- */
var mount=$(dot('notifMount'));
if(mount){getJSON('/notifications/list').then(function(d){mount.innerHTML=d.html;mount.setAttribute('aria-busy','false');
  if(d.unread>0)postJSON('/notifications/read').then(function(){setBadge('/notifications',0);}).catch(function(){});
 }).catch(function(){mount.setAttribute('aria-busy','false');mount.innerHTML='<p class="'+C.empty+'">We couldn\\u2019t load your notifications. <a href="/notifications">Try again</a></p>';});}

/* ---------- messaging ---------- */
$$(dot('sendForm')+' textarea').forEach(function(t){t.addEventListener('keydown',function(e){
 if(e.key==='Enter'&&!e.shiftKey&&!e.isComposing){e.preventDefault();if(t.value.trim())t.form.requestSubmit();}});});
var msgs=$(dot('threadMsgs'));if(msgs)msgs.scrollTop=msgs.scrollHeight;
$$(dot('pickerInput')).forEach(function(inp){var list=document.getElementById(inp.getAttribute('aria-controls'));
 inp.addEventListener('input',function(){var q=inp.value.toLowerCase().trim();$$('li',list).forEach(function(li){li.hidden=!!q&&li.textContent.toLowerCase().indexOf(q)<0;});});});

})();`;
