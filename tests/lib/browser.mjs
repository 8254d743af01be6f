// Shared steps of the node tests that drive headless Chromium (tests/serve/browser_test.mjs,
// tests/web/static_browser_test.mjs) and of the other node tests: finding a program, counting
// failed checks, killing the children a test started when it ends or overruns, the DevTools
// protocol over Chromium's pipe (--remote-debugging-pipe: fd 3 in, fd 4 out, NUL-separated
// JSON), starting the browser with the flags a closed network needs, and evaluating, waiting
// and clicking on the page.
import {execFileSync, spawn} from 'node:child_process';

// The first of `names` found on PATH (or as a path), or null.
export function findProgram(names) {
  for (const name of names.filter(Boolean)) {
    try {
      return execFileSync('sh', ['-c', `command -v "${name}"`]).toString().trim();
    } catch {
      // not this one
    }
  }
  return null;
}

// Checks that print one FAIL line each and are counted; children killed at the end, or when the
// test takes longer than `seconds` (which fails it).
export class TestRun {
  constructor(name, seconds) {
    this.failures = [];
    this.children = [];
    setTimeout(() => {
      console.log(`FAIL: the ${name} took longer than ${seconds} s`);
      this.finish(1);
    }, seconds * 1000).unref();
  }
  check(condition, message) {
    if (!condition) {
      this.failures.push(message);
      console.log('FAIL: ' + message);
    }
    return condition;
  }
  finish(code) {
    for (const child of this.children) child.kill('SIGKILL');
    process.exit(code);
  }
}

export class DevTools {
  constructor(input, output) {
    this.input = input;
    this.next = 1;
    this.pending = new Map();
    this.exceptions = [];
    let buffer = '';
    output.on('data', (chunk) => {
      buffer += chunk.toString();
      let end;
      while ((end = buffer.indexOf('\0')) >= 0) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        this.receive(message);
      }
    });
  }
  receive(message) {
    if (message.id && this.pending.has(message.id)) {
      const {resolve, reject, method} = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`));
      else resolve(message.result);
    } else if (message.method === 'Runtime.exceptionThrown') {
      this.exceptions.push(message.params.exceptionDetails);
    }
  }
  send(method, params = {}, sessionId = undefined) {
    const id = this.next++;
    const message = {id, method, params};
    if (sessionId) message.sessionId = sessionId;
    this.input.write(JSON.stringify(message) + '\0');
    return new Promise((resolve, reject) => this.pending.set(id, {resolve, reject, method}));
  }
}

// Starts headless Chromium with a new profile folder and one page; returns {browser, tools,
// page}, page(method, params) sending to that page.
export async function startBrowser(chromium, profile, run) {
  const browser = spawn(chromium, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--disable-dev-shm-usage', `--user-data-dir=${profile}`, '--remote-debugging-pipe',
    'about:blank'], {stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe']});
  run.children.push(browser);
  let errors = '';
  browser.stderr.on('data', (chunk) => { errors += chunk; });
  browser.on('exit', (code) => {
    if (code) console.log(`chromium exited with ${code}: ${errors.slice(-2000)}`);
  });
  const tools = new DevTools(browser.stdio[3], browser.stdio[4]);
  const {targetId} = await tools.send('Target.createTarget', {url: 'about:blank'});
  const {sessionId} = await tools.send('Target.attachToTarget', {targetId, flatten: true});
  const page = (method, params) => tools.send(method, params, sessionId);
  await page('Page.enable');
  await page('Runtime.enable');
  return {browser, tools, page};
}

// evaluate(expression) on the page (awaiting a promise), waitFor(expression, what, seconds)
// until it is true (an exception counts as "not yet"; a timeout is a failed check), and
// click(selector) with a real mouse click at the element's centre. getPage() gives the page.
export function pageActions(getPage, run, defaultSeconds) {
  async function evaluate(expression) {
    const result = await getPage()('Runtime.evaluate', {expression, returnByValue: true,
                                                        awaitPromise: true});
    if (result.exceptionDetails) throw new Error(`${expression}: ${result.exceptionDetails.text}`);
    return result.result.value;
  }
  async function waitFor(expression, what, seconds = defaultSeconds) {
    const deadline = Date.now() + seconds * 1000;
    while (Date.now() < deadline) {
      if (await evaluate(expression).catch(() => false)) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    run.check(false, `timed out waiting for ${what}`);
    return false;
  }
  async function click(selector) {
    const box = await evaluate(`(() => { const r = document.querySelector(${
        JSON.stringify(selector)}).getBoundingClientRect();
        return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`);
    for (const type of ['mousePressed', 'mouseReleased'])
      await getPage()('Input.dispatchMouseEvent', {type, x: box.x, y: box.y, button: 'left',
                                                   clickCount: 1});
  }
  return {evaluate, waitFor, click};
}
