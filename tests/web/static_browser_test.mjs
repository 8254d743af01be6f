// Browser test of the explorer with no server of ours: nginx serves only static files (the
// page, worker.js, pentago.js/.wasm, config.json, the published slice files and sidecars),
// headless Chromium is driven over the DevTools protocol, and every move's data-value and
// data-distance in the DOM is checked against pentago-lookup (native): the empty board and
// positions from the slices (read by range requests), random 18-24 stone positions (solved in
// WebAssembly), a position neither answers, and a game the page plays against itself, which
// never moves from a win to a non-win.
// usage: node static_browser_test.mjs PENTAGO_LOOKUP WASM_DIR DATA_DIR OUT_DIR  (77: skipped)
import {spawn, execFile} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {encode, midgameGrid} from '../lib/boards.mjs';
import {findProgram, pageActions, startBrowser, TestRun} from '../lib/browser.mjs';

const [lookupExe, wasmDir, dataDir, outDir] = process.argv.slice(2);
if (!lookupExe || !wasmDir || !dataDir || !outDir) {
  console.error('usage: static_browser_test.mjs PENTAGO_LOOKUP WASM_DIR DATA_DIR OUT_DIR');
  process.exit(2);
}
const webDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

const chromium = findProgram([process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome']);
const nginx = findProgram(['nginx', '/usr/sbin/nginx']);
if (!chromium || !nginx) {
  console.log(`SKIPPED: ${chromium ? 'nginx' : 'Chromium'} not found (scripts/setup installs it)`);
  process.exit(77);
}

fs.rmSync(outDir, {recursive: true, force: true});
fs.mkdirSync(outDir, {recursive: true});
const run = new TestRun('static browser test', 420);
const {failures, children} = run;
const check = (condition, message) => run.check(condition, message);
const finish = (code) => run.finish(code);

// ---- the static site and nginx
async function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startNginx() {
  const site = path.join(outDir, 'site');
  fs.mkdirSync(path.join(site, 'data'), {recursive: true});
  for (const name of fs.readdirSync(webDir)) fs.copyFileSync(path.join(webDir, name), path.join(site, name));
  for (const name of ['pentago.js', 'pentago.wasm', 'pentago-threads.js', 'pentago-threads.wasm',
                      'pentago-threads.worker.js'])
    fs.copyFileSync(path.join(wasmDir, name), path.join(site, name));
  for (const name of fs.readdirSync(dataDir).filter((n) => /^slice-\d+\.pentago(\.index)?$/.test(n)))
    fs.copyFileSync(path.join(dataDir, name), path.join(site, 'data', name));
  fs.writeFileSync(path.join(site, 'config.json'), JSON.stringify({slices: 'data/'}) + '\n');
  const port = await freePort();
  const conf = path.join(outDir, 'nginx.conf');
  const temp = (name) => `${name}_temp_path ${path.join(outDir, name)};`;
  fs.writeFileSync(conf, `daemon off;
master_process off;
pid ${path.join(outDir, 'nginx.pid')};
error_log ${path.join(outDir, 'error.log')};
events { worker_connections 64; }
http {
  access_log ${path.join(outDir, 'access.log')};
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  types { text/html html; text/css css; application/javascript js; application/wasm wasm;
          application/json json; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
    root ${site};
    # The page at / is cross-origin isolated (the threaded module); at /plain/ it is not.
    location / {
      add_header Cross-Origin-Opener-Policy same-origin;
      add_header Cross-Origin-Embedder-Policy require-corp;
    }
    location /plain/ { alias ${site}/; }
  }
}
`);
  const server = spawn(nginx, ['-p', outDir, '-c', conf], {stdio: ['ignore', 'inherit', 'inherit']});
  children.push(server);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(base + '/config.json')).ok) return {server, base};
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nginx did not start: ' + fs.readFileSync(path.join(outDir, 'error.log'), 'utf8'));
}

let page;
const {evaluate, waitFor, click} = pageActions(() => page, run, 60);
async function show(code) {
  await evaluate(`location.hash = ${JSON.stringify('#' + code)}`);
  return waitFor(`document.body.dataset.state !== 'loading' && document.body.dataset.code === ${
      JSON.stringify(code)}`, `the page to show ${code}`);
}
// The native answer: pentago-lookup --json (the query path; slices from DATA_DIR).
function lookup(code) {
  return new Promise((resolve, reject) => {
    execFile(lookupExe, ['--db', dataDir, '--json', '--threads', '1', code],
             {maxBuffer: 1 << 24}, (failure, stdout) => {
      if (failure) reject(new Error(`pentago-lookup ${code}: ${failure.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

// Every move's data-value and data-distance in the DOM equal the native answer's, and the
// page's value and source.
async function checkPosition(code, expected) {
  const dom = await evaluate(`(() => {
    const items = [...document.querySelectorAll('.cell[data-value], .arrow[data-value]')];
    return {moves: items.map((e) => ({move: e.dataset.move, value: e.dataset.value,
                                      distance: e.dataset.distance})),
            status: document.getElementById('status').textContent, state: document.body.dataset.state};
  })()`);
  if (!check(dom.state === 'ready', `${code}: state ${dom.state} (${dom.status})`)) return;
  check(dom.moves.length === expected.moves.length,
        `${code}: ${dom.moves.length} moves shown, native ${expected.moves.length}`);
  const shown = new Map(dom.moves.map((m) => [m.move, m]));
  for (const m of expected.moves) {
    const got = shown.get(m.move);
    const distance = m.distance === undefined ? undefined : String(m.distance);
    check(got && got.value === m.value && got.distance === distance,
          `${code}: ${m.move} shows ${JSON.stringify(got)}, native ${m.value} ${distance}`);
  }
  const value = expected.distance > 0 ? `${expected.value} in ${expected.distance}` : expected.value;
  check(dom.status.includes(`${value} for ${expected.to_move}`),
        `${code}: status '${dom.status}', native ${value} for ${expected.to_move}`);
}

// A board code of a random legal midgame position (seeded).
const randomBoard = (stones, seed) => encode(midgameGrid(stones, seed));

async function main() {
  const {base} = await startNginx();
  const browser = await startBrowser(chromium, path.join(outDir, 'profile'), run);
  page = browser.page;
  await page('Emulation.setDeviceMetricsOverride', {width: 1000, height: 900, deviceScaleFactor: 1,
                                                    mobile: false});
  // 1. The empty board from the static slices: the first answer's time (page load included).
  const started = Date.now();
  await page('Page.navigate', {url: `${base}/#0`});
  await waitFor(`document.body.dataset.state === 'ready' && document.body.dataset.code === '0'`,
                'the empty board');
  console.log(`empty board answered from static slices in ${Date.now() - started} ms (page load included)`);
  check((await evaluate('document.body.dataset.source')) === 'static', 'static mode from config.json');
  const empty = await lookup('0');
  await checkPosition('0', empty);
  // 2. Slice positions: one stone to rotate and to place, two stones to rotate.
  const oneRotate = empty.moves[5].child;
  const oneRotateAnswer = await lookup(oneRotate);
  const onePlace = oneRotateAnswer.moves[3].child;
  const onePlaceAnswer = await lookup(onePlace);
  const twoRotate = onePlaceAnswer.moves[onePlaceAnswer.moves.length - 1].child;
  for (const [code, answer] of [[oneRotate, oneRotateAnswer], [onePlace, onePlaceAnswer],
                                [twoRotate, await lookup(twoRotate)]]) {
    await show(code);
    await checkPosition(code, answer);
  }
  // Playing a move by clicking: the page moves to its child.
  await show(onePlace);
  const firstMove = onePlaceAnswer.moves[0];
  await click(`.cell[data-move="${firstMove.move}"]`);
  await waitFor(`document.body.dataset.code === ${JSON.stringify(firstMove.child)}`, 'a click to play');
  // 3. Positions in neither the slices nor the solver's range say so.
  const five = randomBoard(5, 3);
  await evaluate(`location.hash = '#${five}'`);
  await waitFor(`document.body.dataset.state === 'error'`, 'the error for 5 stones');
  const why = await evaluate(`document.getElementById('status').textContent`);
  check(/slice-6\.pentago/.test(why) && /18 or more stones/.test(why), `5 stones: '${why}'`);

  // The 2013 benchmark board (18 stones), alone on the machine's cores: the first midgame
  // solve of the page, its workspace allocated on the way.
  const benchmark = '274440791932540184';
  const t0 = Date.now();
  await show(benchmark);
  const threads = await evaluate('document.body.dataset.threads');
  check(Number(threads) > 1, `threads of the isolated page: ${threads}`);
  console.log(`18-stone benchmark board ${benchmark} solved in Chromium in ${Date.now() - t0} ms ` +
              `(values and distances, ${threads} threads)`);
  await checkPosition(benchmark, await lookup(benchmark));

  // Moving on during a solve cancels it: the next position (the empty board) is shown at once,
  // and the cancelled solve's answer never replaces it.
  const slow = randomBoard(18, 99);
  await evaluate(`location.hash = '#${slow}'`);
  await waitFor(`/solving in this browser/.test(document.getElementById('status').textContent)`,
                'progress of a solve');
  const t1 = Date.now();
  await show('0');
  check(Date.now() - t1 < 4000, `the empty board after a cancelled solve took ${Date.now() - t1} ms`);
  await new Promise((r) => setTimeout(r, 1500));
  check((await evaluate('document.body.dataset.code')) === '0', 'the cancelled solve stayed cancelled');

  // 4. Random 18-24 stone positions solved in WebAssembly against the native solver.
  const codes = [];
  for (let i = 0; i < 21; i++) codes.push(randomBoard(18 + (i % 7), 100 + i));
  const natives = codes.map((code) => lookup(code));
  let solveMs = 0;
  for (let i = 0; i < codes.length; i++) {
    const t = Date.now();
    await show(codes[i]);
    if (i % 7 === 0) solveMs += Date.now() - t;
    await checkPosition(codes[i], await natives[i]);
  }
  console.log(`18-stone positions: ${(solveMs / 3).toFixed(0)} ms each in Chromium on average ` +
              '(with distances, while pentago-lookup ran beside)');

  // 5. The page plays a game against itself from a 22-stone position; no move goes from a
  //    win to a non-win, and the last position is over.
  // A decided start that takes a few turns (a win in 3 or more), so the game is not a
  // single five.
  let start = null;
  let startAnswer = null;
  for (let seed = 1; seed < 60 && !start; seed++) {
    const code = randomBoard(22, seed);
    const a = await lookup(code);
    if (a.value !== 'tie' && a.distance >= 3) [start, startAnswer] = [code, a];
  }
  if (!check(start, 'a 22-stone start decided in 3 or more turns')) throw new Error('no start');
  await show(start);
  await evaluate(`document.getElementById('side').value = 'none'`);
  await click('#play-start');
  await waitFor(`document.body.dataset.game === 'over'`, 'the end of the self-played game', 120);
  const moves = await evaluate(`[...document.querySelectorAll('#moves li')].map((e) => ({
      value: e.dataset.value, distance: e.dataset.distance, mistake: e.dataset.mistake,
      text: e.textContent}))`);
  // Both play perfectly: the game lasts exactly the start's distance in turns (two moves per
  // turn, one for a five by placing).
  const turns = moves.filter((m) => !/ q[0-3] c?cw:/.test(m.text)).length;
  check(turns === startAnswer.distance, `the game took ${turns} turns, distance ${startAnswer.distance}`);
  console.log(`self-played game from ${start}: ${moves.length} moves, ending '${
      await evaluate(`document.getElementById('status').textContent`)}'`);
  let winner = startAnswer.value === 'win' ? startAnswer.to_move : null;
  for (const [i, m] of moves.entries()) {
    check(!m.mistake, `move ${i + 1} gave a value away: ${m.text}`);
    if (winner && m.text.startsWith(winner)) check(m.value === 'win', `move ${i + 1} left the win: ${m.text}`);
  }
  // A game as black: a placement and a rotation by clicking, the computer's answer, then undo
  // back to the start.
  await evaluate(`document.getElementById('play-stop').click()`);
  const human = randomBoard(20, 11);  // 20 stones: black to place
  await show(human);
  await evaluate(`document.getElementById('side').value = 'black'`);
  await click('#play-start');
  const cell = await evaluate(`document.querySelector('.cell[data-value]').dataset.move`);
  await click(`.cell[data-move="${cell}"]`);
  await waitFor(`document.body.dataset.state === 'ready' && document.body.dataset.code.endsWith('m')`,
                'the placement to rotate');
  const arrow = await evaluate(`(document.querySelector('.arrow[data-value]') || {dataset: {}}).dataset.move`);
  if (arrow) {
    await click(`.arrow[data-move="${arrow}"]`);
    // The computer answers with its placement and rotation: four moves in the list, then it is
    // black's turn again (or the game is over).
    await waitFor(`document.body.dataset.plies === '4' && ['human', 'over'].includes(document.body.dataset.game)`,
                  'the computer to answer');
    const who = await evaluate(`[...document.querySelectorAll('#moves li')].map((e) => e.dataset.who).join(' ')`);
    check(who === 'black black white white', `the moves of the game: ${who}`);
    await click('#undo');
    await waitFor(`document.body.dataset.code === ${JSON.stringify(human)} && document.body.dataset.plies === '0'`,
                  'undo to go back to the start');
  }
  await evaluate(`document.getElementById('play-stop').click()`);

  // The best line from a decided 26-stone position, built answer by answer and played out to
  // the end of the game.
  let decided = null;
  for (let seed = 1; seed < 40 && !decided; seed++) {
    const a = await lookup(randomBoard(26, seed));
    if (a.value !== 'tie' && a.distance >= 2) decided = a;
  }
  if (check(decided, 'a decided 26-stone position')) {
    await show(decided.board);
    await click('#best-line');
    await waitFor(`document.body.dataset.line !== undefined`, 'the best line');
    const items = await evaluate(`document.querySelectorAll('#line li a').length`);
    check(items >= 2 * decided.distance - 1 && items <= 2 * decided.distance,
          `a line of ${items} moves for a distance of ${decided.distance} turns`);
    await waitFor(`/Game over/.test(document.getElementById('status').textContent)`, 'the line played out');
  }

  // The page without the isolation headers: the one-thread module.
  await page('Page.navigate', {url: `${base}/plain/#${benchmark}`});
  const t2 = Date.now();
  await waitFor(`document.body.dataset.state === 'ready' && document.body.dataset.code === '${benchmark}'`,
                'the benchmark board on the page without isolation');
  const plainThreads = await evaluate('document.body.dataset.threads');
  check(plainThreads === '1', `threads of the page without isolation: ${plainThreads}`);
  console.log(`18-stone benchmark board on the page without isolation: ${Date.now() - t2} ms ` +
              `(${plainThreads} thread, page load included)`);
  await checkPosition(benchmark, await lookup(benchmark));
  await show(codes[5]);
  await checkPosition(codes[5], await natives[5]);
  await show('0');
  await checkPosition('0', empty);

  // Hints off: moves are not coloured.
  await evaluate(`(() => { const box = document.getElementById('hints'); box.checked = false;
                   box.dispatchEvent(new Event('change')); })()`);
  await show(codes[3]);
  const painted = await evaluate(`(() => { const w = document.querySelector('.cell.win, .cell.loss, .cell.tie');
      const e = document.querySelector('.cell:not(.black):not(.white):not([data-value])') ||
                document.createElement('button');
      return !w || getComputedStyle(w).backgroundColor !== getComputedStyle(document.querySelector('.swatch.win')).backgroundColor; })()`);
  check(painted, 'hints off: no move painted in the win colour');

  check(browser.tools.exceptions.length === 0,
        `page exceptions: ${JSON.stringify(browser.tools.exceptions.map((e) => e.text))}`);
  await browser.tools.send('Browser.close').catch(() => {});
  if (failures.length) {
    console.log(`${failures.length} static browser checks failed`);
    finish(1);
  }
  console.log('all static browser checks passed');
  finish(0);
}

main().catch((failure) => {
  console.log('FAIL: ' + (failure.stack || failure));
  finish(1);
});
