// Measures each dashboard view in headless Chromium against a draforge-server serving a generated
// scenario: time to first render, DOM elements, scroll (or pan) frames per second, JS heap, and the
// bytes of the API answers the view fetched. bench/dashboard/run drives it; see there.
//
//   node bench/dashboard/measure.mjs --server BIN --static-dir DIR[,DIR2] --label NAME[,NAME2]
//        [--sizes 1000,10000] [--views overview,pools,...] [--chromium PATH]
//   node bench/dashboard/measure.mjs --url http://HOST:PORT --label NAME --sizes NODES
//        (measures a server already running; --sizes then only labels the lines)
//
// For each size it writes bench/server/gen_scenario.py's scenario of SIZE nodes x 8 devices,
// 2 x SIZE claims (20 pending) and pods, serves it with each static dir in turn and prints one TSV
// line per view. "First render" ends when the view's heading is up, no "Loading …" placeholder is
// left in it, and no API request (but the event stream) has been in flight for 300 ms: what a user
// waits for. Each view is loaded in a fresh page of one browser, the server's answers already cached
// by an unmeasured first load (the server computes each answer once per store generation). The
// server gets a catalog of one package of the scenario's DeviceClass, so the packages view (opened
// on that package) lists a row per node.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { arg, launchBrowser, repo } from '../../tests/dashboard/harness.mjs';
import { startServer } from '../../tests/dashboard/server.mjs';

const serverBin = arg('server', path.join(repo, 'build/examples/server/draforge-server'));
const staticDirs = arg('static-dir', path.join(repo, 'build/dashboard')).split(',');
const labels = arg('label', staticDirs.map((d) => path.basename(d)).join(',')).split(',');
const sizes = arg('sizes', '1000,10000').split(',').map(Number);
const views = arg('views', 'overview,pools,availability,packages?open=bench-gpu-1x,claims,graph,diagnostics').split(',');
const chromium = arg('chromium', '/usr/bin/chromium');
const kReadyTimeout = 180000;

async function measureView(browser, url, view) {
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const p = await ctx.newPage();
  const inflight = new Set();
  let lastActivity = Date.now();
  let apiRequests = 0;
  const isApi = (r) => r.url().includes('/api/v1/') && !r.url().includes('/api/v1/events');
  p.on('request', (r) => {
    if (!isApi(r)) return;
    inflight.add(r);
    apiRequests++;
    lastActivity = Date.now();
  });
  const done = (r) => {
    if (inflight.delete(r)) lastActivity = Date.now();
  };
  p.on('requestfinished', done);
  p.on('requestfailed', done);
  const cdp = await ctx.newCDPSession(p);
  await cdp.send('Performance.enable');

  const start = Date.now();
  await p.goto(`${url}/#/${view}`);
  for (;;) {
    const shown = await p.evaluate(() => {
      const main = document.querySelector('main');
      if (!main?.querySelector('h1')) return false;
      return ![...main.querySelectorAll('[role="status"]')].some((e) => /^Loading /.test(e.textContent ?? ''));
    });
    if (shown && inflight.size === 0 && Date.now() - lastActivity >= 300) break;
    if (Date.now() - start > kReadyTimeout) throw new Error(`${view}: not rendered within ${kReadyTimeout} ms`);
    await p.waitForTimeout(50);
  }
  const firstRender = Date.now() - start - 300;
  const elements = await p.evaluate(() => document.querySelectorAll('*').length);
  // Decoded JSON bytes of every API answer so far (the browser's own resource timing).
  const apiBytes = await p.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => e.name.includes('/api/v1/') && !e.name.includes('/api/v1/events'))
    .reduce((n, e) => n + e.decodedBodySize, 0));
  const fps = await scrollFps(p, view);
  const metrics = (await cdp.send('Performance.getMetrics')).metrics;
  const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
  await ctx.close();
  return { firstRender, elements, fps, heap, apiBytes, apiRequests };
}

// Frames per second while the view's longest scrollable box scrolls 60 px per frame for 2 s
// (the graph is panned by dragging instead). requestAnimationFrame counts the frames.
async function scrollFps(p, view) {
  if (view === 'graph') {
    const svg = await p.$('[data-testid="graph-svg"]');
    if (!svg) return NaN;
    const box = await svg.boundingBox();
    const counting = p.evaluate(() => new Promise((resolve) => {
      let frames = 0;
      const t0 = performance.now();
      const tick = () => {
        frames++;
        if (performance.now() - t0 < 2000) requestAnimationFrame(tick);
        else resolve((frames * 1000) / (performance.now() - t0));
      };
      requestAnimationFrame(tick);
    }));
    await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await p.mouse.down();
    const t0 = Date.now();
    for (let i = 0; Date.now() - t0 < 1900; i++) await p.mouse.move(box.x + box.width / 2 + (i % 40) * 4, box.y + box.height / 2 + (i % 40) * 6);
    await p.mouse.up();
    return counting;
  }
  return p.evaluate(() => new Promise((resolve) => {
    const boxes = [...document.querySelectorAll('main *')].filter((e) => {
      const s = getComputedStyle(e);
      return /(auto|scroll)/.test(s.overflowY) && e.scrollHeight > e.clientHeight + 10;
    });
    boxes.sort((a, b) => b.scrollHeight - a.scrollHeight);
    const target = boxes[0] ?? document.scrollingElement;
    let frames = 0;
    const t0 = performance.now();
    const tick = () => {
      frames++;
      target.scrollTop += 60;
      if (performance.now() - t0 < 2000) requestAnimationFrame(tick);
      else resolve((frames * 1000) / (performance.now() - t0));
    };
    requestAnimationFrame(tick);
  }));
}

const url = arg('url', '');

async function measureServer(browser, serverUrl, nodes, name) {
  // Warm the server's per-generation answer cache, so the figures are the page's own.
  for (const v of views) await measureView(browser, serverUrl, v).catch(() => {});
  for (const view of views) {
    try {
      const m = await measureView(browser, serverUrl, view);
      console.log([nodes, name, view, m.firstRender, m.elements, m.fps.toFixed(0), (m.heap / 1048576).toFixed(1), (m.apiBytes / 1048576).toFixed(2), m.apiRequests].join('\t'));
    } catch (e) {
      console.log([nodes, name, view, `error: ${String(e.message ?? e).split('\n')[0]}`].join('\t'));
    }
  }
}

const work = mkdtempSync(path.join(os.tmpdir(), 'dashboard-bench-'));
const browser = await launchBrowser(chromium);
console.log(['nodes', 'dashboard', 'view', 'first render ms', 'DOM elements', 'scroll fps', 'JS heap MB', 'API MB', 'API requests'].join('\t'));
try {
  for (const nodes of url ? [] : sizes) {
    const scenario = path.join(work, `${nodes}.yaml`);
    writeFileSync(scenario, execFileSync('python3', [path.join(repo, 'bench/server/gen_scenario.py'), String(nodes), '8', String(2 * nodes), '--pending', '20', '--pods'], { maxBuffer: 1 << 30 }));
    const catalog = path.join(work, 'catalog.yaml');
    writeFileSync(catalog, 'packages:\n  - id: bench-gpu-1x\n    cpu: "1"\n    memory: 1Gi\n    gpu: 1\n    allocation: {deviceClassName: gpu.bench.example.com, claimRequestName: gpu, count: 1}\n');
    for (const [i, dir] of staticDirs.entries()) {
      const server = await startServer(serverBin, ['--scenario', scenario, '--package-catalog', catalog, '--static-dir', dir, '--rate-limit', '100000'], { timeoutMs: 300000 });
      try {
        await measureServer(browser, server.url, nodes, labels[i]);
      } finally {
        await server.stop();
      }
    }
  }
  if (url) await measureServer(browser, url, sizes[0], labels[0]);
} finally {
  await browser.close();
  rmSync(work, { recursive: true, force: true });
}
