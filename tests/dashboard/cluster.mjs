#!/usr/bin/env node
// Browser tests of the DRAForge dashboard against a REAL control plane (tests/cluster/up): Debian's
// Chromium driven by playwright-core, draforge-server --kubeconfig on a free loopback port. Prints
// TAP. tests/dashboard/run_cluster starts the control plane and runs this.
//
//   node tests/dashboard/cluster.mjs --server PATH --static-dir DIR --kubeconfig FILE --kubectl PATH
//        [--screenshots DIR] [--only TEXT]
//
// The cluster is filled with kubectl (what an operator would do): a DeviceClass, ResourceSlices,
// claims, one allocated by writing its status as kube-scheduler does. The expectations come from
// the API server's own answers (kubectl get -o json), never from the test's text: the page must
// show what the cluster holds. Changes (a new slice, a new claim, an allocation written into a
// claim's status, deletions) are made in the cluster while the page stays open; they must appear
// without a reload. Screenshots of every view go to DIR/cluster-*.png.

import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { api, startServer } from './server.mjs';
import * as h from './harness.mjs';

const { repo, arg, assert, assertEq, waitLive, markDocument, assertSameDocument } = h;
const serverBin = path.resolve(arg('server', path.join(repo, 'build/examples/server/draforge-server')));
const staticDir = path.resolve(arg('static-dir', path.join(repo, 'build/dashboard')));
const shotDir = path.resolve(arg('screenshots', path.join(repo, 'build/dashboard-screenshots')));
const chromiumPath = arg('chromium', process.env.CHROMIUM ?? '/usr/bin/chromium');
const kubeconfig = arg('kubeconfig', process.env.KUBECONFIG);
const kubectlBin = arg('kubectl', process.env.KUBECTL ?? 'kubectl');
const only = arg('only', '');

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

mkdirSync(shotDir, { recursive: true });
h.removeFailureShots(shotDir, 'cluster-');

// ---- the cluster --------------------------------------------------------------------------------

const NS = 'dash-it';
const DRIVER = 'gpu.dash-it.example.com';

function kubectl(args, input) {
  try {
    return execFileSync(kubectlBin, ['--kubeconfig', kubeconfig, ...args], { input, encoding: 'utf8', timeout: 60000, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    throw new Error(`kubectl ${args.join(' ')}: ${e.stderr || e.message}`);
  }
}
const apply = (yaml) => kubectl(['apply', '-f', '-'], yaml);
const items = (resource, ...more) => JSON.parse(kubectl(['get', resource, '-o', 'json', ...more])).items;

function sliceYaml(name, node, pool, devices) {
  const devs = devices.map((d, i) => `  - name: ${d}
    attributes:
      model: {string: ${i % 2 ? 'H100' : 'A100'}}
      index: {int: ${i}}
    capacity:
      memory: {value: 80Gi}`);
  return `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: ${name}}
spec:
  driver: ${DRIVER}
  nodeName: ${node}
  pool: {name: ${pool}, generation: 1, resourceSliceCount: 1}
  devices:
${devs.join('\n')}
`;
}

function claimYaml(name, count = 1, model = '') {
  const sel = model ? `\n        selectors:\n        - cel: {expression: "device.attributes['${DRIVER}'].model == '${model}'"}` : '';
  return `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ${name}, namespace: ${NS}}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: dash-gpu
        allocationMode: ExactCount
        count: ${count}${sel}
`;
}

/** Allocates claim NAME to DEVICE of POOL the way kube-scheduler does: by writing its status. */
function allocate(name, pool, device, node) {
  const status = {
    status: {
      allocation: {
        devices: { results: [{ request: 'gpu', driver: DRIVER, pool, device }] },
        nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
      },
    },
  };
  kubectl(['patch', 'resourceclaim', name, '-n', NS, '--subresource=status', '--type=merge', '-p', JSON.stringify(status)]);
}

function fillCluster() {
  apply(`apiVersion: v1
kind: Namespace
metadata: {name: ${NS}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: dash-gpu}
spec:
  selectors:
  - cel: {expression: "device.driver == '${DRIVER}'"}
---
${sliceYaml('dash-node-1', 'node-1', 'node-1', ['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3'])}---
${sliceYaml('dash-node-2', 'node-2', 'node-2', ['gpu-0', 'gpu-1'])}---
${claimYaml('train-1')}---
${claimYaml('train-2')}---
${claimYaml('infer-h100', 1, 'H100')}---
${claimYaml('too-big', 16)}`);
  allocate('train-1', 'node-1', 'gpu-0', 'node-1');
  allocate('infer-h100', 'node-2', 'gpu-1', 'node-2');
}

/** What the API server holds, in the dashboard's terms. */
function clusterFacts() {
  const slices = items('resourceslices');
  const claims = items('resourceclaims', '-A');
  const pools = new Map();
  for (const s of slices) {
    const key = `${s.spec.driver}/${s.spec.pool.name}`;
    pools.set(key, { driver: s.spec.driver, pool: s.spec.pool.name, devices: (pools.get(key)?.devices ?? 0) + (s.spec.devices ?? []).length });
  }
  const held = new Set();
  for (const c of claims) for (const r of c.status?.allocation?.devices?.results ?? []) held.add(`${r.driver}/${r.pool}/${r.device}`);
  for (const p of pools.values()) p.allocated = [...held].filter((k) => k.startsWith(`${p.driver}/${p.pool}/`)).length;
  return {
    nodes: items('nodes').length,
    slices: slices.length,
    pools,
    devices: [...pools.values()].reduce((n, p) => n + p.devices, 0),
    allocatedDevices: held.size,
    claims,
    allocatedClaims: claims.filter((c) => c.status?.allocation).length,
    deviceClasses: items('deviceclasses').length,
  };
}

const stateOf = (c) => (!c.status?.allocation ? 'pending' : (c.status.reservedFor ?? []).length > 0 ? 'reserved' : 'allocated');
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---- the browser --------------------------------------------------------------------------------

let server;
let browser;
let pages;
let context;
let page;
/** The page a failing case should photograph (its own, when it opened one). */
let failPage;
const goto = (p, hash) => h.goto(p, server.url, hash);
const shot = (p, name) => h.shot(p, shotDir, `cluster-${name}`);

/** The overview's cards as {label: number}. */
async function cards(p) {
  const out = {};
  for (const c of await p.locator('dl.cards .card').all()) {
    out[await c.locator('dt').innerText()] = Number((await c.locator('dd').innerText()).split(/\s/)[0].replace(/,/g, ''));
  }
  return out;
}

/** Waits until the card LABEL reads N; fails with what it reads instead. */
async function waitCard(p, label, n, timeout = 30000) {
  await p
    .waitForFunction(
      ([l, want]) => {
        const c = [...document.querySelectorAll('dl.cards .card')].find((x) => x.querySelector('dt')?.textContent === l);
        return c && Number(c.querySelector('dd')?.textContent?.split(/\s/)[0].replace(/,/g, '')) === want;
      },
      [label, n],
      { timeout },
    )
    .catch(async () => {
      throw new h.AssertionError(`card ${label}: ${(await cards(p))[label]}, want ${n}`);
    });
}

const claimRow = (p, name) => p.locator('[data-testid="claims-table"] > tbody > tr', { hasText: `${NS}/${name}` });
const poolEntry = (p, pool) => p.locator('[data-testid="pool-list"] li', { has: p.locator('.pool-name', { hasText: new RegExp(`^${escapeRe(pool)}$`) }) }).filter({ hasText: DRIVER });

// ---- the tests ----------------------------------------------------------------------------------
// Waits bound a hang and measure nothing: 30 s covers a change going through the server, the event
// stream, a fetch and a render on a loaded 2-core CI machine.


test('cluster: the dashboard loads from draforge-server --kubeconfig and the live stream connects', async () => {
  await goto(page, 'overview');
  await waitLive(page);
  assertEq(await page.locator('main h1').innerText(), 'Overview', 'heading');
});

test('cluster: overview numbers equal what the API server holds', async () => {
  const f = clusterFacts();
  await goto(page, 'overview');
  await waitCard(page, 'Claims', f.claims.length);
  const got = await cards(page);
  assertEq(
    [got['Nodes'], got['Resource slices'], got['Pools'], got['Devices'], got['Allocated devices'], got['Claims'], got['Allocated claims'], got['Pending claims'], got['Device classes']],
    [f.nodes, f.slices, f.pools.size, f.devices, f.allocatedDevices, f.claims.length, f.allocatedClaims, f.claims.length - f.allocatedClaims, f.deviceClasses],
    'cards (nodes, slices, pools, devices, allocated devices, claims, allocated claims, pending, classes)',
  );
  assert(f.devices >= 6 && f.allocatedClaims >= 2, 'the cluster holds the test objects');
  await shot(page, 'overview');
});

test("cluster: pools view lists every pool of the cluster's slices with its utilisation", async () => {
  const f = clusterFacts();
  await goto(page, 'pools');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="pool-list"] li').length === n, f.pools.size + 1, { timeout: 30000 }).catch(async () => {
    throw new h.AssertionError(`pool list has ${await page.locator('[data-testid="pool-list"] li').count()} entries, want ${f.pools.size} pools + "all"`);
  });
  for (const p of f.pools.values()) {
    const item = page.locator('[data-testid="pool-list"] li', { has: page.locator('.pool-name', { hasText: new RegExp(`^${escapeRe(p.pool)}$`) }) }).filter({ hasText: p.driver });
    assertEq(await item.count(), 1, `entries for pool ${p.driver}/${p.pool}`);
    assertEq(await item.locator('.util-text').innerText(), `${p.allocated}/${p.devices} · ${Math.round((100 * p.allocated) / p.devices)}%`, `utilisation of ${p.pool}`);
  }
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, f.devices);
  // The allocated device of node-1 names the claim the API server says holds it.
  await goto(page, `pools?driver=${encodeURIComponent(DRIVER)}&pool=node-1`);
  await page.waitForFunction(() => document.querySelector('[data-testid="device-count"]')?.textContent === '4 shown');
  const row = page.locator('[role="option"]', { has: page.locator('span.mono', { hasText: /^gpu-0$/ }) });
  assert((await row.innerText()).includes(`${NS}/train-1`), `gpu-0 of node-1 names its holder ${NS}/train-1: ${await row.innerText()}`);
  await row.click();
  const detail = await page.locator('[data-testid="device-detail"]').innerText();
  for (const a of ['model', 'index']) assert(detail.includes(a), `device detail lists attribute ${a}`);
  await shot(page, 'pools');
});

test("cluster: claims view shows every claim of the cluster with the API server's state", async () => {
  const f = clusterFacts();
  await goto(page, 'claims');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="claims-table"] > tbody > tr').length === n, f.claims.length, { timeout: 30000 });
  for (const c of f.claims) {
    const row = page.locator('[data-testid="claims-table"] > tbody > tr', { hasText: `${c.metadata.namespace}/${c.metadata.name}` });
    assertEq(await row.count(), 1, `rows for ${c.metadata.name}`);
    assertEq(await row.locator('.badge').first().innerText(), stateOf(c), `state of ${c.metadata.name}`);
    for (const r of c.status?.allocation?.devices?.results ?? []) assert((await row.innerText()).includes(`${r.pool}/${r.device}`), `${c.metadata.name} shows device ${r.pool}/${r.device}`);
  }
  await shot(page, 'claims');
});

test('cluster: a claim that cannot fit says why, as the diagnostics do', async () => {
  const diag = await api(server.url, 'diagnostics');
  const p = diag.pending.find((x) => x.namespace === NS && x.name === 'too-big');
  assert(p, `too-big is among the pending claims: ${diag.pending.map((x) => x.name)}`);
  await goto(page, `claims?claim=${encodeURIComponent(`${NS}/too-big`)}`);
  const why = page.locator('[data-testid="why-pending"]');
  await why.waitFor({ timeout: 30000 });
  assertEq(await why.innerText(), p.summary || p.outcomeDetail || p.outcome, 'why-pending text');
  await shot(page, 'claims-pending');
  await goto(page, 'diagnostics');
  const list = page.locator('[data-testid="pending-list"]');
  await list.waitFor({ timeout: 30000 });
  for (const x of diag.pending) assert((await list.innerText()).includes(`${x.namespace}/${x.name}`), `pending ${x.name} listed`);
  await shot(page, 'diagnostics');
});

test("cluster: the graph draws the cluster's objects and links claims to their devices", async () => {
  const g = await api(server.url, 'graph');
  await goto(page, 'graph');
  await page.waitForSelector('[data-testid="graph-svg"]');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="graph-svg"] g[data-node-id]').length === n, new Set(g.nodes.map((n) => n.id)).size, { timeout: 30000 });
  for (const c of clusterFacts().claims) {
    assert(g.nodes.some((n) => n.kind === 'ResourceClaim' && n.name === c.metadata.name && n.namespace === c.metadata.namespace), `graph holds claim ${c.metadata.name}`);
  }
  await shot(page, 'graph');
  const claim = g.nodes.find((n) => n.kind === 'ResourceClaim' && n.name === 'train-1');
  const node = page.locator(`g[data-node-id="${claim.id}"]`);
  await node.focus();
  await page.keyboard.press('Enter');
  const info = page.locator('[data-testid="graph-info"]');
  await info.waitFor();
  const linked = g.edges.filter((e) => e.from === claim.id || e.to === claim.id).length;
  assert((await info.innerText()).includes(`Linked (${linked})`), `info lists ${linked} links of train-1: ${await info.innerText()}`);
  await shot(page, 'graph-selected');
});

test('cluster: a ResourceSlice created in the cluster appears as a new pool without reload', async () => {
  await goto(page, 'pools');
  await waitLive(page);
  await markDocument(page);
  const before = clusterFacts();
  apply(sliceYaml('dash-node-3', 'node-3', 'node-3', ['gpu-0', 'gpu-1', 'gpu-2']));
  await poolEntry(page, 'node-3').waitFor({ timeout: 30000 });
  assertEq(await poolEntry(page, 'node-3').locator('.util-text').innerText(), '0/3 · 0%', 'utilisation of the new pool');
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, before.devices + 3, { timeout: 30000 });
  await assertSameDocument(page);
  await shot(page, 'pools-after-new-slice');
});

test('cluster: a claim created in the cluster appears, and the overview counts follow, without reload', async () => {
  await goto(page, 'overview');
  await waitLive(page);
  await markDocument(page);
  const before = clusterFacts();
  await waitCard(page, 'Claims', before.claims.length);
  apply(claimYaml('live-1'));
  await waitCard(page, 'Claims', before.claims.length + 1);
  await waitCard(page, 'Pending claims', before.claims.length - before.allocatedClaims + 1);
  await page.locator('[data-testid="recent-changes"] li', { hasText: 'live-1' }).waitFor({ timeout: 30000 });
  await assertSameDocument(page);
  await shot(page, 'overview-after-change');
  await goto(page, 'claims');
  await markDocument(page);
  await claimRow(page, 'live-1').waitFor({ timeout: 30000 });
  assertEq(await claimRow(page, 'live-1').locator('.badge').first().innerText(), 'pending', 'state of the new claim');
});

test("cluster: allocating a claim by writing its status shows it allocated and its device held, without reload", async () => {
  // What the two cases before made (a no-op after them; lets --only run this case alone).
  apply(`${sliceYaml('dash-node-3', 'node-3', 'node-3', ['gpu-0', 'gpu-1', 'gpu-2'])}---\n${claimYaml('live-1')}`);
  await goto(page, 'claims');
  await waitLive(page);
  await markDocument(page);
  await claimRow(page, 'live-1').waitFor({ timeout: 30000 });
  allocate('live-1', 'node-3', 'gpu-2', 'node-3');
  const row = claimRow(page, 'live-1');
  await page.waitForFunction(() => {
    const r = [...document.querySelectorAll('[data-testid="claims-table"] > tbody > tr')].find((x) => x.textContent.includes('dash-it/live-1'));
    return r?.querySelector('.badge')?.textContent === 'allocated';
  }, null, { timeout: 30000 }).catch(async () => {
    throw new h.AssertionError(`live-1 row after allocation: ${await row.innerText()}`);
  });
  const claim = items('resourceclaims', '-n', NS).find((c) => c.metadata.name === 'live-1');
  assertEq(stateOf(claim), 'allocated', 'the API server holds the allocation');
  assert((await row.innerText()).includes('node-3/gpu-2'), `row names the allocated device: ${await row.innerText()}`);
  await assertSameDocument(page);
  await shot(page, 'claims-after-allocation');
  // The pools view, opened in the same document, counts the device as held by that claim.
  await goto(page, `pools?driver=${encodeURIComponent(DRIVER)}&pool=node-3`);
  await assertSameDocument(page);
  // Wait for the text rather than read it once: the view may show its last answer while it refetches.
  await page
    .waitForFunction(() => {
      const li = [...document.querySelectorAll('[data-testid="pool-list"] li')].find((x) => x.querySelector('.pool-name')?.textContent === 'node-3' && x.textContent.includes('gpu.dash-it.example.com'));
      return li?.querySelector('.util-text')?.textContent === '1/3 · 33%';
    }, null, { timeout: 30000 })
    .catch(async () => {
      throw new h.AssertionError(`utilisation of node-3 after the allocation: ${await poolEntry(page, 'node-3').locator('.util-text').innerText()}, want 1/3 · 33%`);
    });
  const dev = page.locator('[role="option"]', { has: page.locator('span.mono', { hasText: /^gpu-2$/ }) });
  await dev.waitFor({ timeout: 30000 });
  assert((await dev.innerText()).includes(`${NS}/live-1`), `gpu-2 names its holder: ${await dev.innerText()}`);
});

test('cluster: a claim and a slice deleted in the cluster disappear without reload', async () => {
  await goto(page, 'claims');
  await waitLive(page);
  await markDocument(page);
  await claimRow(page, 'train-2').waitFor({ timeout: 30000 });
  kubectl(['delete', 'resourceclaim', '-n', NS, 'train-2', '--wait=false']);
  await claimRow(page, 'train-2').waitFor({ state: 'detached', timeout: 30000 });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="claims-table"] > tbody > tr').length === n, clusterFacts().claims.length, { timeout: 30000 });
  await goto(page, 'pools');
  await markDocument(page);
  await poolEntry(page, 'node-2').waitFor({ timeout: 30000 });
  kubectl(['delete', 'resourceslice', 'dash-node-2', '--wait=false']);
  await poolEntry(page, 'node-2').waitFor({ state: 'detached', timeout: 30000 });
  await page.waitForFunction((n) => document.querySelector('[data-testid="device-count"]')?.textContent === `${n} shown`, clusterFacts().devices, { timeout: 30000 });
  await assertSameDocument(page);
});

test('cluster: dark theme renders every view of the cluster', async () => {
  const { ctx, p } = await pages.newPage('dark');
  failPage = p;
  try {
    for (const view of ['overview', 'pools', 'claims', 'graph', 'diagnostics']) {
      await goto(p, view);
      await p.waitForSelector('dl.cards .card, [role="listbox"] [role="option"], [data-testid="claims-table"] > tbody > tr, [data-testid="graph-svg"] g[data-node-id], [data-testid="pending-list"]', { timeout: 30000 });
      assertEq(await p.evaluate(() => document.documentElement.dataset.theme), 'dark', `${view} theme`);
      await shot(p, `${view}-dark`);
    }
  } finally {
    await ctx.close();
  }
});

test('cluster: the dashboard only ever reads, and no page had a script error', async () => {
  const methods = [...pages.requestMethods.keys()];
  assert(pages.requestMethods.get('GET') > 0, 'requests were seen');
  assertEq(methods.filter((m) => m !== 'GET'), [], 'non-GET methods');
  assertEq(pages.pageErrors, [], 'page errors');
});

// ---- run ----------------------------------------------------------------------------------------

const selected = (only ? tests.filter((t) => t.name.includes(only)) : tests).map((t) => ({
  name: t.name,
  fn: async () => {
    failPage = undefined;
    await t.fn();
  },
}));
h.runTap(selected, {
  shotDir,
  failPrefix: 'cluster-',
  failPage: () => failPage ?? page,
  async setup() {
    assert(kubeconfig, '--kubeconfig FILE is required');
    fillCluster();
    // --rate-limit 0: the browser and the checks share one client address.
    server = await startServer(serverBin, ['--kubeconfig', kubeconfig, '--static-dir', staticDir, '--rate-limit', '0'], { timeoutMs: 60000 });
    browser = await h.launchBrowser(chromiumPath);
    pages = h.pageFactory(browser);
    ({ ctx: context, p: page } = await pages.newPage('light'));
  },
  async teardown() {
    await context?.close();
    await browser?.close();
    await server?.stop();
  },
});
