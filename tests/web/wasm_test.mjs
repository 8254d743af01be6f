// Node test of the explorer's WebAssembly module alone: parsing, slice answers from the
// published files (fed as the worker feeds range requests) and midgame answers (one thread,
// and the threaded module on two), each equal to
// pentago-lookup --json (native), progress calls during a solve, and one-line errors for bad
// boards, bad sidecars and corrupt blocks.
// usage: node --no-experimental-fetch wasm_test.mjs WASM_DIR PENTAGO_LOOKUP DATA_DIR
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';

const [wasmDir, lookupExe, dataDir] = process.argv.slice(2);
if (!wasmDir || !lookupExe || !dataDir) {
  console.error('usage: wasm_test.mjs WASM_DIR PENTAGO_LOOKUP DATA_DIR');
  process.exit(2);
}
const failures = [];
function check(condition, message) {
  if (!condition) {
    failures.push(message);
    console.log('FAIL: ' + message);
  }
  return condition;
}

const PentagoModule = createRequire(import.meta.url)(path.resolve(wasmDir, 'pentago.js'));
const module = await PentagoModule();

function native(code) {
  const answer = JSON.parse(execFileSync(lookupExe, ['--db', dataDir, '--json', code]).toString());
  delete answer.elapsed_ms;
  return answer;
}

// Answers like the worker: each round's needs read from the files.
function answer(engine, code, progress) {
  for (let round = 0; round < 6; round++) {
    const r = engine.answer(code, progress);
    if (r.error) return {error: r.error};
    if (r.json) {
      const a = JSON.parse(r.json);
      delete a.elapsed_ms;
      return a;
    }
    for (const need of r.needs) {
      const file = path.join(dataDir, `slice-${need.slice}.pentago`);
      if (need.kind === 'header') {
        if (!fs.existsSync(file + '.index')) {
          engine.setSliceAbsent(need.slice);
          continue;
        }
        const bytes = fs.readFileSync(file + '.index');
        const r2 = engine.setSidecarHeader(need.slice, bytes.subarray(0, 24), bytes.length);
        if (r2.error) return {error: r2.error};
      } else if (need.kind === 'record') {
        const bytes = fs.readFileSync(file + '.index').subarray(24 + 12 * need.record, 36 + 12 * need.record);
        engine.setSidecarRecords(need.slice, need.record, bytes);
      } else {
        const bytes = fs.readFileSync(file).subarray(need.offset, need.offset + need.size);
        const r2 = engine.setBlock(need.slice, need.record, bytes);
        if (r2.error) return {error: r2.error};
      }
    }
  }
  return {error: 'no answer after 6 rounds'};
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Parsing: the forms of the query path, and a one-line reason for anything else.
check(module.parse('0').code === '0', 'parse 0');
const compact = '______________________________0_____m';
check(module.parse(compact).code === native(compact).board, 'parse the compact form');
check(/invalid|bad board/.test(module.parse('12x').error || ''), `parse 12x: ${module.parse('12x').error}`);

const engine = new module.Explorer(18, 1);
// Slices: the empty board, a position to rotate and one to place with one stone.
const empty = native('0');
check(same(answer(engine, '0'), empty), 'the empty board equals pentago-lookup');
for (const code of [empty.moves[7].child, native(empty.moves[7].child).moves[2].child])
  check(same(answer(engine, code), native(code)), `${code} equals pentago-lookup`);
// Midgame: a line from the 2013 benchmark board's best move (19 stones to rotate, then 19 and
// 20 stones), with progress calls.
const rotate19 = '297240265046103320m';
const place19 = native(rotate19).moves[0].child;
const rotate20 = native(place19).moves[0].child;
for (const code of [rotate19, place19, rotate20]) {
  let layers = 0;
  const mine = answer(engine, code, () => layers++);
  const theirs = native(code);
  check(same(mine, theirs), `${code}: ${JSON.stringify(mine).slice(0, 200)} differs from pentago-lookup`);
  check(layers > 10, `${code}: ${layers} progress calls`);
}
// The 2013 benchmark board (18 stones): its time and CPU time here, for docs/performance.md.
{
  const benchmark = '274440791932540184';
  const [wall, cpu] = [performance.now(), process.cpuUsage()];
  const mine = answer(engine, benchmark);
  const seconds = (performance.now() - wall) / 1000, cpuSeconds = process.cpuUsage(cpu).user / 1e6;
  check(same(mine, native(benchmark)), `${benchmark} differs from pentago-lookup`);
  console.log(`${benchmark} in WebAssembly under node: ${seconds.toFixed(2)} s wall, ` +
              `${cpuSeconds.toFixed(2)} s CPU (one thread, values and distances)`);
}

// The threaded module (node shares memory without isolation headers) on 2 threads.
{
  const threaded = await createRequire(import.meta.url)(path.resolve(wasmDir, 'pentago-threads.js'))();
  const two = new threaded.Explorer(18, 2);
  check(same(answer(two, place19), native(place19)), `${place19} on 2 threads differs from pentago-lookup`);
  check(/impossible|bad board|invalid/.test(answer(two, '1111111111111111111').error || ''),
        'the threaded module refuses an impossible board');
}

// Errors: an impossible board, a sidecar of the wrong slice, a corrupt block.
check(/impossible|bad board|invalid/.test(answer(engine, '1111111111111111111').error || ''),
      'an impossible board is refused');
const fresh = new module.Explorer(18, 1);
const sidecar = fs.readFileSync(path.join(dataDir, 'slice-1.pentago.index'));
check(/holds slice 1/.test(fresh.setSidecarHeader(2, sidecar.subarray(0, 24), sidecar.length).error || ''),
      'a sidecar of another slice is refused');
check(/xz|corrupt/.test(fresh.setBlock(1, 0, new Uint8Array(64)).error || ''), 'a corrupt block is refused');

if (failures.length) {
  console.log(`${failures.length} wasm checks failed`);
  process.exit(1);
}
console.log('all wasm checks passed');
process.exit(0);  // the threaded module's pool workers would keep node running

