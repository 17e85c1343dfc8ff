import { describe, expect, it } from 'vitest';
import { editText, replaySteps } from '../views/Whatif';
import type { WhatifReplay } from '../api/types';

const replay: WhatifReplay = {
  policy: 'first-fit',
  order: ['ns/b', 'ns/a', 'ns/c'],
  placed: [
    { pod: 'ns/c', node: 'n2', claims: [], feasible: ['n2'] },
    { pod: 'ns/b', node: 'n1', feasible: ['n1', 'n2'], claims: [{ claim: 'ns/g', existing: false, results: [{ request: 'r', driver: 'd', pool: 'n1', device: 'x' }] }] },
  ],
  pending: [{ pod: 'ns/a', nodes: [{ node: 'n1', filter: 'NodeResourcesFit', reason: 'cpu' }] }],
};

describe('replaySteps', () => {
  it('follows the queue order, placed pods with their node and claims, pending ones with every node', () => {
    const steps = replaySteps(replay);
    expect(steps.map((s) => s.pod)).toEqual(['ns/b', 'ns/a', 'ns/c']);
    expect(steps[0]).toEqual({ pod: 'ns/b', node: 'n1', claims: replay.placed[1]?.claims, feasible: ['n1', 'n2'] });
    expect(steps[1]).toEqual({ pod: 'ns/a', nodes: replay.pending[0]?.nodes });
    expect(steps[2]?.node).toBe('n2');
  });
  it('an empty replay has no steps', () => {
    expect(replaySteps({ policy: 'first-fit', order: [], placed: [], pending: [] })).toEqual([]);
  });
});

describe('editText', () => {
  it('says each edit as the page lists it', () => {
    expect(editText({ op: 'add-nodes', like: 'n1', count: 1 })).toBe('add 1 node like n1');
    expect(editText({ op: 'add-nodes', like: 'n1', count: 3 })).toBe('add 3 nodes like n1');
    expect(editText({ op: 'drain-node', name: 'n2' })).toBe('drain node n2');
    expect(editText({ op: 'delete-pod', name: 'ns/p' })).toBe('delete pod ns/p');
  });
});
