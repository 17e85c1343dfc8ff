#!/usr/bin/env node
// Browser tests of the DRAForge dashboard: Debian's Chromium driven by playwright-core, against a
// real draforge-server on a free loopback port with the embedded demo scenario. Prints TAP.
//
//   node tests/dashboard/browser.mjs --server PATH --static-dir DIR [--cli PATH] [--screenshots DIR]
//
// Every expectation is taken from the server's own API answers, never written into the test: the
// page must show what /api/v1 says; the packages and availability views must also show what the
// draforge CLI (--cli, default next to the server in the build) prints for the same objects. Live changes are made through --watch-dir (the server's test
// mechanism, examples/server/README.md). Screenshots of every view, light and dark, go to
// --screenshots (default <repo>/build/dashboard-screenshots). The same views against a real
// control plane: cluster.mjs.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { api, startServer } from './server.mjs';
import { bigScenario } from './big_scenario.mjs';
import * as cli from './cli.mjs';
import * as h from './harness.mjs';

const { repo, arg, AssertionError, assert, assertEq, waitLive } = h;
const serverBin = path.resolve(arg('server', process.env.DRAFORGE_SERVER ?? path.join(repo, 'build/examples/server/draforge-server')));
const staticDir = path.resolve(arg('static-dir', path.join(repo, 'examples/dashboard/dist')));
const shotDir = path.resolve(arg('screenshots', path.join(repo, 'build/dashboard-screenshots')));
const cliBin = path.resolve(arg('cli', process.env.DRAFORGE_CLI ?? path.join(path.dirname(serverBin), '../cli/draforge')));
const chromiumPath = arg('chromium', process.env.CHROMIUM ?? '/usr/bin/chromium');
const only = arg('only', '');

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

// ---- fixtures -----------------------------------------------------------------------------------
const work = mkdtempSync(path.join(tmpdir(), 'draforge-dashboard-'));
const watchDir = path.join(work, 'live');
mkdirSync(watchDir);
mkdirSync(shotDir, { recursive: true });
h.removeFailureShots(shotDir);

/** Writes a file into the watch dir atomically (the server must never read half a file). */
function writeLive(name, text) {
  const tmp = path.join(watchDir, `.${name}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, path.join(watchDir, name));
}

let server;
let browser;
/** The page a failing case should photograph (its own, when it opened one). */
let failPage;
let context;
let page;
let pages;
const newPage = (scheme) => pages.newPage(scheme);
const goto = (p, hash) => h.goto(p, server.url, hash);
const shot = (p, name) => h.shot(p, shotDir, name);
const text = (p, sel) => p.locator(sel).innerText();

// ---- the tests ----------------------------------------------------------------------------------
// Waits bound a hang and measure nothing: 30 s covers a change going through the server, the event
// stream, a fetch and a render on a loaded 2-core CI machine.


test('the dashboard loads and the live stream connects', async () => {
  await goto(page, 'overview');
  await waitLive(page);
  assertEq(await page.locator('main h1').innerText(), 'Overview', 'heading');
  assertEq(await page.title(), 'Overview · DRAForge', 'document title');
});

test('overview shows the inventory numbers of /api/v1/summary', async () => {
  const s = await api(server.url, 'summary');
  await goto(page, 'overview');
  const cards = page.locator('dl.cards .card');
  await cards.first().waitFor();
  const got = {};
  for (const c of await cards.all()) {
    const label = await c.locator('dt').innerText();
    got[label] = Number((await c.locator('dd').innerText()).split(/\s/)[0].replace(/,/g, ''));
  }
  const c = s.counts;
  assertEq(
    [got['Nodes'], got['Resource slices'], got['Pools'], got['Devices'], got['Allocated devices'], got['Claims'], got['Allocated claims'], got['Pending claims'], got['Device classes']],
    [c.nodes, c.resourceSlices, c.pools, c.devices, c.allocatedDevices, c.claims, c.allocatedClaims, c.pendingClaims, c.deviceClasses],
    'cards (nodes, slices, pools, devices, allocated devices, claims, allocated claims, pending, classes)',
  );
  assert(c.devices > 0 && c.claims > 0, 'the demo scenario has devices and claims');
});

test('overview shows utilisation per driver as the API computes it', async () => {
  const s = await api(server.url, 'summary');
  await goto(page, 'overview');
  for (const d of s.drivers) {
    const row = page.locator('section[aria-labelledby="drivers-h"] tbody tr', { hasText: d.driver });
    const meter = row.locator('[role="meter"]');
    assertEq(await meter.getAttribute('aria-valuenow'), String(d.allocatedDevices), `${d.driver} allocated`);
    assertEq(await meter.getAttribute('aria-valuemax'), String(d.devices), `${d.driver} devices`);
    const t = await row.locator('.util-text').innerText();
    assertEq(t, `${d.allocatedDevices}/${d.devices} · ${Math.round(d.utilisation * 100)}%`, `${d.driver} bar text`);
  }
  await shot(page, 'overview-light');
});

test('pools view lists every pool of the scenario with its utilisation', async () => {
  const pools = (await api(server.url, 'pools')).items;
  await goto(page, 'pools');
  const list = page.locator('[data-testid="pool-list"] li');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="pool-list"] li').length === n, pools.length + 1, { timeout: 30000 });
  for (const p of pools) {
    const item = list.filter({ has: page.locator('.pool-name', { hasText: new RegExp(`^${p.pool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).filter({ hasText: p.driver });
    assertEq(await item.count(), 1, `entries for pool ${p.driver}/${p.pool}`);
    assertEq(await item.locator('.util-text').innerText(), `${p.allocatedDevices}/${p.devices} · ${Math.round(p.utilisation * 100)}%`, `utilisation of ${p.pool}`);
  }
  const total = (await api(server.url, 'devices?limit=1')).total;
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent?.startsWith(`${n.toLocaleString()} shown`), total);
});

test('a pool shows its devices, taints and which claim holds each device', async () => {
  const devices = (await api(server.url, 'devices?allocated=true')).items.filter((d) => d.heldBy.length > 0);
  assert(devices.length > 0, 'the scenario has allocated devices');
  const d = devices[0];
  await goto(page, `pools?driver=${encodeURIComponent(d.driver)}&pool=${encodeURIComponent(d.pool)}`);
  const poolDevices = (await api(server.url, `devices?driver=${encodeURIComponent(d.driver)}&pool=${encodeURIComponent(d.pool)}`)).items;
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, poolDevices.length);
  const row = page.locator('[role="option"]', { has: page.locator('span.mono', { hasText: new RegExp(`^${d.name}$`) }) });
  const holder = `${d.heldBy[0].namespace}/${d.heldBy[0].name}`;
  assert((await row.innerText()).includes(holder), `row of ${d.name} names its holder ${holder}: ${await row.innerText()}`);
  await row.click();
  const detail = page.locator('[data-testid="device-detail"]');
  await detail.waitFor();
  const dt = await detail.innerText();
  for (const attr of Object.keys(d.attributes)) assert(dt.includes(attr), `device detail lists attribute ${attr}`);
  assert(dt.includes(holder), 'device detail names the holder');
  // Taints anywhere in the scenario are shown on their devices.
  const tainted = (await api(server.url, 'devices')).items.filter((x) => x.taints.length > 0);
  if (tainted.length > 0) {
    const t = tainted[0];
    await goto(page, `pools?driver=${encodeURIComponent(t.driver)}&pool=${encodeURIComponent(t.pool)}&show=tainted`);
    await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, tainted.filter((x) => x.driver === t.driver && x.pool === t.pool).length);
    await page.locator('[role="option"]', { hasText: t.name }).first().click();
    assert((await page.locator('[data-testid="device-detail"]').innerText()).includes(t.taints[0].key), `taint ${t.taints[0].key} shown`);
  }
  await goto(page, `pools?driver=${encodeURIComponent(d.driver)}&pool=${encodeURIComponent(d.pool)}`);
  await page.locator('[role="option"]', { has: page.locator('span.mono', { hasText: new RegExp(`^${d.name}$`) }) }).click();
  await shot(page, 'pools-light');
});

test('a pool shows its shared counters, consumed and published, as the API reports them', async () => {
  const pools = (await api(server.url, 'pools')).items.filter((p) => p.sharedCounters.length > 0);
  assert(pools.length > 0, 'the demo scenario has a pool with shared counters');
  for (const p of pools) {
    await goto(page, `pools?driver=${encodeURIComponent(p.driver)}&pool=${encodeURIComponent(p.pool)}`);
    const table = page.getByRole('table', { name: 'Shared counters' });
    await table.waitFor();
    for (const cs of p.sharedCounters) {
      for (const [name, total] of Object.entries(cs.counters)) {
        const row = table.locator('tbody tr', { hasText: `${cs.name}/${name}` });
        assertEq(await row.locator('.util-text').innerText(), `${cs.consumed[name] ?? '0'} / ${total}`, `counter ${cs.name}/${name} of ${p.pool}`);
      }
    }
  }
});

test('device search and the free/allocated filter narrow the list', async () => {
  const all = (await api(server.url, 'devices')).items;
  await goto(page, 'pools');
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, all.length);
  await page.getByRole('button', { name: 'allocated', exact: true }).click();
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, all.filter((d) => d.allocated).length);
  await page.getByRole('button', { name: 'all', exact: true }).click();
  const target = all[all.length - 1];
  await page.getByRole('searchbox', { name: 'Search devices' }).fill(target.name);
  const want = all.filter((d) => [d.name, d.pool, d.driver, d.node, d.resourceSlice].join(' ').toLowerCase().includes(target.name.toLowerCase())).length;
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, want, { timeout: 30000 }).catch(async () => {
    throw new AssertionError(`search for ${target.name}: ${await text(page, '[data-testid="device-count"]')}, want ${want} shown`);
  });
  assert(await page.locator('[role="option"]', { hasText: target.name }).count() >= 1, `the searched device ${target.name} is listed`);
});

test('claims view shows every claim with its state', async () => {
  const claims = (await api(server.url, 'claims')).items;
  await goto(page, 'claims');
  const rows = page.locator('[data-testid="claims-table"] > tbody > tr');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="claims-table"] > tbody > tr').length === n, claims.length, { timeout: 30000 });
  for (const c of claims) {
    const row = rows.filter({ hasText: `${c.namespace}/${c.name}` });
    assertEq(await row.count(), 1, `rows for ${c.namespace}/${c.name}`);
    assert((await row.locator('.badge').first().innerText()) === c.state, `state of ${c.name}`);
    for (const r of c.allocation?.results ?? []) assert((await row.innerText()).includes(`${r.pool}/${r.device}`), `${c.name} shows device ${r.pool}/${r.device}`);
  }
  await shot(page, 'claims-light');
});

test('a pending claim says why it is pending', async () => {
  const diag = await api(server.url, 'diagnostics');
  assert(diag.pending.length > 0, 'the demo scenario has a pending claim');
  const p = diag.pending[0];
  await goto(page, `claims?claim=${encodeURIComponent(`${p.namespace}/${p.name}`)}`);
  const why = page.locator('[data-testid="why-pending"]');
  await why.waitFor({ timeout: 30000 });
  assertEq(await why.innerText(), p.summary || p.outcomeDetail || p.outcome, 'why-pending text');
  for (const r of p.requests) assert((await page.locator('[data-testid="claim-detail"]').innerText()).includes(r.sentence), `request ${r.request} sentence shown`);
  // Explained without a node: the verdict per node, each node with "fits" or its reason.
  const unbound = diag.pending.find((c) => c.nodes.length > 0);
  assert(unbound, 'the demo scenario has a pending claim explained without a node');
  await goto(page, `claims?claim=${encodeURIComponent(`${unbound.namespace}/${unbound.name}`)}`);
  const verdicts = page.locator('[data-testid="node-verdicts"]');
  await verdicts.waitFor({ timeout: 10000 });
  const text = await verdicts.innerText();
  assert(text.includes(unbound.nodesSummary), 'nodes summary shown');
  for (const v of unbound.nodes) assert(text.includes(`${v.node}: ${v.fits ? 'fits' : v.reason}`), `verdict of ${v.node} shown`);
  await shot(page, 'claims-pending-light');
});

test('graph draws every object of /api/v1/graph and filters by namespace, node and driver', async () => {
  const g = await api(server.url, 'graph');
  await goto(page, 'graph');
  await page.waitForSelector('[data-testid="graph-svg"]');
  const count = () => page.locator('[data-testid="graph-svg"] g[data-node-id]').count();
  assertEq(await count(), new Set(g.nodes.map((n) => n.id)).size, 'objects drawn');
  await shot(page, 'graph-light');
  const ns = g.nodes.find((n) => n.kind === 'ResourceClaim')?.namespace;
  for (const [param, value, label] of [['namespace', ns, 'Namespace'], ['node', g.nodes.find((n) => n.kind === 'Node')?.name, 'Node'], ['driver', (await api(server.url, 'pools')).items[0]?.driver, 'Driver']]) {
    if (!value) continue;
    const want = await api(server.url, `graph?${param}=${encodeURIComponent(value)}`);
    await page.getByLabel(label, { exact: true }).selectOption(value);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-svg"] g[data-node-id]').length === n, new Set(want.nodes.map((n) => n.id)).size, { timeout: 30000 }).catch(async () => {
      throw new AssertionError(`${param}=${value}: ${await count()} objects drawn, want ${want.nodes.length}`);
    });
    assert(want.nodes.length < g.nodes.length, `filter ${param}=${value} narrows the graph`);
    await page.getByLabel(label, { exact: true }).selectOption('');
  }
});

test('graph pans, zooms and shows what a selected object links to', async () => {
  const g = await api(server.url, 'graph');
  await goto(page, 'graph');
  const svg = page.locator('[data-testid="graph-svg"]');
  await svg.waitFor();
  const transform = () => page.locator('[data-testid="graph-svg"] > g').getAttribute('transform');
  const scale = async () => Number(/scale\(([^)]+)\)/.exec(await transform())[1]);
  // The view fits itself to the graph once its data is drawn (an effect after that render): read
  // the starting zoom only then, or the fit could land after it and undo the zoom-in being checked.
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-svg"] g[data-node-id]').length === n, new Set(g.nodes.map((n) => n.id)).size, { timeout: 30000 });
  await settled(page);
  const s0 = await scale();
  await page.getByRole('button', { name: 'Zoom in' }).click();
  await page.waitForFunction((before) => Number(/scale\(([^)]+)\)/.exec(document.querySelector('[data-testid="graph-svg"] > g')?.getAttribute('transform') ?? '')?.[1]) > before, s0, { timeout: 30000 }).catch(async () => {
    throw new AssertionError(`zoom in enlarges: scale ${await scale()}, was ${s0}`);
  });
  await settled(page);
  const t1 = await transform();
  const box = await svg.boundingBox();
  await page.mouse.move(box.x + 30, box.y + box.height - 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 130, box.y + box.height - 20, { steps: 5 });
  await page.mouse.up();
  // Pointer moves are rendered at React's continuous priority, not before mouse.up() returns.
  await page.waitForFunction((before) => document.querySelector('[data-testid="graph-svg"] > g')?.getAttribute('transform') !== before, t1, { timeout: 30000 }).catch(() => {
    throw new AssertionError('dragging pans');
  });
  await svg.focus();
  await page.keyboard.press('0');
  const claim = g.nodes.find((n) => n.kind === 'ResourceClaim' && g.edges.some((e) => e.from === n.id || e.to === n.id));
  const node = page.locator(`g[data-node-id="${claim.id}"]`);
  await node.focus();
  await page.keyboard.press('Enter');
  const info = page.locator('[data-testid="graph-info"]');
  await info.waitFor();
  const linked = g.edges.filter((e) => e.from === claim.id || e.to === claim.id).length;
  assert((await info.innerText()).includes(`Linked (${linked})`), `info lists ${linked} links of ${claim.id}: ${await info.innerText()}`);
  assertEq(await node.getAttribute('aria-pressed'), 'true', 'selected node state');
  await shot(page, 'graph-selected-light');
});

test('diagnostics lists pending claims and anomalies of /api/v1/diagnostics', async () => {
  const diag = await api(server.url, 'diagnostics');
  await goto(page, 'diagnostics');
  if (diag.pending.length > 0) {
    const list = await page.locator('[data-testid="pending-list"]').innerText();
    for (const p of diag.pending) assert(list.includes(`${p.namespace}/${p.name}`), `pending ${p.name} listed`);
  }
  if (diag.anomalies.length > 0) {
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="anomalies-table"] tbody tr').length === n, diag.anomalies.length);
    await shot(page, 'diagnostics-light');
    // An anomaly's object opens the graph centred on it, selected.
    const a = diag.anomalies[0];
    await page.locator('[data-testid="anomalies-table"] a', { hasText: a.object }).first().click();
    await page.locator('[data-testid="graph-info"]').waitFor({ timeout: 30000 });
    assertEq(await page.locator(`g[data-node-id="${a.object}"]`).getAttribute('aria-pressed'), 'true', `graph selects ${a.object}`);
    return;
  } else {
    assert((await page.locator('main').innerText()).includes('No anomalies found.'), 'empty anomalies said so');
  }
  await shot(page, 'diagnostics-light');
});

// ---- availability and packages (issue 20) ------------------------------------------------------

/** What the server serves now, as `-f` arguments for the CLI: the demo and the watched files. */
const served = () => cli.servedInputs(repo, watchDir);

/** The availability table's pool rows, each as its cells' text (the expand arrow dropped). */
const availabilityRows = (p) =>
  p.$$eval('[data-testid="availability-table"] > tbody > tr[data-pool]', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent.replace(/^[▸▾] /, ''))));

/** The numbers of a `dl.cards` block by label. */
async function cardNumbers(p, sel) {
  const got = {};
  for (const c of await p.locator(`${sel} .card`).all()) got[await c.locator('dt').innerText()] = Number((await c.locator('dd').innerText()).split(/\s/)[0].replace(/,/g, ''));
  return got;
}

/** Waits until the availability view shows `n` pool rows of `driver`. */
async function waitAvailability(p, driver, n) {
  await p.waitForFunction(([d, k]) => document.querySelector('#availability-h')?.textContent === `Pools of ${d}` && document.querySelectorAll('[data-testid="availability-table"] > tbody > tr[data-pool]').length === k, [driver, n], { timeout: 30000 }).catch(async () => {
    throw new AssertionError(`availability of ${driver}: want ${n} pool rows, page shows ${await p.locator('main').innerText()}`);
  });
}

test('availability shows /api/v1/pool-status of every driver pool by pool, with the CLI\'s partitions and shareable words', async () => {
  const drivers = [...new Set((await api(server.url, 'pools')).items.map((p) => p.driver))].sort();
  assert(drivers.length >= 3, `the demo has several drivers: ${drivers}`);
  let partitions = 0;
  let shareable = 0;
  for (const [driver, attr] of [...drivers.map((d) => [d, '']), ['mig.example.com', 'profile']]) {
    const q = `driver=${encodeURIComponent(driver)}${attr ? `&partitionAttribute=${attr}` : ''}`;
    const status = await api(server.url, `pool-status?${q}`);
    const printed = cli.poolAvailability(cliBin, served(), driver, attr);
    await goto(page, `availability?${q}`);
    await waitAvailability(page, driver, status.pools.length);
    const rows = await availabilityRows(page);
    const count = (n) => (n === undefined ? '-' : String(n));
    const none = (s) => (s === '—' ? '<none>' : s);
    for (const [i, p] of status.pools.entries()) {
      assertEq(rows[i].slice(0, 8), [p.poolName, p.nodeName ?? '—', String(p.generation ?? 0), count(p.resourceSliceCount), count(p.totalDevices), count(p.allocatedDevices), count(p.availableDevices), count(p.unavailableDevices)], `${driver} pool ${p.poolName}: pool, node, generation, slices, total, allocated, available, unavailable`);
      assertEq(rows[i][10], p.validationError ? p.validationError.split(':')[0] : '—', `${driver} pool ${p.poolName} validation`);
      assertEq(printed[i]?.POOL, p.poolName, `CLI row ${i} of ${driver}`);
      assertEq([none(rows[i][8]), none(rows[i][9])], [printed[i].PARTITIONS, printed[i].SHAREABLE], `${driver} pool ${p.poolName} partitions and shareable (page, CLI)`);
      partitions += (p.partitionSummary ?? []).length;
      shareable += p.shareableSummary ? 1 : 0;
    }
    const sum = (k) => status.pools.reduce((n, p) => n + (p[k] ?? 0), 0);
    const cards = await cardNumbers(page, '[data-testid="availability-totals"]');
    assertEq([cards.Pools, cards.Devices, cards.Allocated, cards.Available, cards.Unavailable], [status.poolCount, sum('totalDevices'), sum('allocatedDevices'), sum('availableDevices'), sum('unavailableDevices')], `${driver} totals`);
    assertEq(await text(page, '[data-testid="availability-condition"]'), `${status.conditions[0].type} ${status.conditions[0].message}`, `${driver} condition`);
  }
  assert(partitions > 0 && shareable > 0, 'the cases cover a partition summary and a shareable summary');
  // A shareable pool's detail lists its capacity as the API counts it.
  const nic = (await api(server.url, 'pool-status?driver=nic.example.com')).pools.find((p) => p.shareableSummary?.capacity?.length);
  await goto(page, `availability?driver=nic.example.com`);
  await waitAvailability(page, 'nic.example.com', 1);
  await page.getByRole('button', { name: `▸ ${nic.poolName}` }).click();
  const cap = page.getByRole('table', { name: `Shareable capacity of ${nic.poolName}` });
  for (const c of nic.shareableSummary.capacity) {
    assertEq(await cap.locator('tbody tr', { hasText: c.name }).locator('td').allInnerTexts(), [c.name, c.total, c.consumed, c.available], `capacity ${c.name}`);
  }
  await shot(page, 'availability-light');
});

/** The package table's rows in the CLI's terms (its DEVICES column: "1 class", "-"). */
const packageRows = (p) =>
  p.$$eval('[data-testid="packages-table"] > tbody > tr[data-package]', (trs) =>
    trs.map((tr) => {
      const td = [...tr.children].map((x) => x.textContent);
      return { id: tr.dataset.package, cpu: td[2], memory: td[3], devices: td[4] === 'none' ? '-' : td[4].replace(' × ', ' '), more: td[5].replace(/,/g, ''), stop: td[6] };
    }));
const cliPackageRows = (printed) => printed.totals.map((r) => ({ id: r.PACKAGE, cpu: r.CPU, memory: r.MEMORY, devices: r.DEVICES, more: r.MORE, stop: r.STOPPED }));

test('packages: each package row, its per-node figures and the inventory are what the CLI prints for the same objects', async () => {
  const printed = cli.packageCapacity(cliBin, repo, served());
  const inv = cli.packageInventory(cliBin, served());
  assert(printed.totals.length > 0, 'the demo catalog has packages');
  await goto(page, 'packages');
  await page.locator('[data-testid="packages-table"]').waitFor({ timeout: 30000 });
  assertEq(await packageRows(page), cliPackageRows(printed), 'package rows (page, `draforge package capacity`)');
  const cards = await cardNumbers(page, '[data-testid="package-inventory"]');
  assertEq(
    [cards['Allocatable devices'], cards['Allocated devices'], cards.Devices, cards['Resource slices'], cards.Claims, cards['Allocated claims']],
    [inv.totalGpuAllocatable, inv.draAllocatedDevices, inv.draDevices, inv.draResourceSlices, inv.draClaimCount, inv.draAllocatedClaims],
    'inventory cards (page, `draforge package inventory`)',
  );
  for (const r of printed.totals) {
    await page.locator(`tr[data-package="${r.PACKAGE}"] button[aria-expanded]`).click();
    const list = page.getByRole('listbox', { name: `Nodes for ${r.PACKAGE}` });
    await list.waitFor({ timeout: 30000 });
    const got = await list.locator('[role="option"]').evaluateAll((os) => os.map((o) => [...o.children].map((s) => (s.textContent === '—' ? '-' : s.textContent))));
    const want = printed.nodes.filter((n) => n.PACKAGE === r.PACKAGE).map((n) => [n.NODE, n.MORE, n['LIMITED BY'], n['WHY NOT MORE']]);
    assert(want.length > 0, `the CLI lists nodes for ${r.PACKAGE}`);
    assertEq(got, want, `nodes of ${r.PACKAGE}: node, more, limited by, why (page, CLI)`);
  }
  await shot(page, 'packages-light');
});

test('packages: the namespace and "within quota" set the query, and the figures stay the CLI\'s for it', async () => {
  await goto(page, 'packages');
  await page.locator('[data-testid="packages-table"]').waitFor({ timeout: 30000 });
  await page.getByRole('combobox', { name: 'Namespace' }).fill('team-a');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('checkbox', { name: 'Within quota' }).check();
  await page.waitForFunction(() => document.querySelector('main .view-head p')?.textContent?.includes('namespace team-a, within its ResourceQuotas'), null, { timeout: 30000 });
  assert(page.url().endsWith('#/packages?namespace=team-a&quota=true'), `route ${page.url()}`);
  const printed = cli.packageCapacity(cliBin, repo, served(), ['--namespace', 'team-a', '--quota']);
  assertEq(printed.header, 'namespace team-a, within its ResourceQuotas', 'CLI header');
  assertEq(await packageRows(page), cliPackageRows(printed), 'package rows for team-a within quota (page, CLI)');
});

/** Waits until the packages page shows the units `printed` (the CLI's answer) has for each package. */
async function waitPackageUnits(p, printed, when) {
  const want = printed.totals.map((r) => [r.PACKAGE, r.MORE]);
  await p.waitForFunction((w) => {
    const rows = [...document.querySelectorAll('[data-testid="packages-table"] > tbody > tr[data-package]')];
    return JSON.stringify(rows.map((tr) => [tr.dataset.package, tr.querySelector('[data-testid="package-total"]')?.textContent])) === JSON.stringify(w);
  }, want, { timeout: 30000 }).catch(async () => {
    throw new AssertionError(`packages ${when}: ${JSON.stringify(await packageRows(p))}, want ${JSON.stringify(cliPackageRows(printed))}`);
  });
}

const liveA100Slice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: capacity-live-slice
spec:
  driver: gpu.example.com
  nodeName: node-3
  pool: {name: capacity-live, generation: 1, resourceSliceCount: 1}
  devices:
  - name: live-a100-0
    attributes:
      model: {string: A100}
  - name: live-a100-1
    attributes:
      model: {string: A100}
`;

test('packages and availability follow a change in the watched directory without reload', async () => {
  const before = cli.packageCapacity(cliBin, repo, served());
  const { ctx, p: avail } = await newPage('light');
  failPage = avail;
  try {
    const gpuPools = (await api(server.url, 'pool-status?driver=gpu.example.com')).pools.length;
    await goto(avail, 'availability?driver=gpu.example.com');
    await waitAvailability(avail, 'gpu.example.com', gpuPools);
    await goto(page, 'packages');
    await page.locator('[data-testid="packages-table"]').waitFor({ timeout: 30000 });
    for (const p of [page, avail]) {
      await waitLive(p);
      await h.markDocument(p);
    }
    writeLive('capacity-slice.yaml', liveA100Slice);
    const after = cli.packageCapacity(cliBin, repo, served());
    assert(JSON.stringify(cliPackageRows(after)) !== JSON.stringify(cliPackageRows(before)), 'two more A100 on node-3 change the CLI figures');
    await waitPackageUnits(page, after, 'after the change');
    assertEq(await packageRows(page), cliPackageRows(after), 'package rows after the change (page, CLI)');
    await waitAvailability(avail, 'gpu.example.com', gpuPools + 1);
    const live = (await api(server.url, 'pool-status?driver=gpu.example.com')).pools.find((x) => x.poolName === 'capacity-live');
    const row = (await availabilityRows(avail)).find((r) => r[0] === 'capacity-live');
    assertEq(row?.slice(0, 8), ['capacity-live', 'node-3', '1', '1', String(live.totalDevices), String(live.allocatedDevices), String(live.availableDevices), String(live.unavailableDevices)], 'the new pool on the availability page');
    // Removing the objects again brings back the first figures.
    writeLive('capacity-slice.yaml', '# removed\n');
    await waitPackageUnits(page, before, 'after the removal');
    await waitAvailability(avail, 'gpu.example.com', gpuPools);
    for (const p of [page, avail]) await h.assertSameDocument(p);
  } finally {
    await ctx.close();
  }
});

/** Resolves after two animation frames: whatever the last render scheduled has been painted. */
async function settled(p) {
  await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

const liveClaim = (name) => `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ${name}
  namespace: team-live
  uid: 11111111-2222-4333-8444-555555555555
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
`;

test('a claim added to the cluster appears without a page reload', async () => {
  await goto(page, 'claims');
  await waitLive(page);
  await page.evaluate(() => {
    window.__sameDocument = 'yes';
  });
  const before = (await api(server.url, 'claims')).items.length;
  writeLive('claim.yaml', liveClaim('live-claim-1'));
  await page.locator('[data-testid="claims-table"] tbody tr', { hasText: 'team-live/live-claim-1' }).waitFor({ timeout: 30000 });
  assertEq(await page.evaluate(() => window.__sameDocument), 'yes', 'same document (no reload)');
  assertEq((await api(server.url, 'claims')).items.length, before + 1, 'server has the new claim');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="claims-table"] > tbody > tr').length === n, before + 1);
});

test('the overview counts and change log follow a change without reload', async () => {
  await goto(page, 'overview');
  await waitLive(page);
  await page.evaluate(() => {
    window.__sameDocument = 'yes';
  });
  const claimsCard = page.locator('dl.cards .card', { has: page.locator('dt', { hasText: /^Claims$/ }) }).locator('dd');
  const before = Number((await claimsCard.innerText()).split(/\s/)[0]);
  writeLive('claim.yaml', liveClaim('live-claim-1') + '---\n' + liveClaim('live-claim-2').replace('555555555555', '555555555556'));
  await page.waitForFunction((n) => {
    const cards = [...document.querySelectorAll('dl.cards .card')];
    const c = cards.find((x) => x.querySelector('dt')?.textContent === 'Claims');
    return c && Number(c.querySelector('dd')?.textContent?.split(/\s/)[0]) === n;
  }, before + 1, { timeout: 30000 });
  await page.locator('[data-testid="recent-changes"] li', { hasText: 'live-claim-2' }).waitFor({ timeout: 30000 });
  assertEq(await page.evaluate(() => window.__sameDocument), 'yes', 'same document (no reload)');
  await shot(page, 'overview-after-change-light');
});

test('a new pool appears in the pools view and a deleted claim disappears, without reload', async () => {
  await goto(page, 'pools');
  await waitLive(page);
  await page.evaluate(() => {
    window.__sameDocument = 'yes';
  });
  writeLive('slice.yaml', `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: live-pool-slice
spec:
  driver: gpu.example.com
  nodeName: node-3
  pool: {name: live-pool, generation: 1, resourceSliceCount: 1}
  devices:
  - name: live-gpu-0
    attributes:
      model: {string: A100}
`);
  await page.locator('[data-testid="pool-list"] .pool-name', { hasText: /^live-pool$/ }).waitFor({ timeout: 30000 });
  await goto(page, 'claims');
  await page.locator('[data-testid="claims-table"] tbody tr', { hasText: 'team-live/live-claim-2' }).waitFor();
  await page.evaluate(() => {
    window.__sameDocument = 'yes';
  });
  writeLive('claim.yaml', liveClaim('live-claim-1'));
  await page.locator('[data-testid="claims-table"] tbody tr', { hasText: 'team-live/live-claim-2' }).waitFor({ state: 'detached', timeout: 30000 });
  assertEq(await page.evaluate(() => window.__sameDocument), 'yes', 'same document (no reload)');
});

test('after the server restarts the page reconnects by itself and shows the present', async () => {
  await goto(page, 'claims');
  await waitLive(page);
  await page.evaluate(() => {
    window.__sameDocument = 'yes';
  });
  const port = server.port;
  await server.stop();
  await page.waitForFunction(() => document.querySelector('.live')?.getAttribute('data-state') !== 'live', null, { timeout: 30000 });
  // While the server is down the cluster changes: the page must pick that up after reconnecting.
  writeLive('claim.yaml', liveClaim('live-claim-3').replace('555555555555', '555555555557'));
  // The same port (the page reconnects to its own URL); retried while the old server lets it go.
  server = await startServer(serverBin, serverArgs(), { port });
  await waitLive(page, 30000);
  await page.locator('[data-testid="claims-table"] tbody tr', { hasText: 'team-live/live-claim-3' }).waitFor({ timeout: 30000 });
  assertEq(await page.locator('[data-testid="claims-table"] tbody tr', { hasText: 'team-live/live-claim-1' }).count(), 0, 'claim removed while away is gone');
  assertEq(await page.evaluate(() => window.__sameDocument), 'yes', 'same document (no reload)');
});

test('a page opened before the server is ready fills in by itself once the store syncs', async () => {
  // 10 s before the store syncs: the 503 and the page load below must fit in (4 s did not always,
  // with Chromium opening a page on a loaded machine).
  const late = await startServer(serverBin, ['--demo', '--static-dir', staticDir, '--ready-delay-ms', '10000'], { waitReady: false });
  try {
    const ready = await fetch(`${late.url}/readyz`);
    assertEq(ready.status, 503, '/readyz before sync');
    const { ctx, p } = await newPage('light');
    failPage = p;
    await p.goto(`${late.url}/#/claims`);
    await p.waitForSelector('main h1');
    await p.evaluate(() => {
      window.__sameDocument = 'yes';
    });
    for (let i = 0; i < 600 && (await fetch(`${late.url}/readyz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    const claims = (await api(late.url, 'claims')).items;
    assert(claims.length > 0, 'claims after sync');
    await p.waitForFunction((n) => document.querySelectorAll('[data-testid="claims-table"] > tbody > tr').length === n, claims.length, { timeout: 30000 });
    assertEq(await p.evaluate(() => window.__sameDocument), 'yes', 'same document (no reload)');
    await ctx.close();
  } finally {
    await late.stop();
  }
});

test('keyboard: skip link, navigation and list keys work without a mouse', async () => {
  await page.goto('about:blank'); // a fresh document: focus starts at the top
  await goto(page, 'overview');
  await page.keyboard.press('Tab');
  assertEq(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content', 'first Tab stop');
  await page.keyboard.press('Tab');
  assertEq(await page.evaluate(() => document.activeElement?.textContent), 'Overview', 'second Tab stop');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Pools & devices');
  const list = page.getByRole('listbox', { name: 'Devices' });
  await list.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.locator('[data-testid="device-detail"]').waitFor();
  assertEq(await page.locator('[role="option"][aria-selected="true"]').count(), 1, 'one device selected by keyboard');
});

/** WCAG contrast ratio of two CSS colours, computed in the page. */
async function contrasts(p) {
  return p.evaluate(() => {
    const rgb = (s) => (s.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
    const lum = ([r, g, b]) => {
      const f = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((m, n) => n - m);
      return (x + 0.05) / (y + 0.05);
    };
    // Backgrounds may be translucent (selected rows are tinted): composite the layers up to the
    // first opaque one, as the browser paints them.
    const parse = (c) => {
      const n = (c.match(/[\d.]+/g) ?? []).map(Number);
      if (c.startsWith('color(srgb')) return [n[0] * 255, n[1] * 255, n[2] * 255, n[3] ?? 1];
      if (c === 'transparent') return [0, 0, 0, 0];
      return [n[0], n[1], n[2], n[3] ?? 1];
    };
    const bgOf = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let out = [255, 255, 255];
      for (const [r, g, b, a] of layers.reverse()) out = [r * a + out[0] * (1 - a), g * a + out[1] * (1 - a), b * a + out[2] * (1 - a)];
      return `rgb(${out.map((v) => Math.round(v)).join(', ')})`;
    };
    const out = [];
    for (const sel of ['main h1', '.view-head p', '.nav a', '.card dt', '.card dd', 'th', 'td', '.util-text', '.badge', '.muted', 'a', 'button']) {
      for (const el of [...document.querySelectorAll(sel)].slice(0, 5)) {
        const cs = getComputedStyle(el);
        out.push({ sel, ratio: ratio(cs.color, bgOf(el)), color: cs.color, bg: bgOf(el) });
      }
    }
    return out;
  });
}

test('text contrast meets WCAG AA (4.5:1) in the light and the dark theme', async () => {
  for (const scheme of ['light', 'dark']) {
    const { ctx, p } = await newPage(scheme);
    for (const view of ['overview', 'pools', 'availability?driver=mig.example.com&partitionAttribute=profile', 'packages?open=gpu-a100-1x-cpu8-mem64g', 'claims', 'diagnostics', 'whatif']) {
      await goto(p, view);
      await p.waitForSelector('dl.cards, [role="listbox"], [data-testid="claims-table"], [data-testid="pending-list"], [data-testid="whatif-pod"]');
      if (view.startsWith('availability')) await p.waitForSelector('[data-testid="availability-table"]');
      if (view.startsWith('packages')) await p.waitForSelector('[role="listbox"]');
      const low = (await contrasts(p)).filter((c) => c.ratio < 4.5);
      assert(low.length === 0, `${scheme} ${view}: low contrast ${JSON.stringify(low.slice(0, 3))}`);
    }
    await ctx.close();
  }
});

test('dark theme: every view renders and the toggle switches themes', async () => {
  const { ctx, p } = await newPage('dark');
  await goto(p, 'overview');
  assertEq(await p.evaluate(() => document.documentElement.dataset.theme), 'dark', 'system preference picked');
  await shot(p, 'overview-dark');
  await goto(p, 'pools');
  await p.waitForSelector('[role="listbox"]');
  await p.locator('[role="option"]').first().click();
  await shot(p, 'pools-dark');
  await goto(p, 'claims');
  await p.waitForSelector('[data-testid="claims-table"]');
  await shot(p, 'claims-dark');
  await goto(p, 'graph');
  await p.waitForSelector('[data-testid="graph-svg"]');
  await shot(p, 'graph-dark');
  await goto(p, 'diagnostics');
  await shot(p, 'diagnostics-dark');
  await goto(p, 'availability?driver=nic.example.com&open=nic.example.com%2Ffabric');
  await p.waitForSelector('[data-testid="availability-detail"]');
  await shot(p, 'availability-dark');
  await goto(p, 'packages?open=gpu-h100-1x-cpu24-mem96g');
  await p.waitForSelector('[role="listbox"]');
  await shot(p, 'packages-dark');
  await p.getByRole('button', { name: 'Switch to light theme' }).click();
  assertEq(await p.evaluate(() => document.documentElement.dataset.theme), 'light', 'toggle to light');
  await p.reload();
  await p.waitForSelector('main h1');
  assertEq(await p.evaluate(() => document.documentElement.dataset.theme), 'light', 'choice kept across reloads');
  await ctx.close();
});

// Waits on the 5,000-device server are long on purpose: they bound a hang, they measure nothing
// (a loaded 2-core CI machine, and see examples/dashboard/SERVER-REQUESTS.md on Brotli).
const kBigTimeout = 120000;

test('5,000 devices: the list stays virtualised, search finds one device, the graph culls', async () => {
  const file = path.join(work, 'big.yaml');
  writeFileSync(file, bigScenario({ nodes: 50, perNode: 100, claims: 200 }));
  const big = await startServer(serverBin, ['--scenario', file, '--static-dir', staticDir, '--rate-limit', '1000']);
  try {
    const total = (await api(big.url, 'devices?limit=1')).total;
    assertEq(total, 5000, 'devices served');
    const { ctx, p } = await newPage('light');
    failPage = p;
    await p.goto(`${big.url}/#/pools`);
    await p.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent === '5,000 shown', null, { timeout: kBigTimeout });
    const rendered = await p.locator('[role="option"]').count();
    assert(rendered > 5 && rendered < 100, `rendered ${rendered} rows of 5,000`);
    const list = p.getByRole('listbox', { name: 'Devices' });
    await list.focus();
    await p.keyboard.press('End');
    await p.locator('[role="option"]', { hasText: 'dev-49-99' }).waitFor({ timeout: kBigTimeout });
    await p.getByRole('searchbox', { name: 'Search devices' }).fill('dev-17-42');
    await p.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent === '1 shown', null, { timeout: kBigTimeout });
    await p.getByRole('searchbox', { name: 'Search devices' }).fill('big/job-7');
    await p.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent?.endsWith(' shown') && document.querySelector('[data-testid="device-count"]')?.textContent !== '5,000 shown', null, { timeout: kBigTimeout });
    const held = (await api(big.url, 'devices?allocated=true&limit=10000')).items.filter((d) => d.heldBy.some((h) => `${h.namespace}/${h.name}`.includes('big/job-7'))).length;
    assertEq(await text(p, '[data-testid="device-count"]'), `${held} shown`, 'devices held by claims matching big/job-7');
    await shot(p, 'pools-5000-light');
    // The graph starts with allocated devices only at this size, legible, and culls what is off
    // screen once the user asks for every device.
    await p.goto(`${big.url}/#/graph`);
    await p.waitForSelector('[data-testid="graph-svg"]', { timeout: kBigTimeout });
    const allocatedOnly = await api(big.url, 'graph?allDevices=false');
    await p.waitForFunction((n) => document.querySelector('main .view-head p')?.textContent?.includes(`${n.toLocaleString()} objects`), allocatedOnly.nodes.length, { timeout: kBigTimeout });
    assertEq(await p.getByLabel('Free devices too').isChecked(), false, 'free devices hidden by default at 5,000 devices');
    const scale = Number(/scale\(([^)]+)\)/.exec(await p.locator('[data-testid="graph-svg"] > g').getAttribute('transform'))[1]);
    assert(scale >= 0.3, `first screen is legible (zoom ${scale})`);
    await shot(p, 'graph-5000-light');
    await p.getByLabel('Free devices too').check();
    const g = await api(big.url, 'graph');
    await p.waitForFunction((n) => document.querySelector('main .view-head p')?.textContent?.includes(`${n.toLocaleString()} objects`), g.nodes.length, { timeout: kBigTimeout });
    const drawn = await p.locator('g[data-node-id]').count();
    assert(drawn > 0 && drawn < g.nodes.length / 4, `graph draws ${drawn} of ${g.nodes.length} objects (off-screen ones culled)`);
    await ctx.close();
  } finally {
    await big.stop();
  }
});

// The bound on what a view puts in the DOM at any cluster size: the views aggregate (pool groups,
// graph groups) and window their lists, so 10,000 nodes render about as much as 10.
const kMaxElements = 2000;
const domElements = (p) => p.evaluate(() => document.querySelectorAll('*').length);
async function assertBounded(p, view) {
  const n = await domElements(p);
  assert(n < kMaxElements, `${view}: ${n} DOM elements at 10,000 nodes (bound ${kMaxElements})`);
}

test('10,000 nodes: every view stays under the DOM bound, and a searched node, pool, device, claim and package node are reachable', async () => {
  const file = path.join(work, 'nodes-10000.yaml');
  writeFileSync(file, execFileSync('python3', [path.join(repo, 'bench/server/gen_scenario.py'), '10000', '8', '2000', '--pending', '5', '--pods'], { maxBuffer: 1 << 30 }));
  // Reading 14 MB of YAML takes the server seconds on a quiet machine and minutes on a loaded one:
  // this wait bounds a hang only.
  // A catalog of one package of the scenario's DeviceClass, so the packages view has 10,000 nodes.
  const catalog = path.join(work, 'bench-catalog.yaml');
  writeFileSync(catalog, 'packages:\n  - id: bench-gpu-1x\n    cpu: "1"\n    memory: 1Gi\n    gpu: 1\n    allocation: {deviceClassName: gpu.bench.example.com, claimRequestName: gpu, count: 1}\n');
  const big = await startServer(serverBin, ['--scenario', file, '--package-catalog', catalog, '--static-dir', staticDir, '--rate-limit', '1000'], { timeoutMs: 600000 });
  try {
    const summary = await api(big.url, 'summary');
    assertEq([summary.counts.nodes, summary.counts.pools, summary.counts.devices], [10000, 10000, 80000], 'scenario served');
    const { ctx, p } = await newPage('light');
    failPage = p;

    // Overview: the pools aggregated into groups (one here: 10,000 node-local pools of 8 devices).
    await p.goto(`${big.url}/#/overview`);
    await p.locator('[data-testid="overview-groups"] tbody tr').first().waitFor({ timeout: kBigTimeout });
    const groupRow = await text(p, '[data-testid="overview-groups"] tbody tr');
    assert(groupRow.includes('node-local, 8 devices each') && groupRow.includes('10,000'), `overview group row: ${groupRow}`);
    assert(groupRow.includes(`${summary.counts.allocatedDevices}/80000`), `group utilisation from the API (${summary.counts.allocatedDevices} allocated): ${groupRow}`);
    await assertBounded(p, 'overview');

    // Pools: the list is windowed, a search finds one node's pool, its 8 devices load.
    await p.goto(`${big.url}/#/pools`);
    await p.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent === '80,000 shown', null, { timeout: kBigTimeout });
    await assertBounded(p, 'pools');
    const entries = await p.locator('[data-testid="pool-list"] li .pool-name').count();
    assert(entries > 5 && entries < 60, `pool list renders ${entries} entries of 10,000`);
    // All devices load page by page: the row at 50,000 (scrolled to) is the API's device there.
    const at = (await api(big.url, 'devices?offset=50000&limit=1')).items[0];
    await p.evaluate(() => { document.querySelector('[role="listbox"][aria-label="Devices"]').scrollTop = 50000 * 36; });
    await p.locator('[role="option"]', { hasText: `${at.pool}` }).filter({ hasText: at.name }).first().waitFor({ timeout: kBigTimeout });
    assert(await p.locator('[role="option"]').count() < 100, 'device rows stay windowed');
    await p.getByRole('searchbox', { name: 'Find pools' }).fill('node-9876');
    await p.waitForFunction(() => document.querySelector('[data-testid="pool-count"]')?.textContent === '1 of 10,000 pools', null, { timeout: kBigTimeout });
    await p.locator('[data-testid="pool-list"] li button', { hasText: 'node-9876' }).click();
    await p.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent === '8 shown', null, { timeout: kBigTimeout });
    await p.getByRole('searchbox', { name: 'Search devices' }).fill('gpu-7');
    await p.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent === '1 shown', null, { timeout: kBigTimeout });
    await assertBounded(p, 'pools (one pool)');
    await shot(p, 'pools-10000-light');

    // Claims: every claim is in the (windowed) table; a search reaches the last one.
    await p.goto(`${big.url}/#/claims`);
    await p.locator('[data-testid="claims-table"] tbody tr', { hasText: 'bench/claim-0' }).first().waitFor({ timeout: kBigTimeout });
    await assertBounded(p, 'claims');
    await p.getByRole('searchbox', { name: 'Search claims' }).fill('claim-1999');
    await p.locator('[data-testid="claims-table"] tbody tr', { hasText: 'bench/claim-1999' }).waitFor({ timeout: kBigTimeout });
    await p.locator('[data-testid="claims-table"] tbody tr button', { hasText: 'claim-1999' }).click();
    await p.locator('[data-testid="claim-detail"]').waitFor({ timeout: kBigTimeout });

    // Graph: drawn as groups; the node search opens the detailed graph around one node.
    await p.goto(`${big.url}/#/graph`);
    await p.locator('[data-testid="graph-grouped"]').waitFor({ timeout: kBigTimeout });
    await assertBounded(p, 'graph');
    const groupsDrawn = await p.locator('g[data-node-id]').count();
    assert(groupsDrawn > 3 && groupsDrawn < 40, `graph draws ${groupsDrawn} groups`);
    await p.locator('g[data-node-id="group:Node:gpu.bench.example.com"]').click();
    assert((await text(p, '[data-testid="group-members"]')).includes('of 10,000'), 'node group lists its members');
    await shot(p, 'graph-10000-light');
    const nodeBox = p.getByRole('combobox', { name: 'Node' }); // a search box with suggestions (list=)
    await nodeBox.fill('node-4321');
    await nodeBox.press('Enter');
    await p.locator('g[data-node-id="Node/node-4321"]').waitFor({ timeout: kBigTimeout });
    await p.locator('g[data-node-id="Pool/gpu.bench.example.com/node-4321"]').waitFor();
    await assertBounded(p, 'graph (one node)');

    // Diagnostics: the pending claims' explanations and the anomalies, bounded.
    await p.goto(`${big.url}/#/diagnostics`);
    await p.locator('[data-testid="pending-list"]').waitFor({ timeout: kBigTimeout });
    await assertBounded(p, 'diagnostics');

    // What-if: 667 pods x 10,000 nodes is over the server's budget (--whatif-max-pairs): the page
    // says so with the server's figures instead of waiting on a replay of minutes.
    await p.goto(`${big.url}/#/whatif`);
    await p.locator('p.error[role="alert"]').waitFor({ timeout: kBigTimeout });
    assert((await p.locator('p.error[role="alert"]').innerText()).includes('pod-node pairs'), 'the what-if budget is named');
    await assertBounded(p, 'whatif');

    // Availability: 10,000 pools, upstream's default limit (100 rows) and the largest (1,000 rows,
    // windowed); one pool found by its name.
    await p.goto(`${big.url}/#/availability`);
    await p.waitForFunction(() => document.querySelector('[data-testid="availability-count"]')?.textContent === '100 of 10,000 pools (limit)', null, { timeout: kBigTimeout });
    await assertBounded(p, 'availability (100 pools)');
    await p.goto(`${big.url}/#/availability?driver=gpu.bench.example.com&limit=1000`);
    await p.waitForFunction(() => document.querySelector('[data-testid="availability-count"]')?.textContent === '1,000 of 10,000 pools (limit)', null, { timeout: kBigTimeout });
    await assertBounded(p, 'availability (1,000 pools)');
    const pool = (await api(big.url, 'pool-status?driver=gpu.bench.example.com&pool=node-9876')).pools[0];
    const poolBox = p.getByRole('combobox', { name: 'Pool' });
    await poolBox.fill('node-9876');
    await poolBox.press('Enter');
    await p.waitForFunction(() => document.querySelectorAll('[data-testid="availability-table"] > tbody > tr[data-pool]').length === 1, null, { timeout: kBigTimeout });
    assertEq((await availabilityRows(p))[0].slice(0, 8), [pool.poolName, pool.nodeName, '1', '1', String(pool.totalDevices), String(pool.allocatedDevices), String(pool.availableDevices), String(pool.unavailableDevices)], 'pool node-9876 at 10,000 nodes');
    await assertBounded(p, 'availability (one pool)');

    // Packages: a package's 10,000 nodes in a windowed list; a node search reaches one of them.
    const pkg = (await api(big.url, 'packages')).packages[0];
    assertEq(pkg.capacity.nodes.length, 10000, 'the package is counted on every node');
    await p.goto(`${big.url}/#/packages?open=${pkg.id}`);
    const nodes = p.getByRole('listbox', { name: `Nodes for ${pkg.id}` });
    await nodes.waitFor({ timeout: kBigTimeout });
    await assertBounded(p, 'packages (10,000 nodes open)');
    assert(await nodes.locator('[role="option"]').count() < 100, 'node rows stay windowed');
    await p.getByRole('searchbox', { name: `Find a node for ${pkg.id}` }).fill('node-9876');
    await p.waitForFunction((id) => document.querySelectorAll(`[role="listbox"][aria-label="Nodes for ${id}"] [role="option"]`).length === 1, pkg.id, { timeout: kBigTimeout });
    const n = pkg.capacity.nodes.find((x) => x.node === 'node-9876');
    assertEq(await nodes.locator('[role="option"] > span').allInnerTexts(), [n.node, String(n.count), n.limitedBy ?? '—', n.why || n.reasons.join('; ')], 'node-9876 of the package');
    await shot(p, 'packages-10000-light');
    await ctx.close();
  } finally {
    await big.stop();
  }
});

// ---- what-if ------------------------------------------------------------------------------------

/** The server's replay for `body` ({policy, edits}), as the page asks it (GET without edits). */
async function whatif(body) {
  if (!body.edits?.length) return api(server.url, `whatif/replay?policy=${body.policy ?? 'first-fit'}`);
  const res = await fetch(`${server.url}/api/v1/whatif/replay`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST whatif/replay: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Waits until the page shows the replay `r` (its summary line). */
async function waitReplay(p, r, policy, edits) {
  const want = `${r.placed.length} placed · ${r.pending.length} pending · policy ${policy}` +
    (edits ? ` · ${edits} edit${edits === 1 ? '' : 's'}` : '');
  await p.waitForFunction((w) => document.querySelector('[data-testid="whatif-summary"]')?.textContent === w, want, { timeout: 30000 });
}

/** What the page shows for the current step, in the shape of the server's JSON. */
async function shownStep(p) {
  const step = p.locator('section[aria-label="Current step"]');
  const pod = await step.locator('[data-testid="whatif-pod"]').innerText();
  const cells = async (table) => (await table.locator('tbody tr').all()).map(async (tr) => tr.locator('td').allInnerTexts());
  if (await step.locator('[data-testid="whatif-node"]').count()) {
    const rows = await Promise.all(await cells(step.locator('table')));
    const fits = (await step.locator('[data-testid="whatif-feasible"]').innerText()).trim();
    return { pod, node: await step.locator('[data-testid="whatif-node"]').innerText(), fits, rows };
  }
  const rows = await Promise.all(await cells(step.locator('table')));
  return { pod, pending: rows };
}

/** The server's answer for step `i` in the shape shownStep gives. */
function expectedStep(r, i) {
  const pod = r.order[i];
  const placed = r.placed.find((x) => x.pod === pod);
  if (placed) {
    const rows = placed.claims.flatMap((c) => c.results.map((d) => [c.claim, d.request, d.driver, d.pool, d.device,
      c.existing ? 'before the replay' : 'by the replay']));
    const n = placed.feasible.length;
    return { pod, node: placed.node, fits: `· fits on ${n} node${n === 1 ? '' : 's'} at its turn`, rows };
  }
  return { pod, pending: r.pending.find((x) => x.pod === pod).nodes.map((n) => [n.node, n.filter, n.reason]) };
}

async function addEdit(p, op, target, count) {
  await p.locator('select[aria-label="Edit"]').selectOption(op);
  if (count !== undefined) await p.locator('input[aria-label="Count"]').fill(String(count));
  await p.locator('form[aria-label="Add an edit"] input[aria-label="Node"], form[aria-label="Add an edit"] input[aria-label="Name"]').fill(target);
  await p.locator('form[aria-label="Add an edit"] button[type="submit"]').click();
}

test('what-if: a replay steps pod by pod, each step what the server\'s JSON says, and edits change it', async () => {
  const { ctx, p } = await newPage('light');
  failPage = p;
  try {
    // On open: the replay of the cluster as it is (GET), first step shown.
    const plain = await whatif({ policy: 'first-fit' });
    await goto(p, 'whatif');
    await waitReplay(p, plain, 'first-fit', 0);
    assertEq(await shownStep(p), expectedStep(plain, 0), 'step 1 without edits');

    // Edits: drain node-1 and node-2 (their pods pending again), policy most-allocated; then step
    // through every pod with Next and back with Previous.
    const edits = [{ op: 'drain-node', name: 'node-1' }, { op: 'drain-node', name: 'node-2' }];
    for (const e of edits) await addEdit(p, e.op, e.name);
    assertEq(await p.locator('ol[aria-label="Edits"] > li > span').allInnerTexts(), ['drain node node-1', 'drain node node-2'], 'edits listed');
    await p.locator('select[aria-label="Policy"]').selectOption('most-allocated');
    // The test's own POST first: the server runs one POSTed what-if at a time (more get 503), so
    // it must not overlap the page's.
    const drained = await whatif({ policy: 'most-allocated', edits });
    await p.locator('form[aria-label="Run a replay"] button[type="submit"]').click();
    assert(drained.order.length > plain.order.length, `draining makes more pods pending (${drained.order.length} vs ${plain.order.length})`);
    await waitReplay(p, drained, 'most-allocated', 2);
    assertEq(await p.locator('ul[aria-label="What the edits did"] > li').allInnerTexts(), drained.edits, 'what the edits did');
    assertEq(await p.locator('ol[aria-label="Queue order"] > li span:first-child').allInnerTexts(), drained.order, 'queue order');
    for (let i = 0; i < drained.order.length; i++) {
      if (i > 0) await p.getByRole('button', { name: 'Next ▶' }).click();
      await p.waitForFunction((pod) => document.querySelector('[data-testid="whatif-pod"]')?.textContent === pod, drained.order[i]);
      assertEq(await shownStep(p), expectedStep(drained, i), `step ${i + 1} after draining`);
    }
    assert(await p.getByRole('button', { name: 'Next ▶' }).isDisabled(), 'Next stops at the last pod');
    await p.getByRole('button', { name: '◀ Previous' }).click();
    assertEq(await shownStep(p), expectedStep(drained, drained.order.length - 2), 'Previous goes back one pod');
    await shot(p, 'whatif-light');

    // Play from the start runs to the last pod by itself.
    await p.locator('ol[aria-label="Queue order"] > li button').first().click();
    await p.getByRole('button', { name: '▶ Play' }).click();
    await p.waitForFunction((n) => document.querySelector('[data-testid="whatif-position"]')?.textContent === `Pod ${n} of ${n}`, drained.order.length, { timeout: 30000 });
    assertEq(await shownStep(p), expectedStep(drained, drained.order.length - 1), 'Play ends on the last pod');

    // Another edit: node-3 deleted as well leaves a pod pending, with every node's filter and reason.
    await addEdit(p, 'delete-node', 'node-3');
    const gone = await whatif({ policy: 'most-allocated', edits: [...edits, { op: 'delete-node', name: 'node-3' }] });
    await p.locator('form[aria-label="Run a replay"] button[type="submit"]').click();
    assert(gone.pending.length > 0, 'deleting node-3 leaves a pod pending');
    await waitReplay(p, gone, 'most-allocated', 3);
    const i = gone.order.indexOf(gone.pending[0].pod);
    await p.locator('ol[aria-label="Queue order"] > li button').nth(i).click();
    assertEq(await shownStep(p), expectedStep(gone, i), 'the pending pod with every node\'s reason');
    await shot(p, 'whatif-pending-light');

    // A bad edit: the server's message names it, and the last good replay stays.
    await addEdit(p, 'drain-node', 'node-404');
    await p.locator('form[aria-label="Run a replay"] button[type="submit"]').click();
    await p.locator('p.error[role="alert"]').waitFor({ timeout: 30000 });
    assert((await p.locator('p.error[role="alert"]').innerText()).includes('node-404'), 'the error names the node');
    await waitReplay(p, gone, 'most-allocated', 3);
    // Nothing changed on the server.
    assertEq(await whatif({ policy: 'first-fit' }), plain, 'the cluster after the what-ifs');
  } finally {
    await ctx.close();
  }
});

test('the dashboard only ever reads: every request it made was a GET or the compute-only what-if POST', async () => {
  assert(pages.requestMethods.get('GET') > 0, 'requests were seen');
  const other = pages.otherRequests.filter((r) => r !== 'POST /api/v1/whatif/replay');
  assertEq(other, [], 'requests that were neither GET nor the what-if POST');
});

test('no script errors in any page', async () => {
  assertEq(pages.pageErrors, [], 'page errors');
});

// ---- run ----------------------------------------------------------------------------------------

function serverArgs() {
  return ['--demo', '--static-dir', staticDir, '--watch-dir', watchDir, '--rate-limit', '1000'];
}

const selected = (only ? tests.filter((t) => t.name.includes(only)) : tests).map((t) => ({
  name: t.name,
  fn: async () => {
    failPage = undefined;
    await t.fn();
  },
}));
h.runTap(selected, {
  shotDir,
  failPage: () => failPage ?? page,
  async setup() {
    // A port the restart case can take again (see stablePort in server.mjs).
    server = await startServer(serverBin, serverArgs(), { port: 'stable' });
    browser = await h.launchBrowser(chromiumPath);
    pages = h.pageFactory(browser);
    ({ ctx: context, p: page } = await newPage('light'));
  },
  async teardown() {
    await context?.close();
    await browser?.close();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  },
});
