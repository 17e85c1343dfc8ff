import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { UtilBar } from '../components/UtilBar';
import { VirtualList } from '../components/VirtualList';
import { PendingOutcomeBadge } from '../views/Diagnostics';

afterEach(cleanup);

describe('UtilBar', () => {
  it('states the numbers in text and to assistive technology', () => {
    render(<UtilBar used={3} total={4} label="gpu utilisation" />);
    const meter = screen.getByRole('meter', { name: 'gpu utilisation' });
    expect(meter.getAttribute('aria-valuetext')).toBe('3 of 4 devices allocated (75%)');
    expect(screen.getByText('3/4 · 75%')).toBeTruthy();
  });
  it('handles an empty pool without dividing by zero', () => {
    render(<UtilBar used={0} total={0} />);
    expect(screen.getByText('0/0 · 0%')).toBeTruthy();
  });
});

describe('VirtualList', () => {
  const items = Array.from({ length: 5000 }, (_, i) => ({ id: `dev-${i}` }));
  const renderList = (onSelect?: (x: { id: string }) => void) =>
    render(
      <VirtualList
        items={items}
        rowHeight={36}
        height={360}
        columns="1fr"
        label="Devices"
        header={<span>Device</span>}
        rowKey={(d) => d.id}
        renderRow={(d) => <span>{d.id}</span>}
        onSelect={onSelect}
      />,
    );

  it('renders a window of rows, not all 5,000', () => {
    renderList();
    const rows = screen.getAllByRole('option');
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.length).toBeLessThan(40);
    expect(screen.getByText('dev-0')).toBeTruthy();
    expect(screen.queryByText('dev-4999')).toBeNull();
  });

  it('moves the selection with the keyboard and reaches the end', () => {
    const picked: string[] = [];
    renderList((d) => picked.push(d.id));
    const list = screen.getByRole('listbox', { name: 'Devices' });
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    fireEvent.keyDown(list, { key: 'End' });
    expect(picked).toEqual(['dev-1', 'dev-2', 'dev-4999']);
    expect(list.getAttribute('aria-activedescendant')).toBe('vrow-4999');
  });
});

describe('PendingOutcomeBadge', () => {
  it('shows a claim no pod uses as waiting, not as a failure', () => {
    render(<PendingOutcomeBadge outcome="waiting-for-consumer" />);
    const badge = screen.getByText('waiting-for-consumer');
    expect(badge.className).toContain('badge-info');
    expect(badge.getAttribute('title')).toContain('No pod uses this claim');
  });
  it('keeps unschedulable a warning and error an error', () => {
    render(<PendingOutcomeBadge outcome="unschedulable" />);
    render(<PendingOutcomeBadge outcome="error" />);
    expect(screen.getByText('unschedulable').className).toContain('badge-warn');
    expect(screen.getByText('error').className).toContain('badge-bad');
  });
});
