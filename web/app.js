// The pentago explorer: draws the position named by the URL hash, asks for the values of its
// moves and colours every empty cell (to place) or arrow (to rotate) by them, with "win in N" /
// "loss in N" where the distance to the end is known, plays out the best line on request, and
// plays games against perfect play. Answers come from pentago-serve's JSON API, or, when a
// config.json beside the page names static slice files and no API, from the WebAssembly engine
// in a Web Worker (worker.js). Moves navigate by setting the hash, so back/forward and
// permalinks come from the browser.
'use strict';

const boardElement = document.getElementById('board');
const statusElement = document.getElementById('status');
const summaryElement = document.getElementById('summary');
const codeInput = document.getElementById('code');
const permalink = document.getElementById('permalink');
const lineButton = document.getElementById('best-line');
const lineElement = document.getElementById('line');
const arrows = Array.from(document.querySelectorAll('.arrow'));
const cells = [];  // cells[y][x], y = 0 the bottom row (row f), x = 0 the left column

// Cell names as the API writes them: row letter a..f from the top, column digit 1..6.
function cellName(x, y) {
  return 'abcdef'[5 - y] + String(x + 1);
}

for (let y = 0; y < 6; y++) cells.push([]);
for (let row = 0; row < 6; row++) {
  for (let x = 0; x < 6; x++) {
    const y = 5 - row;
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell';
    cell.dataset.move = cellName(x, y);
    cell.setAttribute('aria-label', cellName(x, y));
    cell.style.gridColumn = String(x + 1 + (x >= 3 ? 1 : 0));
    cell.style.gridRow = String(row + 1 + (row >= 3 ? 1 : 0));
    cell.addEventListener('click', () => play(cell.dataset.move));
    boardElement.appendChild(cell);
    cells[y][x] = cell;
  }
}
for (const arrow of arrows) {
  arrow.dataset.turn = arrow.title;  // "turn the upper left quadrant clockwise"
  arrow.addEventListener('click', () => play(arrow.dataset.move));
}

// Decodes a decimal board code: quadrant q (0 lower left, 1 upper left, 2 lower right,
// 3 upper right) is a 16-bit radix-3 number whose digit 3*(x%3) + y%3 is 0 empty, 1 black,
// 2 white. Returns grid[y][x] in {0, 1, 2}, or null for a code that is not a board.
function decodeBoard(code) {
  const match = /^(\d+)m?$/.exec(code);
  if (!match) return null;
  let value = BigInt(match[1]);
  if (value >= 1n << 64n) return null;
  const grid = [0, 1, 2, 3, 4, 5].map(() => [0, 0, 0, 0, 0, 0]);
  for (let q = 0; q < 4; q++) {
    let packed = Number((value >> BigInt(16 * q)) & 0xffffn);
    const qx = 3 * (q >> 1), qy = 3 * (q & 1);
    for (let i = 0; i < 9; i++) {
      grid[qy + (i % 3)][qx + Math.floor(i / 3)] = packed % 3;
      packed = Math.floor(packed / 3);
    }
  }
  return grid;
}

// Cells of every five in a row (rows, columns, diagonals) as "x,y" strings.
function fiveInARow(grid) {
  const found = new Set();
  const directions = [[1, 0], [0, 1], [1, 1], [1, -1]];
  for (let y = 0; y < 6; y++) {
    for (let x = 0; x < 6; x++) {
      for (const [dx, dy] of directions) {
        const ex = x + 4 * dx, ey = y + 4 * dy;
        if (ex < 0 || ex > 5 || ey < 0 || ey > 5) continue;
        const colour = grid[y][x];
        if (!colour) continue;
        let line = true;
        for (let k = 1; k < 5 && line; k++) line = grid[y + k * dy][x + k * dx] === colour;
        if (line) for (let k = 0; k < 5; k++) found.add(`${x + k * dx},${y + k * dy}`);
      }
    }
  }
  return found;
}

const playerName = (player) => (player === 1 || player === 'white' ? 'white' : 'black');

let current = null;  // {code, answer} once the position shown is answered
let requestId = 0;
let retryTimer = null;

// ---- Where answers come from: the API (as served by pentago-serve, or at config.json's
// "api"), or the worker over static slice files (config.json's "slices", no "api").
let apiBase = '/api/v1';
let staticSlices = null;  // base URL of the slice files in static mode
let midgameFrom = 18;
let worker = null;
let workerBusy = null;  // {id, resolve} of the request the worker is answering
let workerNext = 1;
let progressHandler = null;

function startWorker() {
  worker = new Worker('worker.js');
  worker.postMessage({type: 'init', slices: staticSlices, midgame: midgameFrom});
  worker.onmessage = ({data}) => {
    if (data.threads) document.body.dataset.threads = String(data.threads);
    if (!workerBusy || data.id !== workerBusy.id) return;
    if (data.progress !== undefined) {
      if (progressHandler) progressHandler(data.progress);
      return;
    }
    const {resolve} = workerBusy;
    workerBusy = null;
    resolve(data);
  };
  worker.onerror = (event) => {
    if (!workerBusy) return;
    const {resolve} = workerBusy;
    workerBusy = null;
    resolve({error: `the engine failed: ${event.message || 'no WebAssembly?'}`});
  };
}

// Answers `code` like the API: {status, body}; a request still running in the worker when
// another starts is cancelled (the worker is replaced: a solve cannot be interrupted).
async function fetchAnswer(code, onProgress) {
  if (!staticSlices) {
    const response = await fetch(apiBase + '/position/' + encodeURIComponent(code));
    const body = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
    return {status: response.status, body, retryAfter: response.headers.get('Retry-After')};
  }
  if (workerBusy) {
    worker.terminate();
    workerBusy.resolve({cancelled: true});
    workerBusy = null;
    startWorker();
  }
  progressHandler = onProgress;
  const data = await new Promise((resolve) => {
    workerBusy = {id: workerNext++, resolve};
    worker.postMessage({type: 'answer', id: workerBusy.id, code});
  });
  if (data.cancelled) return {status: 0, cancelled: true};
  if (data.error) return {status: /^bad board|impossible|invalid|empty board/.test(data.error) ? 400 : 422,
                          body: {error: data.error}};
  return {status: 200, body: data.answer};
}

// Reads config.json beside the page, if any: {"slices": URL, "api": URL, "midgame": N}.
async function configure() {
  try {
    const response = await fetch('config.json', {cache: 'no-cache'});
    if (!response.ok) return;
    const config = await response.json();
    if (config.api) {
      apiBase = String(config.api).replace(/\/$/, '');
    } else if (config.slices) {
      staticSlices = new URL(String(config.slices).replace(/\/?$/, '/'), location.href).href;
      if (Number(config.midgame) >= 15) midgameFrom = Number(config.midgame);
      startWorker();
    }
  } catch {
    // no config: pentago-serve's API beside the page
  }
  document.body.dataset.source = staticSlices ? 'static' : 'api';
  const stats = document.getElementById('stats');
  if (stats && staticSlices) stats.hidden = true;
}

// The board named by the hash; null when the hash is not percent-encoded text (e.g. "#%").
function currentCode() {
  try {
    return decodeURIComponent(location.hash.slice(1)).trim() || '0';
  } catch {
    return null;
  }
}

function drawBoard(grid, previousGrid) {
  const five = grid ? fiveInARow(grid) : new Set();
  // The last stone is marked only when this board is the previous one plus a placement.
  const count = (g) => (g ? g.flat().filter((c) => c).length : -1);
  if (count(grid) !== count(previousGrid) + 1) previousGrid = null;
  for (let y = 0; y < 6; y++) {
    for (let x = 0; x < 6; x++) {
      const cell = cells[y][x];
      const stone = grid ? grid[y][x] : 0;
      cell.className = 'cell' + (stone === 1 ? ' black' : stone === 2 ? ' white' : '');
      if (five.has(`${x},${y}`)) cell.classList.add('five');
      if (previousGrid && stone && !previousGrid[y][x]) cell.classList.add('last');
      cell.disabled = true;
      cell.removeAttribute('title');
      delete cell.dataset.value;
      delete cell.dataset.distance;
    }
  }
  for (const arrow of arrows) {
    arrow.className = 'arrow';
    arrow.disabled = true;
    arrow.title = arrow.dataset.turn;
    delete arrow.dataset.value;
    delete arrow.dataset.distance;
  }
}

function setStatus(state, text) {
  document.body.dataset.state = state;
  statusElement.textContent = text;
}

// "win in 3" (turns to the end, where the answer knows them), else the bare value.
function valueText(entry) {
  const turns = entry.distance;
  if (turns === undefined || turns === null || turns <= 0 || entry.value === 'tie') return entry.value;
  return `${entry.value} in ${turns}`;
}

// Seconds a solve takes by stone count on a 2-core machine (midgame solver from 15 stones;
// from 18 stones with distances, a few times the plain solve at most).
function expectedSeconds(stones) {
  const seconds = staticSlices ? {17: 20, 18: 5, 19: 2} : {15: 45, 16: 15, 17: 5, 18: 5, 19: 2};
  return stones < 15 ? 45 : seconds[stones] || 1;
}

function sourceText(answer) {
  if (answer.source === 'database' && answer.slice !== undefined && answer.slice >= 0)
    return `database slice ${answer.slice}`;
  if (answer.source === 'midgame') return staticSlices ? 'midgame solver in this browser' : 'midgame solver';
  return answer.source === 'rules' ? 'the rules' : String(answer.source);
}

function showAnswer(code, answer) {
  current = {code, answer};
  const grid = decodeBoard(answer.board);
  drawBoard(grid, previousGrid);
  const mover = playerName(answer.to_move);
  const counts = {win: 0, tie: 0, loss: 0};
  // A partial answer (moves null): the value is known, the moves are not.
  const moves = answer.moves || [];
  for (const move of moves) {
    counts[move.value]++;
    const target = answer.phase === 'rotate' ?
        arrows.find((arrow) => arrow.dataset.move === move.move) :
        document.querySelector(`.cell[data-move="${move.move}"]`);
    if (!target) continue;
    target.classList.add(move.value, 'playable');
    target.dataset.value = move.value;
    target.dataset.child = move.child;
    if (move.distance !== undefined) target.dataset.distance = String(move.distance);
    target.title = `${target.dataset.turn || move.move}: ${valueText(move)}`;
    target.disabled = false;
  }
  const elapsed = `${Number(answer.elapsed_ms).toFixed(1)} ms`;
  lineButton.disabled = !moves.length;
  if (answer.moves === null) {
    const action = answer.phase === 'rotate' ? 'to rotate' : 'to place';
    setStatus('partial', `${mover} ${action}: ${valueText(answer)} for ${mover} ` +
                         `(${sourceText(answer)}, ${elapsed})`);
    summaryElement.textContent = `${answer.stones} stones; no moves coloured: ` +
        (answer.moves_unknown || 'their values are not in the data');
  } else if (!moves.length) {
    const winner = answer.value === 'win' ? mover : answer.value === 'loss' ?
        playerName(mover === 'black' ? 1 : 0) : null;
    setStatus('ready', `Game over: ${winner ? winner + ' wins' : 'tie'} (${sourceText(answer)}, ${elapsed})`);
    summaryElement.textContent = '';
  } else {
    const action = answer.phase === 'rotate' ? 'to rotate' : 'to place';
    setStatus('ready', `${mover} ${action}: ${valueText(answer)} for ${mover} ` +
                       `(${sourceText(answer)}, ${elapsed})`);
    summaryElement.textContent = `${answer.stones} stones; ${moves.length} moves: ` +
        `${counts.win} win, ${counts.tie} tie, ${counts.loss} loss`;
  }
  document.body.dataset.code = answer.board;
  if (document.activeElement !== codeInput) codeInput.value = answer.board;
  permalink.href = '#' + answer.board;
  if (code !== answer.board) history.replaceState(null, '', '#' + answer.board);
}

let previousGrid = null;

async function load() {
  const code = currentCode();
  const id = ++requestId;
  clearTimeout(retryTimer);
  if (code === null) {
    current = null;
    drawBoard(null, null);
    summaryElement.textContent = '';
    setStatus('error', `not a board: ${location.hash}`);
    return;
  }
  const grid = decodeBoard(code);
  previousGrid = current ? decodeBoard(current.answer.board) : null;
  drawBoard(grid, previousGrid);
  summaryElement.textContent = '';
  const stones = grid ? grid.flat().filter((c) => c).length : 0;
  // Positions with 15 or more stones run the midgame solver unless already cached.
  const slow = setTimeout(() => {
    if (id === requestId)
      setStatus('loading', stones >= 15 ?
          `computing, about ${expectedSeconds(stones)} s (midgame solver)…` : 'computing…');
  }, 150);
  setStatus('loading', 'loading…');
  try {
    const started = Date.now();
    const got = await fetchAnswer(code, (layers) => {
      if (id === requestId)
        setStatus('loading', `solving in this browser: ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
                             `${layers} layers…`);
    });
    if (id !== requestId || got.cancelled) return;
    const body = got.body;
    if (got.status === 503) {
      const seconds = Number(got.retryAfter) || 2;
      setStatus('loading', `server busy: retrying in ${seconds} s`);
      retryTimer = setTimeout(() => id === requestId && load(), seconds * 1000);
      return;
    }
    if (got.status !== 200) {
      current = null;
      setStatus('error', body.error || `HTTP ${got.status}`);
      return;
    }
    showAnswer(code, body);
    afterAnswer(body);
  } catch (failure) {
    if (id === requestId) setStatus('error', `cannot reach the server: ${failure.message}`);
  } finally {
    clearTimeout(slow);
  }
}

// Plays the move named `name` (a cell or "q2 cw") from the position shown.
function play(name) {
  if (!current || !current.answer.moves) return;
  const move = current.answer.moves.find((m) => m.move === name);
  if (!move) return;
  if (game && computerToMove(current.answer)) return;  // the computer's turn
  if (game) record(current.answer, move);
  location.hash = move.child;
}

// The best line: asks the API for it, lists its moves (each a link to its position) and
// plays it out, one position every 700 ms, unless the user moves meanwhile.
let lineTimer = null;
async function showBestLine() {
  if (!current) return;
  const start = current.answer.board;
  clearTimeout(lineTimer);
  lineElement.replaceChildren();
  lineElement.hidden = false;
  const stones = current.answer.stones;
  const note = document.createElement('li');
  note.className = 'muted';
  note.textContent = stones >= 15 ?
      `computing the line, about ${expectedSeconds(stones)} s per position below 18 stones…` :
      'computing the line…';
  lineElement.appendChild(note);
  let body;
  try {
    if (staticSlices) {
      // The line answer by answer: each next position is the first (best) move's child.
      body = {line: [current.answer]};
      for (let last = current.answer; last.moves && last.moves.length;) {
        const got = await fetchAnswer(last.moves[0].child);
        if (got.cancelled) return;
        if (got.status !== 200) throw new Error(got.body.error);
        body.line.push(last = got.body);
      }
    } else {
      const response = await fetch(apiBase + '/position/' + encodeURIComponent(start) + '/line');
      body = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
      if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    }
  } catch (failure) {
    note.textContent = `no line: ${failure.message}`;
    return;
  }
  if (!current || current.answer.board !== start) return;
  lineElement.replaceChildren();
  const line = body.line;
  for (let i = 1; i < line.length; i++) {
    const parent = line[i - 1];
    const move = (parent.moves || []).find((m) => m.child === line[i].board);
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = '#' + line[i].board;
    const who = playerName(parent.to_move);
    link.textContent = `${who} ${move ? move.move : '?'}`;
    item.appendChild(link);
    item.append(move ? ` (${valueText(move)} for ${who})` : '');
    lineElement.appendChild(item);
  }
  const end = document.createElement('li');
  end.className = 'muted';
  const last = line[line.length - 1];
  end.textContent = last.moves === null ? `stops: ${last.moves_unknown}` : 'game over';
  lineElement.appendChild(end);
  document.body.dataset.line = String(line.length);
  // Plays the line out while the shown position is the one the line reached so far.
  const step = (i) => {
    if (i >= line.length || !current || current.answer.board !== line[i - 1].board) return;
    location.hash = line[i].board;
    lineTimer = setTimeout(() => step(i + 1), 700);
  };
  lineTimer = setTimeout(() => step(1), 700);
}
lineButton.addEventListener('click', showBestLine);

document.getElementById('back').addEventListener('click', () => history.back());
document.getElementById('forward').addEventListener('click', () => history.forward());
document.getElementById('restart').addEventListener('click', () => { location.hash = '0'; });
document.getElementById('goto').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = codeInput.value.trim();
  if (text) location.hash = encodeURIComponent(text);
  codeInput.blur();
});

// ---- A game against perfect play: the computer answers with the first of the sorted moves
// (the fastest win, else a move keeping the tie, else the slowest loss); the move list gives
// the value of each move for its player and marks a move that gave away a win or a tie.
let game = null;  // {human: 'black' | 'white' | 'none', entries: [...]}
let computerTimer = null;
const movesElement = document.getElementById('moves');
const sideSelect = document.getElementById('side');
const hintsBox = document.getElementById('hints');

function computerToMove(answer) {
  return game && (game.human === 'none' || playerName(answer.to_move) !== game.human);
}

// Notes a move of the game: who played it, its value for them, the best value they had.
function record(answer, move) {
  const best = answer.moves.length ? answer.moves[0].value : move.value;
  game.entries.push({before: answer.board, after: move.child, who: playerName(answer.to_move),
                     move: move.move, value: move.value, distance: move.distance, best});
  drawMoves();
}

function drawMoves() {
  movesElement.replaceChildren();
  if (!game) return;
  const rank = {loss: 0, tie: 1, win: 2};
  for (const entry of game.entries) {
    const item = document.createElement('li');
    item.dataset.value = entry.value;
    if (entry.distance !== undefined) item.dataset.distance = String(entry.distance);
    item.dataset.who = entry.who;
    let text = `${entry.who} ${entry.move}: ${valueText(entry)} for ${entry.who}`;
    if (rank[entry.value] < rank[entry.best]) {
      item.classList.add('mistake');
      item.dataset.mistake = 'true';
      text += entry.best === 'win' ? ' (gave away the win)' : ' (gave away the tie)';
    }
    item.textContent = text;
    movesElement.appendChild(item);
  }
  document.body.dataset.plies = String(game.entries.length);
}

function afterAnswer(answer) {
  clearTimeout(computerTimer);
  if (!game) return;
  if (answer.moves === null) {
    summaryElement.textContent += ' The computer cannot play on: the data ends here.';
    return;
  }
  if (!answer.moves.length) {
    document.body.dataset.game = 'over';
    return;
  }
  document.body.dataset.game = computerToMove(answer) ? 'computer' : 'human';
  if (!computerToMove(answer)) return;
  computerTimer = setTimeout(() => {
    if (!current || current.answer !== answer || !game) return;
    const move = answer.moves[0];
    record(answer, move);
    location.hash = move.child;
  }, 250);
}

function startGame() {
  game = {human: sideSelect.value, entries: []};
  document.body.dataset.mode = 'play';
  delete document.body.dataset.game;
  drawMoves();
  if (current) afterAnswer(current.answer);
}

document.getElementById('play-start').addEventListener('click', startGame);
document.getElementById('play-stop').addEventListener('click', () => {
  game = null;
  clearTimeout(computerTimer);
  delete document.body.dataset.mode;
  delete document.body.dataset.game;
  drawMoves();
});
document.getElementById('undo').addEventListener('click', () => {
  if (!game || !game.entries.length) return;
  clearTimeout(computerTimer);
  // Back to the position before the player's last placement (a watched game: before the
  // last placement), dropping the computer's answers to it.
  const placement = (entry) => !entry.before.endsWith('m') &&
                               (game.human === 'none' || entry.who === game.human);
  let entry;
  do entry = game.entries.pop(); while (game.entries.length && !placement(entry));
  drawMoves();
  location.hash = entry.before;
});
hintsBox.addEventListener('change', () => {
  document.body.dataset.hints = hintsBox.checked ? 'on' : 'off';
});

window.addEventListener('hashchange', load);
configure().then(load);
