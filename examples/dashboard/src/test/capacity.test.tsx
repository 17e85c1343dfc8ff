import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { CatalogPackage, NodeCapacity, PackagesAnswer, PoolAvailability, PoolStatus } from '../api/types';
import {
  availabilityTotals,
  countText,
  limitCounts,
  nodeWhyText,
  packageDevicesText,
  partitionsText,
  shareableText,
  stopSentence,
} from '../components/capacity';
import { Availability } from '../views/Availability';
import { Packages } from '../views/Packages';

const capacity = (over: Partial<CatalogPackage['capacity']> = {}): CatalogPackage['capacity'] => ({
  prototype: 'package p',
  total: 0,
  cap: 1000,
  stop: 'exhausted',
  resourcesChecked: true,
  nodes: [],
  ...over,
});

describe('stopSentence: the CLI STOPPED words', () => {
  it('says each stop reason as `draforge package capacity` prints it', () => {
    expect(stopSentence(capacity({ stop: 'exhausted' }))).toBe('no node fits another');
    expect(stopSentence(capacity({ stop: 'cap', cap: 25 }))).toBe('cap of 25 reached');
    expect(stopSentence(capacity({ stop: 'quota', quota: { quotas: ['gpus'], units: 3, why: 'requests.cpu: 4 left, 8 per unit' } }))).toBe(
      'quota: requests.cpu: 4 left, 8 per unit',
    );
    expect(stopSentence(capacity({ stop: 'error', errorNode: 'node-2', error: 'boom' }))).toBe('error on node node-2: boom');
    expect(stopSentence(capacity({ stop: 'no-nodes' }))).toBe('no nodes in the input');
  });
});

describe('package and node texts', () => {
  it('names the devices of a unit, or none for a CPU-only package', () => {
    const p = { id: 'a', cpu: '8', memory: '64Gi', gpu: 2, deviceClassName: 'a100.gpu.example.com', capacity: capacity() };
    expect(packageDevicesText(p)).toBe('2 × a100.gpu.example.com');
    expect(packageDevicesText({ ...p, gpu: 0, deviceClassName: undefined })).toBe('none');
  });
  it('explains a node by its sentence, else by the scheduler reasons', () => {
    expect(nodeWhyText({ node: 'n', count: 0, reasons: ['Insufficient cpu'], why: 'cpu: 32 requested, 30 free (allocatable 62)' })).toBe(
      'cpu: 32 requested, 30 free (allocatable 62)',
    );
    expect(nodeWhyText({ node: 'n', count: 0, reasons: ['Insufficient cpu', 'Insufficient memory'] })).toBe('Insufficient cpu; Insufficient memory');
    expect(nodeWhyText({ node: 'n', count: 3, reasons: [] })).toBe('—');
  });
  it('counts what limits the nodes, most frequent first', () => {
    const nodes: NodeCapacity[] = [
      { node: 'a', count: 0, reasons: [], limitedBy: 'cpu' },
      { node: 'b', count: 1, reasons: [], limitedBy: 'devices' },
      { node: 'c', count: 2, reasons: [], limitedBy: 'devices' },
    ];
    expect(limitCounts(capacity({ nodes }))).toEqual([
      ['devices', 2],
      ['cpu', 1],
    ]);
  });
});

describe('availability texts', () => {
  const mig: PoolAvailability = {
    driver: 'mig.example.com',
    poolName: 'node-3-mig',
    totalDevices: 3,
    allocatedDevices: 1,
    availableDevices: 2,
    unavailableDevices: 0,
    partitionSummary: [
      { attribute: 'profile', type: '4g.40gb', total: 2, allocatable: 1 },
      { attribute: 'profile', type: 'full', total: 1, allocatable: 0 },
    ],
  };
  const nic: PoolAvailability = {
    driver: 'nic.example.com',
    poolName: 'fabric',
    totalDevices: 2,
    allocatedDevices: 1,
    availableDevices: 0,
    unavailableDevices: 1,
    shareableSummary: { fullyAvailableDevices: 0, partiallyAvailableDevices: 1, capacity: [{ name: 'bandwidth', total: '400G', consumed: '100G', available: '300G' }] },
  };
  const incomplete: PoolAvailability = { driver: 'x', poolName: 'half', generation: 2, validationError: 'PoolIncomplete: pool x/half is incomplete: observed 1/2 slices at generation 2' };

  it('says partitions and shareable devices in the CLI PARTITIONS/SHAREABLE words', () => {
    expect(partitionsText(mig)).toBe('4g.40gb 1/2, full 0/1');
    expect(shareableText(nic)).toBe('0 free, 1 shared; bandwidth 300G/400G');
    expect(partitionsText(nic)).toBe('');
    expect(shareableText(mig)).toBe('');
  });
  it('sums the counts of complete pools and counts the pools with a validation error', () => {
    expect(availabilityTotals([mig, nic, incomplete])).toEqual({
      counted: 2,
      withErrors: 1,
      totalDevices: 5,
      allocatedDevices: 2,
      availableDevices: 2,
      unavailableDevices: 1,
    });
    expect(countText(incomplete.totalDevices)).toBe('-');
    expect(countText(0)).toBe('0');
  });
});

// ---- the views against a scripted server ---------------------------------------------------------

/** Answers GETs by path prefix; records every URL asked for. */
function fakeServer(routes: Record<string, (url: URL) => unknown>) {
  const asked: string[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL) => {
    const url = new URL(String(input), 'http://dash.test/');
    asked.push(url.pathname.replace(/^\//, '') + url.search);
    const route = Object.keys(routes).find((r) => url.pathname.endsWith(r));
    if (!route) return new Response(JSON.stringify({ error: { message: 'not found' } }), { status: 404 });
    return new Response(JSON.stringify(routes[route]!(url)), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return asked;
}

const inventory = {
  totalGpuAllocatable: 16,
  draClaimCount: 5,
  draAllocatedClaims: 4,
  draAllocatedDevices: 5,
  draResourceSlices: 6,
  draDevices: 17,
  namespaces: { 'team-a': { draClaimCount: 5, draAllocatedClaims: 4, draAllocatedDevices: 5 } },
};

function packagesAnswer(over: Partial<PackagesAnswer> = {}): PackagesAnswer {
  return {
    snapshot: { generation: 3, resourceVersion: '' },
    catalog: { loaded: true, source: 'demo' },
    problems: [],
    namespace: 'default',
    quota: false,
    packages: [],
    inventory,
    ...over,
  };
}

const manyNodes = (n: number): NodeCapacity[] =>
  Array.from({ length: n }, (_, i) => ({ node: `node-${i}`, count: i % 3, reasons: ['cannot allocate all claims'], why: `why ${i}`, limitedBy: i % 2 ? 'cpu' : 'devices' }));

describe('Packages view', () => {
  beforeEach(() => window.history.replaceState(null, '', '#/packages'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it('without a catalog shows the inventory and says how to load one', async () => {
    fakeServer({ 'api/v1/packages': () => packagesAnswer({ catalog: { loaded: false, source: '' } }) });
    render(<Packages params={new URLSearchParams()} />);
    const hint = await screen.findByTestId('no-catalog');
    expect(hint.textContent).toContain('draforge-server --package-catalog FILE');
    expect(hint.textContent).toContain('server.packageCatalog');
    const cards = within(screen.getByTestId('package-inventory'));
    expect(cards.getByText('Allocatable devices').nextSibling?.textContent?.trim()).toBe('16');
    expect(cards.getByText('Allocated devices').nextSibling?.textContent?.trim()).toBe('5');
    expect(screen.queryByTestId('packages-table')).toBeNull();
    expect(within(screen.getByTestId('namespace-inventory')).getByText('team-a')).toBeTruthy();
  });

  it('lists each package with its cluster-wide units and stop reason, and catalog problems as warnings', async () => {
    const packages: CatalogPackage[] = [
      { id: 'gpu-a100-1x', specName: 'gpu.a100.1x', cpu: '8', memory: '64Gi', gpu: 1, deviceClassName: 'a100.gpu.example.com', capacity: capacity({ total: 5, nodes: manyNodes(3) }) },
      { id: 'cpu-only', cpu: '4', memory: '16Gi', gpu: 0, capacity: capacity({ total: 45, stop: 'cap', cap: 45 }) },
    ];
    fakeServer({ 'api/v1/packages': () => packagesAnswer({ packages, problems: ['packages[0].allocation.deviceClassName: Not found: "x"'] }) });
    render(<Packages params={new URLSearchParams()} />);
    const table = await screen.findByTestId('packages-table');
    const rows = table.querySelectorAll('tbody tr');
    expect(rows.length).toBe(2);
    expect(rows[0]!.querySelector('[data-testid="package-total"]')!.textContent).toBe('5');
    expect(rows[0]!.querySelector('[data-testid="package-stop"]')!.textContent).toBe('no node fits another');
    expect(rows[0]!.textContent).toContain('1 × a100.gpu.example.com');
    expect(rows[1]!.querySelector('[data-testid="package-total"]')!.textContent).toBe('45');
    expect(rows[1]!.querySelector('[data-testid="package-stop"]')!.textContent).toBe('cap of 45 reached');
    expect(screen.getByTestId('catalog-problems').textContent).toContain('packages[0].allocation.deviceClassName: Not found');
  });

  it('opens a package into its nodes, windowed at 10,000 nodes, with a node search', async () => {
    const nodes = manyNodes(10000);
    const total = nodes.reduce((n, x) => n + x.count, 0);
    fakeServer({ 'api/v1/packages': () => packagesAnswer({ packages: [{ id: 'big', cpu: '1', memory: '1Gi', gpu: 1, deviceClassName: 'gpu', capacity: capacity({ total, nodes }) }] }) });
    render(<Packages params={new URLSearchParams('open=big')} />);
    const list = await screen.findByRole('listbox', { name: 'Nodes for big' });
    const options = within(list).getAllByRole('option');
    expect(options.length).toBeGreaterThan(5);
    expect(options.length).toBeLessThan(60);
    expect(screen.getByTestId('package-limits').textContent).toContain(`${(6666).toLocaleString()} of ${(10000).toLocaleString()} nodes take more`);
    expect(screen.getByTestId('package-limits').textContent).toContain(`cpu on ${(5000).toLocaleString()}, devices on ${(5000).toLocaleString()}`);
    fireEvent.change(screen.getByRole('searchbox', { name: 'Find a node for big' }), { target: { value: 'node-9999' } });
    const one = within(screen.getByRole('listbox', { name: 'Nodes for big' })).getAllByRole('option');
    expect(one.length).toBe(1);
    fireEvent.click(one[0]!);
    expect(screen.getByTestId('node-why').textContent).toBe('node-9999: 0 more, limited by cpu. why 9999');
  });

  it('asks for the namespace typed (and its quota) and refetches when the route changes', async () => {
    const asked = fakeServer({ 'api/v1/packages': (u) => packagesAnswer({ namespace: u.searchParams.get('namespace') ?? 'default', quota: u.searchParams.get('quota') === 'true' }) });
    const { rerender } = render(<Packages params={new URLSearchParams()} />);
    await screen.findByTestId('packages-table').catch(() => screen.findByText(/The catalog has no packages/));
    expect(asked).toEqual(['api/v1/packages']);
    const quota = screen.getByRole('checkbox', { name: 'Within quota' }) as HTMLInputElement;
    expect(quota.disabled).toBe(true);
    fireEvent.change(screen.getByRole('combobox', { name: 'Namespace' }), { target: { value: 'team-a' } });
    fireEvent.submit(screen.getByRole('form', { name: 'Count for a namespace' }));
    expect(window.location.hash).toBe('#/packages?namespace=team-a');
    rerender(<Packages params={new URLSearchParams('namespace=team-a')} />);
    await waitFor(() => expect(asked).toContain('api/v1/packages?namespace=team-a'));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Within quota' }));
    expect(window.location.hash).toBe('#/packages?namespace=team-a&quota=true');
    rerender(<Packages params={new URLSearchParams('namespace=team-a&quota=true')} />);
    await waitFor(() => expect(asked).toContain('api/v1/packages?namespace=team-a&quota=true'));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).nextSibling?.textContent).toContain('namespace team-a, within its ResourceQuotas'));
  });
});

describe('Availability view', () => {
  beforeEach(() => window.history.replaceState(null, '', '#/availability'));
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  const poolsOf = (driver: string, n: number) => Array.from({ length: n }, (_, i) => ({ driver, pool: `node-${i}`, node: `node-${i}`, devices: 8, allocatedDevices: 1 }));

  it('asks pool-status for the first driver and shows every field of each pool', async () => {
    const status: PoolStatus = {
      poolCount: 2,
      pools: [
        { driver: 'a.example.com', poolName: 'node-0', nodeName: 'node-0', generation: 1, resourceSliceCount: 1, totalDevices: 8, allocatedDevices: 3, availableDevices: 4, unavailableDevices: 1 },
        { driver: 'a.example.com', poolName: 'half', generation: 2, validationError: 'PoolIncomplete: pool a.example.com/half is incomplete: observed 1/2 slices at generation 2' },
      ],
      conditions: [{ type: 'Complete', status: 'True', reason: 'CalculationComplete', message: 'Calculated status for 2 pools (1 incomplete)' }],
    };
    const asked = fakeServer({ 'api/v1/pools': () => ({ snapshot: { generation: 1 }, items: [...poolsOf('b.example.com', 1), ...poolsOf('a.example.com', 2)] }), 'api/v1/pool-status': () => status });
    render(<Availability params={new URLSearchParams()} />);
    const table = await screen.findByTestId('availability-table');
    expect(asked).toContain('api/v1/pool-status?driver=a.example.com');
    const rows = [...table.querySelectorAll('tbody tr')].map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent));
    expect(rows[0]).toEqual(['▸ node-0', 'node-0', '1', '1', '8', '3', '4', '1', '—', '—', '—']);
    expect(rows[1]!.slice(0, 8)).toEqual(['▸ half', '—', '2', '-', '-', '-', '-', '-']);
    expect(rows[1]![10]).toBe('PoolIncomplete');
    const totals = within(screen.getByTestId('availability-totals'));
    expect(totals.getByText('Available').nextSibling?.textContent?.trim()).toBe('4');
    expect(totals.getByText('Validation errors').nextSibling?.textContent?.trim()).toBe('1');
    expect(screen.getByTestId('availability-condition').textContent).toBe('Complete Calculated status for 2 pools (1 incomplete)');
    fireEvent.click(within(table).getByRole('button', { name: '▸ half' }));
    expect(window.location.hash).toBe('#/availability?open=a.example.com%2Fhalf');
  });

  it('passes driver, pool, limit and partition attribute to the request, and windows 1,000 pools', async () => {
    const many: PoolAvailability[] = Array.from({ length: 1000 }, (_, i) => ({ driver: 'a', poolName: `node-${i}`, generation: 1, resourceSliceCount: 1, totalDevices: 8, allocatedDevices: 1, availableDevices: 7, unavailableDevices: 0 }));
    const asked = fakeServer({ 'api/v1/pools': () => ({ snapshot: { generation: 1 }, items: poolsOf('a', 10000) }), 'api/v1/pool-status': () => ({ poolCount: 10000, pools: many, conditions: [] }) });
    render(<Availability params={new URLSearchParams('driver=a&limit=1000&partitionAttribute=profile')} />);
    const table = await screen.findByTestId('availability-table');
    expect(asked).toContain('api/v1/pool-status?driver=a&limit=1000&partitionAttribute=profile');
    const rendered = table.querySelectorAll('tbody tr[data-pool]').length;
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(60);
    expect(screen.getByTestId('availability-count').textContent).toBe(`${(1000).toLocaleString()} of ${(10000).toLocaleString()} pools (limit)`);
    // The pool box suggests a few of the 10,000 pools, never all of them.
    expect(document.querySelectorAll('#availability-pool-names option').length).toBe(30);
    const box = screen.getByRole('combobox', { name: 'Pool' });
    fireEvent.change(box, { target: { value: 'node-9876' } });
    expect(window.location.hash).toBe('#/availability?driver=a&pool=node-9876&limit=1000&partitionAttribute=profile');
  });
});
