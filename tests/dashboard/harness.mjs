// The browser-test harness shared by browser.mjs (embedded demo scenario) and cluster.mjs (a real
// control plane): a tiny TAP runner, assertions, Chromium launch, pages that record what the
// dashboard requested and every script error, and the waits and screenshots the cases share.
import { createRequire } from 'node:module';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');
const require = createRequire(path.join(repo, 'examples/dashboard/package.json'));
const { chromium } = require('playwright-core');

/** The value after `--name` on the command line, or `fallback`. */
export function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

export class AssertionError extends Error {}
export function assert(cond, message) {
  if (!cond) throw new AssertionError(message);
}
export function assertEq(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new AssertionError(`${what}: got ${a}, want ${e}`);
}

// No sandbox: CI runs as root in a container; no GPU, QUIC or background traffic that could make
// a run depend on the machine.
export const launchArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** Launches the Chromium at `executablePath` headless; the caller closes it. */
export function launchBrowser(executablePath) {
  return chromium.launch({ executablePath, headless: true, args: launchArgs });
}

/**
 * Pages of one browser that record every request method (requestMethods: method -> count; otherRequests:
 * "METHOD /path" of each request that was not a GET) and
 * every script error, console error or CSP violation (pageErrors) across all pages. Network noise of a server
 * that is restarting or a stream that drops is not an error of the page.
 */
export function pageFactory(browser) {
  const requestMethods = new Map();
  // "METHOD /path" of every request that was not a GET (the what-if page's compute-only POST).
  const otherRequests = [];
  const pageErrors = [];
  async function newPage(colorScheme = 'light') {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme, deviceScaleFactor: 1 });
    // A Content-Security-Policy violation (the server sends default-src 'self') becomes a page
    // error, named as such, whatever Chromium writes to the console about it.
    await ctx.addInitScript(() => document.addEventListener('securitypolicyviolation',
      (e) => console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`)));
    const p = await ctx.newPage();
    p.on('request', (r) => {
      requestMethods.set(r.method(), (requestMethods.get(r.method()) ?? 0) + 1);
      if (r.method() !== 'GET') otherRequests.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    p.on('pageerror', (e) => pageErrors.push(String(e)));
    p.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource|EventSource|ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_INCOMPLETE_CHUNKED/.test(m.text())) pageErrors.push(m.text());
    });
    return { ctx, p };
  }
  return { newPage, requestMethods, otherRequests, pageErrors };
}

/** Opens `#/hash` of the dashboard at `baseUrl` and waits for the view's heading. */
export async function goto(p, baseUrl, hash) {
  await p.goto(`${baseUrl}/#/${hash}`);
  await p.waitForSelector('main h1', { timeout: 15000 });
}

/** Waits until the live indicator says Live (the EventSource is open). */
export async function waitLive(p, timeout = 15000) {
  await p.waitForFunction(() => document.querySelector('.live')?.getAttribute('data-state') === 'live', null, { timeout });
}

/** Marks the current document, so that sameDocument() can tell whether the page was reloaded. */
export async function markDocument(p) {
  await p.evaluate(() => {
    window.__sameDocument = 'yes';
  });
}
export async function assertSameDocument(p) {
  assertEq(await p.evaluate(() => window.__sameDocument), 'yes', 'same document (no reload)');
}

/** Saves a viewport screenshot as DIR/NAME.png; fails when the file is (nearly) empty. */
export async function shot(p, dir, name) {
  const file = path.join(dir, `${name}.png`);
  await p.waitForTimeout(150); // let the last layout settle (fonts, bars)
  await p.screenshot({ path: file, fullPage: false });
  assert(statSync(file).size > 10000, `screenshot ${file} is (nearly) empty`);
}

/** Removes FAILED-<n>.png of an earlier run from `dir` (they would mislead whoever reads the artifacts). */
export function removeFailureShots(dir, prefix = '') {
  const re = new RegExp(`^${prefix}FAILED-\\d+\\.png$`);
  for (const f of readdirSync(dir)) if (re.test(f)) rmSync(path.join(dir, f));
}

/**
 * Runs `tests` ({name, fn}) in order and prints TAP. `setup` runs first (a failure there fails
 * every case); after a failing case `failPage()` (when it returns a page) is photographed as
 * DIR/<prefix>FAILED-<n>.png. `teardown` always runs. Sets process.exitCode to 1 on any failure.
 */
export async function runTap(tests, { setup, teardown, failPage, shotDir, failPrefix = '' }) {
  console.log('TAP version 13');
  console.log(`1..${tests.length}`);
  let failed = 0;
  try {
    await setup();
  } catch (e) {
    tests.forEach((t, i) => console.log(`not ok ${i + 1} - ${t.name}\n  # setup failed: ${String(e.stack ?? e).split('\n').join('\n  # ')}`));
    await teardown();
    process.exitCode = 1;
    return;
  }
  for (const [i, t] of tests.entries()) {
    try {
      await t.fn();
      console.log(`ok ${i + 1} - ${t.name}`);
    } catch (e) {
      failed++;
      console.log(`not ok ${i + 1} - ${t.name}`);
      console.log(String(e instanceof AssertionError ? e.message : e.stack ?? e).split('\n').map((l) => `  # ${l}`).join('\n'));
      try {
        await failPage()?.screenshot({ path: path.join(shotDir, `${failPrefix}FAILED-${i + 1}.png`) });
      } catch {
        // The page itself may be gone.
      }
    }
  }
  await teardown();
  console.log(`# screenshots in ${shotDir}`);
  if (failed) process.exitCode = 1;
}
