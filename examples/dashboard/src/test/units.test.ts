import { describe, expect, it } from 'vitest';
import { visibleRange } from '../components/virtual';
import { parseQuantity, quantityRatio } from '../components/quantity';
import { centreOn, fitView, kMaxZoom, visibleWorld, zoomAt } from '../graph/viewport';
import { parseHash, routeHref } from '../router';
import { apiUrl } from '../api/client';

describe('visibleRange', () => {
  it('covers the viewport plus overscan, clamped to the list', () => {
    expect(visibleRange(0, 360, 36, 5000, 8)).toEqual({ first: 0, last: 18 });
    expect(visibleRange(36 * 1000, 360, 36, 5000, 8)).toEqual({ first: 992, last: 1018 });
    expect(visibleRange(36 * 4995, 360, 36, 5000, 8)).toEqual({ first: 4987, last: 5000 });
    expect(visibleRange(0, 360, 36, 0, 8)).toEqual({ first: 0, last: 0 });
  });
});

describe('parseQuantity', () => {
  it('reads binary, decimal and exponent suffixes', () => {
    expect(parseQuantity('40Gi')).toBe(40 * 2 ** 30);
    expect(parseQuantity('500m')).toBe(0.5);
    expect(parseQuantity('1.5k')).toBe(1500);
    expect(parseQuantity('2e3')).toBe(2000);
    expect(parseQuantity('108')).toBe(108);
  });
  it('rejects what is not a quantity', () => {
    expect(parseQuantity('')).toBeUndefined();
    expect(parseQuantity('10Gb')).toBeUndefined();
    expect(parseQuantity('Gi')).toBeUndefined();
  });
  it('gives ratios across units and refuses a zero total', () => {
    expect(quantityRatio('20Gi', '40Gi')).toBe(0.5);
    expect(quantityRatio('1024Mi', '2Gi')).toBe(0.5);
    expect(quantityRatio(undefined, '8')).toBe(0);
    expect(quantityRatio('1', '0')).toBeUndefined();
  });
});

describe('viewport', () => {
  it('zooming keeps the point under the cursor fixed', () => {
    const v = { x: 10, y: 20, k: 1 };
    const z = zoomAt(v, 2, 100, 100);
    // World point under (100,100) before: (90, 80).
    expect([90 * z.k + z.x, 80 * z.k + z.y]).toEqual([100, 100]);
    expect(zoomAt(v, 1000, 0, 0).k).toBe(kMaxZoom);
  });
  it('fit shows the whole world and never enlarges past 1:1', () => {
    const f = fitView(2000, 1000, 1000, 600);
    const w = visibleWorld(f, 1000, 600);
    expect(w.x0).toBeLessThanOrEqual(0);
    expect(w.x1).toBeGreaterThanOrEqual(2000);
    expect(w.y1).toBeGreaterThanOrEqual(1000);
    expect(fitView(10, 10, 1000, 600).k).toBe(1);
  });
  it('a graph too tall to read when fitted is fitted by width and shown from the top', () => {
    const f = fitView(1500, 200000, 1000, 600, 24);
    expect(f.k).toBeCloseTo(952 / 1500);
    expect(f.y).toBe(24);
    const w = visibleWorld(f, 1000, 600);
    expect(w.x0).toBeLessThanOrEqual(0);
    expect(w.x1).toBeGreaterThanOrEqual(1500);
  });
  it('centres a world point', () => {
    const c = centreOn({ x: 0, y: 0, k: 2 }, 50, 60, 400, 300);
    expect([50 * c.k + c.x, 60 * c.k + c.y]).toEqual([200, 150]);
  });
});

describe('routes and URLs', () => {
  it('parses views and their filters from the hash, defaulting to the overview', () => {
    const r = parseHash('#/pools?driver=gpu.example.com&pool=node-1');
    expect(r.view).toBe('pools');
    expect(r.params.get('pool')).toBe('node-1');
    expect(parseHash('').view).toBe('overview');
    expect(parseHash('#/nonsense').view).toBe('overview');
    expect(routeHref('claims', { state: 'pending', q: undefined })).toBe('#/claims?state=pending');
  });
  it('builds relative API URLs and drops empty filters', () => {
    expect(apiUrl('graph', { namespace: 'team a', node: '', driver: undefined })).toBe('api/v1/graph?namespace=team+a');
    expect(apiUrl('summary')).toBe('api/v1/summary');
  });
});
