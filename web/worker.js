// The explorer's engine without a server, in a Web Worker: the WebAssembly module (pentago.js,
// pentago.wasm beside the page, one thread; pentago-threads.js with its .wasm and .worker.js on
// a cross-origin isolated page, up to 4 threads) answers positions from slice files read by
// HTTP range requests (the sidecar's header, a block's record in it, then the block) and from
// the midgame solver.
// Messages in: {type: 'init', slices: URL, midgame: N}, {type: 'answer', id, code}. Out:
// {id, answer} (the JSON shape of the server's answers), {id, error}, {id, progress: layers}.
'use strict';
// Shared memory (threads) needs a cross-origin isolated page (COOP and COEP headers).
const threads = self.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;
importScripts(threads > 1 ? 'pentago-threads.js' : 'pentago.js');

let engine = null;
let slices = null;
const started = new Promise((resolve) => {
  self.onmessage = ({data}) => {
    if (data.type !== 'init') return;
    slices = data.slices;
    // The threaded module's pool workers load it again by this URL (a worker has no
    // document.currentScript to find it by).
    const load = threads > 1 ? () => PentagoThreadsModule({
      mainScriptUrlOrBlob: new URL('pentago-threads.js', self.location.href).href,
    }) : PentagoModule;
    resolve(load().then((module) => {
      engine = new module.Explorer(data.midgame || 18, threads);
      postMessage({threads});
    }));
  };
});

// Bytes [start, start + length) of a file, or null when the file is missing (404). A server
// that ignores Range answers 200 with the whole file: the part is cut from it.
async function range(name, start, length) {
  const response = await fetch(slices + name, {headers: {Range: `bytes=${start}-${start + length - 1}`}});
  if (response.status === 404) return null;
  if (response.status !== 206 && response.status !== 200)
    throw new Error(`${name}: HTTP ${response.status}`);
  let bytes = new Uint8Array(await response.arrayBuffer());
  let total = bytes.length;
  if (response.status === 206) {
    const match = /\/(\d+)$/.exec(response.headers.get('Content-Range') || '');
    if (match) total = Number(match[1]);
  } else {
    bytes = bytes.subarray(start, start + length);
  }
  if (bytes.length !== length) throw new Error(`${name}: ${bytes.length} bytes at ${start}, not ${length}`);
  return {bytes, total};
}

function check(result) {
  if (result && result.error) throw new Error(result.error);
}

async function fetchNeed(need) {
  const file = `slice-${need.slice}.pentago`;
  if (need.kind === 'header') {
    const part = await range(file + '.index', 0, 24).catch((failure) => {
      // A sidecar shorter than its header, or a host without it: the slice is absent.
      if (/bytes at/.test(failure.message)) return null;
      throw failure;
    });
    if (!part) engine.setSliceAbsent(need.slice);
    else check(engine.setSidecarHeader(need.slice, part.bytes, part.total));
  } else if (need.kind === 'record') {
    const part = await range(file + '.index', 24 + 12 * need.record, 12);
    if (!part) throw new Error(`${file}.index disappeared`);
    check(engine.setSidecarRecords(need.slice, need.record, part.bytes));
  } else {
    const part = await range(file, need.offset, need.size);
    if (!part) throw new Error(`${file} is missing beside its sidecar`);
    check(engine.setBlock(need.slice, need.record, part.bytes));
  }
}

async function answer(id, code) {
  await started;
  let layers = 0;
  let last = 0;
  const progress = () => {
    layers++;
    const now = Date.now();
    if (now - last > 100) {
      last = now;
      postMessage({id, progress: layers});
    }
  };
  // Each round fetches what the last one lacked: sidecar headers, block records, blocks.
  for (let round = 0; round < 6; round++) {
    const result = engine.answer(code, progress);
    if (result.error) throw new Error(result.error);
    if (result.json) return JSON.parse(result.json);
    await Promise.all(result.needs.map(fetchNeed));
  }
  throw new Error('the slice data never became complete');
}

self.addEventListener('message', ({data}) => {
  if (data.type !== 'answer') return;
  answer(data.id, data.code).then((result) => postMessage({id: data.id, answer: result}),
                                  (failure) => postMessage({id: data.id, error: failure.message}));
});
