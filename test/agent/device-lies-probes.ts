/**
 * The scripts device-lies.browser.test.ts runs in a device page and in a plain Chromium page, as a site's lie detector
 * or fingerprinting script would (plain JavaScript text: evaluated as the page's own code, not through Playwright's
 * function serialization).
 */

/** Each probe's outcome: its value's type, or its error's whole stack (header and frames). */
export const PROBES = `(async () => {
  const out = {};
  const grab = async (name, run) => {
    try {
      const value = await run();
      out[name] =
        value === null ? 'null' : typeof value === 'boolean' || name.startsWith('keys of ') || name.startsWith('value of ') ? String(value) : typeof value;
    } catch (e) {
      out[name] = String(e && e.stack);
    }
  };
  const get = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  for (const name of ['platform', 'language', 'languages', 'hardwareConcurrency', 'deviceMemory', 'plugins', 'mimeTypes', 'pdfViewerEnabled'])
    await grab('Navigator.' + name, () => get(Navigator.prototype, name).call({}));
  await grab('Navigator.prototype.platform', () => Navigator.prototype.platform);
  for (const name of ['brands', 'platform', 'mobile']) await grab('NavigatorUAData.' + name, () => get(NavigatorUAData.prototype, name).call({}));
  await grab('NavigatorUAData.toJSON', () => NavigatorUAData.prototype.toJSON.call({}));
  await grab('NavigatorUAData.getHighEntropyValues', () => NavigatorUAData.prototype.getHighEntropyValues.call({}, ['platform']));
  await grab('NavigatorUAData.getHighEntropyValues(5)', () => navigator.userAgentData.getHighEntropyValues(5));
  // The page's own code throwing inside a built-in we stand in for: its frames above the call are in the stack.
  const thrower = () => ({ valueOf() { throw new Error('valueOf'); }, toString() { throw new Error('toString'); } });
  await grab('getParameter with an argument that throws', () => document.createElement('canvas').getContext('webgl').getParameter(thrower()));
  await grab('new Worker with a URL that throws', () => new Worker(thrower()));
  await grab('new Blob with parts that throw', () => new Blob({ [Symbol.iterator]() { throw new Error('iterator'); } }));
  await grab('createObjectURL with a Blob-like that throws', () => URL.createObjectURL(thrower()));
  // Its message (or name) holding lines that read as frames: the frames still begin after the message.
  const framesIn = (text) => ({ valueOf() { throw new Error(text); }, toString() { throw new Error(text); } });
  const framed = 'message\\n    at fake (https://example.test/fake.js:1:2)\\n    at builtIn (<anonymous>)';
  await grab('getParameter with an argument that throws a message like frames', () => document.createElement('canvas').getContext('webgl').getParameter(framesIn(framed)));
  await grab('new Blob with a part that throws a message like frames', () => new Blob([framesIn(framed)]));
  await grab('new Blob with a part that throws a name like frames', () => {
    const e = new TypeError('named');
    e.name = 'Named\\n    at fake (https://example.test/fake.js:3:4)';
    return new Blob([{ toString() { throw e; } }]);
  });
  // An error of the page's thrown through a stand-in: its own stack getter is not read at the throw, and a stack made
  // before the call (outside it) stays as it was.
  await grab('value of an own stack getter of an error thrown through a stand-in', () => {
    let read = 'not read';
    const e = new Error('own');
    Object.defineProperty(e, 'stack', { get() { read = 'read'; return 'x'; }, configurable: true });
    try { new Blob([{ toString() { throw e; } }]); } catch {}
    return read;
  });
  await grab('value of the stack of an error made before the call and thrown through a stand-in', () => {
    const e = new Error('made before');
    const before = e.stack;
    try { new Blob([{ toString() { throw e; } }]); } catch {}
    return e.stack === before ? 'as it was' : 'made again';
  });
  await grab('value of getHighEntropyValues with hints that throw a frozen error', () => {
    try {
      navigator.userAgentData.getHighEntropyValues({ [Symbol.iterator]() { throw Object.freeze(new Error('frozen')); } }).catch(() => undefined);
      return 'a promise';
    } catch {
      return 'thrown at the call';
    }
  });
  // A promise-returning operation whose argument throws rejects (WebIDL): it never throws at the call.
  await grab('value of getHighEntropyValues with hints that throw', () => {
    try {
      navigator.userAgentData.getHighEntropyValues({ [Symbol.iterator]() { throw new TypeError('no hints'); } }).catch(() => undefined);
      return 'a promise';
    } catch {
      return 'thrown at the call';
    }
  });
  await grab('NavigatorUAData.getHighEntropyValues keys', async () => Object.keys(await navigator.userAgentData.getHighEntropyValues(['constructor', 'toString'])).join());
  await grab('Notification.permission', () => get(Notification, 'permission').call({}));
  await grab('Screen.availHeight', () => get(Screen.prototype, 'availHeight').call({}));
  await grab('window.outerWidth', () => get(window, 'outerWidth').call({}));
  await grab('Plugin.name', () => get(Plugin.prototype, 'name').call({}));
  await grab('PluginArray.length', () => get(PluginArray.prototype, 'length').call({}));
  await grab('PluginArray.item', () => PluginArray.prototype.item.call({}, 0));
  const gl = document.createElement('canvas').getContext('webgl');
  await grab('getParameter on {}', () => WebGLRenderingContext.prototype.getParameter.call({}, 0x9246));
  await grab('getParameter before the extension', () => gl.getParameter(0x9246));
  await grab('getError after it', () => String(gl.getError()));
  await grab('readPixels on {}', () => WebGLRenderingContext.prototype.readPixels.call({}, 0, 0, 1, 1, 0x1908, 0x1401, new Uint8Array(4)));
  await grab('getImageData on {}', () => CanvasRenderingContext2D.prototype.getImageData.call({}, 0, 0, 1, 1));
  await grab('toDataURL on {}', () => HTMLCanvasElement.prototype.toDataURL.call({}));
  await grab('getChannelData on {}', () => AudioBuffer.prototype.getChannelData.call({}, 0));
  await grab('createObjectURL(5)', () => URL.createObjectURL(5));
  await grab('revokeObjectURL()', () => URL.revokeObjectURL());
  await grab('new Blob(5)', () => new Blob(5));
  await grab('new File([])', () => new File([]));
  await grab('Blob()', () => Blob());
  await grab('new Worker(bad URL)', () => new Worker('http://[bad'));
  await grab('new SharedWorker(bad URL)', () => new SharedWorker('http://[bad'));
  await grab('Worker()', () => Worker('x'));
  await grab('window.open on 1', () => window.open.call(1));
  await grab('Document.open on {}', () => Document.prototype.open.call({}));
  await grab('credentials.get(5)', () => navigator.credentials.get(5));
  await grab('credentials.create on {}', () => CredentialsContainer.prototype.create.call({}));
  // What the page put in reads back as it put it: a flat fill, a WebGL clear, samples it wrote (noise is for what the
  // browser renders, and only where a picture changes); asking for a data URL makes no context on the page's canvas.
  await grab('flat fill reads back', () => {
    const c = document.createElement('canvas');
    c.width = c.height = 32;
    const x = c.getContext('2d');
    x.fillStyle = '#f00';
    x.fillRect(0, 0, 32, 32);
    const data = x.getImageData(0, 0, 32, 32).data;
    return data.every((v, i) => v === [255, 0, 0, 255][i % 4]) && c.toDataURL() === c.toDataURL();
  });
  await grab('WebGL clear reads back', () => {
    const w = document.createElement('canvas').getContext('webgl');
    w.clearColor(0, 1, 0, 1);
    w.clear(w.COLOR_BUFFER_BIT);
    const px = new Uint8Array(w.drawingBufferWidth * w.drawingBufferHeight * 4);
    w.readPixels(0, 0, w.drawingBufferWidth, w.drawingBufferHeight, w.RGBA, w.UNSIGNED_BYTE, px);
    return px.every((v, i) => v === [0, 255, 0, 255][i % 4]);
  });
  await grab('samples read back', () => {
    const b = new AudioBuffer({ length: 64, sampleRate: 44100 });
    b.copyToChannel(new Float32Array(64).fill(0.5), 0);
    const copied = new Float32Array(64);
    b.copyFromChannel(copied, 0);
    return b.getChannelData(0).every((v) => v === 0.5) && copied.every((v) => v === 0.5);
  });
  await grab('toDataURL then WebGL', () => {
    const c = document.createElement('canvas');
    c.toDataURL();
    return c.getContext('webgl') !== null;
  });
  await grab('copyFromChannel on a bad channel', () => new AudioBuffer({ length: 8, sampleRate: 44100 }).copyFromChannel(new Float32Array(8), 3));
  await grab('keys of the stack property of a rejection', () =>
    navigator.userAgentData.getHighEntropyValues(5).catch((e) => Object.keys(Object.getOwnPropertyDescriptor(e, 'stack')).join()),
  );
  await grab('keys of getHighEntropyValues', async () => Object.keys(await navigator.userAgentData.getHighEntropyValues(['wow64', 'platformVersion', 'architecture', 'model'])).join());
  await grab('plugins.refresh()', () => navigator.plugins.refresh());
  await grab('plugins.item()', () => navigator.plugins.item());
  await grab('mimeTypes.namedItem()', () => navigator.mimeTypes.namedItem());
  await grab('Function.prototype.toString.call({})', () => Function.prototype.toString.call({}));
  // Its own frame counts within Error.stackTraceLimit, as the browser's does; a Map receiver names it Map.toString.
  for (const limit of [0, 1, 1.5, 2, 2.5])
    await grab('toString, stackTraceLimit ' + limit, () => {
      const was = Error.stackTraceLimit;
      Error.stackTraceLimit = limit;
      try {
        return Function.prototype.toString.call(new Map());
      } finally {
        Error.stackTraceLimit = was;
      }
    });
  // A page's getter on the error's name runs when the page reads the stack, from the page's frames only (never at the
  // throw, inside a stand-in's); so does its Error.prepareStackTrace; and no Symbol.hasInstance of the page's is asked.
  await grab('value of toString with a name getter', () => {
    const was = Object.getOwnPropertyDescriptor(TypeError.prototype, 'name');
    const depths = [];
    Object.defineProperty(TypeError.prototype, 'name', {
      configurable: true,
      get() {
        depths.push(new Error('in the getter').stack.split('\\n').length);
        return 'TypeError';
      },
    });
    try {
      Function.prototype.toString.call({});
    } catch (e) {
      const atThrow = depths.length;
      const first = e.stack.split('\\n').slice(0, 2).join(' / ');
      return atThrow + ' | ' + depths.join() + ' | ' + first;
    } finally {
      Object.defineProperty(TypeError.prototype, 'name', was);
    }
  });
  await grab('value of toString with Error.prepareStackTrace', () => {
    const files = [];
    Error.prepareStackTrace = (error, frames) => {
      for (const f of frames) files.push(String(f.getFunctionName()) + '@' + String(f.getFileName()));
      return 'prepared';
    };
    try {
      Function.prototype.toString.call({});
    } catch (e) {
      const atThrow = files.length;
      return atThrow + ' | ' + e.stack + ' | ' + files.slice(0, 2).join();
    } finally {
      delete Error.prepareStackTrace;
    }
  });
  await grab('value of toString with Symbol.hasInstance on Error', () => {
    let asked = 0;
    Object.defineProperty(Error, Symbol.hasInstance, { configurable: true, value: () => (asked++, true) });
    try {
      Function.prototype.toString.call({});
    } catch {
      return asked;
    } finally {
      delete Error[Symbol.hasInstance];
    }
  });
  // A message changed before the stack is first read: in this Chromium the stack's first line was made at the throw.
  await grab('value of toString, message changed before the stack is read', () => {
    try {
      Function.prototype.toString.call({});
    } catch (e) {
      e.message = 'changed';
      return e.stack.split('\\n')[0];
    }
  });
  // The console methods the device quiets (device-console.page.ts) are the browser's in shape; a label is still converted.
  for (const name of ['log', 'debug', 'table', 'assert', 'timeLog'])
    await grab('keys of console.' + name, () => {
      const f = console[name];
      const d = Object.getOwnPropertyDescriptor(console, name);
      return [f.name, f.length, Function.prototype.toString.call(f), 'prototype' in f, d.writable, d.enumerable, d.configurable].join('|');
    });
  await grab('new console.log()', () => new console.log());
  await grab('keys of labels converted', () => {
    let n = 0;
    const label = { toString: () => (n++, 'label') };
    console.count(label);
    console.timeLog(label, {});
    console.log(label);
    return String(n);
  });
  return out;
})()`;

// A lie detector's trap: the built-ins a wrapper might call at call time, replaced by counting proxies, then the device's
// stand-ins used. A built-in getter, method or toString calls none of them; neither may ours.
export const TRAPPED = `(() => {
  const hits = [];
  const R = Reflect.apply;
  const traps = [
    [Function.prototype, 'call'], [Function.prototype, 'apply'], [Function.prototype, 'bind'], [Reflect, 'apply'], [Reflect, 'construct'],
    [WeakMap.prototype, 'get'], [WeakMap.prototype, 'has'], [WeakSet.prototype, 'has'], [Array.prototype, Symbol.iterator],
    [Array.prototype, 'find'], [Math, 'round'], [Performance.prototype, 'getEntriesByType'], [Performance.prototype, 'now'], [window, 'setTimeout'],
  ];
  const saved = traps.map(([holder, key]) => holder[key]);
  traps.forEach(([holder, key], i) => {
    holder[key] = new Proxy(saved[i], { apply: (t, self, args) => (hits[hits.length] = String(key), R(t, self, args)) });
  });
  const gl = document.createElement('canvas').getContext('webgl');
  const c2 = document.createElement('canvas').getContext('2d');
  const platformGetter = Object.getOwnPropertyDescriptor(Navigator.prototype, 'platform').get;
  const used = [
    navigator.platform, navigator.languages, navigator.hardwareConcurrency, navigator.deviceMemory, navigator.userAgentData.brands,
    navigator.plugins.length, navigator.plugins.item(0), navigator.mimeTypes.namedItem('application/pdf'), navigator.pdfViewerEnabled,
    screen.availHeight, outerWidth, Notification.permission, gl.getParameter(gl.VENDOR), c2.getImageData(0, 0, 1, 1),
    R(Function.prototype.toString, platformGetter, []), platformGetter.toString(), Math.max.toString(), (() => 1).toString(), String(navigator.plugins.item),
    new Blob(['x'], { type: 'text/javascript' }), new File(['y'], 'f.js'), console.log('logged'), console.timeLog('t'),
    window.chrome && [chrome.loadTimes(), chrome.csi(), chrome.app.getDetails(), chrome.app.installState(() => undefined)],
  ];
  traps.forEach(([holder, key], i) => (holder[key] = saved[i]));
  return { hits: hits.join(), used: used.length };
})()`;

// The same with every common built-in trapped, and the asynchronous and constructing stand-ins used too. The test's own
// code here uses none of them (plain loops, index writes) while they are trapped.
export const TRAPPED_WIDE = `(async () => {
  const hits = [];
  const R = Reflect.apply;
  const P = (o, k) => [o, k];
  const traps = [];
  const add = (holder, keys) => { for (let i = 0; i < keys.length; i++) traps[traps.length] = P(holder, keys[i]); };
  add(Array.prototype, ['push', 'pop', 'slice', 'splice', 'sort', 'map', 'forEach', 'join', 'find', 'filter', 'indexOf', 'includes', 'concat', 'some', 'every', 'reduce', 'fill', Symbol.iterator]);
  add(Array, ['from', 'isArray', 'of']);
  add(Object, ['keys', 'values', 'entries', 'assign', 'freeze', 'create', 'defineProperty', 'getOwnPropertyDescriptor', 'getOwnPropertyNames', 'getPrototypeOf', 'setPrototypeOf']);
  add(Object.prototype, ['hasOwnProperty']);
  add(Set.prototype, ['add', 'has']);
  add(Map.prototype, ['get', 'set', 'has']);
  add(WeakMap.prototype, ['get', 'set', 'has']);
  add(WeakSet.prototype, ['add', 'has']);
  add(RegExp.prototype, ['exec', 'test']);
  add(String.prototype, ['slice', 'indexOf', 'startsWith', 'replace', 'split', 'charCodeAt']);
  add(JSON, ['stringify', 'parse']);
  add(Promise.prototype, ['then', 'catch']);
  add(Promise, ['resolve', 'reject']);
  add(Function.prototype, ['call', 'apply', 'bind']);
  add(Reflect, ['apply', 'construct', 'ownKeys']);
  add(Math, ['round', 'floor', 'max', 'min', 'imul']);
  add(window, ['String', 'Number', 'setTimeout']);
  // A promise's species, read by \`then\` inside a call (counted while a stand-in is being called: the test's own awaits
  // read it too, as in any browser).
  let calling = false;
  const species = Object.getOwnPropertyDescriptor(Promise.prototype, 'constructor');
  Object.defineProperty(Promise.prototype, 'constructor', {
    configurable: true,
    get() { if (calling) hits[hits.length] = 'Promise.prototype.constructor'; return species.value; },
  });
  const during = (run) => { calling = true; try { return run(); } finally { calling = false; } };
  const saved = [];
  for (let i = 0; i < traps.length; i++) saved[i] = traps[i][0][traps[i][1]];
  for (let i = 0; i < traps.length; i++) {
    const key = traps[i][1];
    const name = typeof key === 'symbol' ? key.description : key;
    traps[i][0][key] = new Proxy(saved[i], {
      apply: (t, self, args) => ((hits[hits.length] = name), R(t, self, args)),
      construct: (t, args, n) => ((hits[hits.length] = name), Reflect.construct(t, args, n)),
    });
  }
  let used = 0;
  try {
    const brands = navigator.userAgentData.brands;
    const json = navigator.userAgentData.toJSON();
    const values = await during(() => navigator.userAgentData.getHighEntropyValues(['architecture', 'platformVersion', 'fullVersionList']));
    // Asked, not awaited (a plain Chromium answers only the first page of a browser that asks).
    const battery = during(() => navigator.getBattery());
    // Awaited with the traps in place: what the stand-ins do later, in their reactions and callbacks, is counted too.
    const estimate = await during(() => navigator.storage.estimate());
    const temporary = navigator.webkitTemporaryStorage;
    await new Promise((resolve) => during(() => temporary.queryUsageAndQuota(resolve)));
    const url = URL.createObjectURL(new Blob(['"use strict";postMessage(1)'], { type: 'text/javascript' }));
    // Workers started from the page's Blob and from a data: URL: the device's prelude goes into their scripts.
    const workers = [new Worker(url), new Worker('data:text/javascript;base64,' + btoa('postMessage(2)')), new Worker(url, { type: 'module' })];
    URL.revokeObjectURL(url);
    for (let i = 0; i < workers.length; i++) workers[i].terminate();
    used = (brands ? 1 : 0) + (json ? 1 : 0) + (values ? 1 : 0) + (battery ? 1 : 0) + (estimate ? 1 : 0) + (temporary ? 1 : 0) + workers.length;
  } finally {
    for (let i = 0; i < traps.length; i++) traps[i][0][traps[i][1]] = saved[i];
    Object.defineProperty(Promise.prototype, 'constructor', species);
  }
  return { hits: hits.join(), used };
})()`;

// A Blob made of bytes (an ArrayBuffer, a typed array, a DataView) and of another Blob, with every getter and lookup a
// copy of them might use replaced by a counting one: the sizes and places of the parts, the constructors' species and
// Symbol.hasInstance. The browser's constructor reads the parts inside; a keeper of what the Blob holds may not either.
export const TRAPPED_PARTS = `(() => {
  const hits = [];
  const R = Reflect.apply;
  const d = Object.getOwnPropertyDescriptor;
  // The parts, made before anything is trapped (subarray itself looks the species up).
  const inner = new Blob(['a'], { type: 'text/javascript' });
  const parts = [new Uint8Array([104, 105, 106]).subarray(1), new ArrayBuffer(2), new DataView(new ArrayBuffer(4), 1, 2), inner, 'z'];
  const typed = Object.getPrototypeOf(Uint8Array.prototype);
  const getters = [
    [ArrayBuffer.prototype, 'byteLength'], [typed, 'byteLength'], [typed, 'byteOffset'], [typed, 'buffer'], [typed, 'length'],
    [DataView.prototype, 'byteLength'], [DataView.prototype, 'byteOffset'], [DataView.prototype, 'buffer'],
    [ArrayBuffer, Symbol.species], [Object.getPrototypeOf(Uint8Array), Symbol.species],
  ];
  const saved = getters.map(([holder, key]) => d(holder, key));
  getters.forEach(([holder, key], i) => {
    const get = saved[i].get;
    Object.defineProperty(holder, key, { ...saved[i], get: function () { hits[hits.length] = String(key); return R(get, this, []); } });
  });
  const constructors = [[Uint8Array.prototype, 'constructor'], [ArrayBuffer.prototype, 'constructor'], [DataView.prototype, 'constructor']];
  const savedConstructors = constructors.map(([holder, key]) => d(holder, key));
  constructors.forEach(([holder, key], i) => {
    const value = savedConstructors[i].value;
    Object.defineProperty(holder, key, { configurable: true, get: () => (hits[hits.length] = 'constructor', value) });
  });
  Object.defineProperty(Blob, Symbol.hasInstance, { configurable: true, value: (v) => ((hits[hits.length] = 'hasInstance'), R(Function.prototype[Symbol.hasInstance], Blob, [v])) });
  let size = 0;
  try {
    size = new Blob(parts, { type: 'text/javascript' }).size;
  } finally {
    getters.forEach(([holder, key], i) => Object.defineProperty(holder, key, saved[i]));
    constructors.forEach(([holder, key], i) => Object.defineProperty(holder, key, savedConstructors[i]));
    delete Blob[Symbol.hasInstance];
  }
  return { hits: hits.join(), size };
})()`;

// What a fingerprinting script renders: an oscillator through a compressor (FingerprintJS's audio), read from the
// promise and from the complete event, and text on a canvas. Summed so two connections' answers can be compared.
export const RENDERED = `(async () => {
  const render = (viaEvent) => new Promise((resolve) => {
    const context = new OfflineAudioContext(1, 5000, 44100);
    const oscillator = context.createOscillator();
    oscillator.type = 'triangle';
    oscillator.frequency.value = 10000;
    const compressor = context.createDynamicsCompressor();
    oscillator.connect(compressor);
    compressor.connect(context.destination);
    oscillator.start(0);
    if (viaEvent) context.oncomplete = (e) => resolve(e.renderedBuffer);
    const rendering = context.startRendering();
    if (!viaEvent) rendering.then(resolve);
  });
  const sum = (buffer) => {
    const copied = new Float32Array(buffer.length);
    buffer.copyFromChannel(copied, 0);
    let a = 0, b = 0;
    for (const v of buffer.getChannelData(0)) a += Math.abs(v);
    for (const v of copied) b += Math.abs(v);
    return a === b ? a : 'getChannelData and copyFromChannel disagree';
  };
  const canvas = document.createElement('canvas');
  canvas.width = 240;
  canvas.height = 60;
  const x = canvas.getContext('2d');
  x.font = '18px serif';
  x.fillStyle = '#069';
  x.fillText('Cwm fjordbank glyphs vext quiz', 4, 30);
  return { promise: sum(await render(false)), event: sum(await render(true)), canvas: canvas.toDataURL() };
})()`;
