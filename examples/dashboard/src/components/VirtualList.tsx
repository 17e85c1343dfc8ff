import { useCallback, useEffect, useRef, useState } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';
import { visibleRange } from './virtual';

export interface VirtualListProps<T> {
  /** The rows; `undefined` is a row not loaded yet (a server page still on its way). */
  items: readonly (T | undefined)[];
  rowHeight: number;
  height: number;
  /** CSS grid-template-columns shared by the header and the rows. */
  columns: string;
  header: ReactNode;
  renderRow: (item: T, index: number) => ReactNode;
  rowKey: (item: T) => string;
  selectedKey?: string;
  onSelect?: (item: T) => void;
  label: string;
  /** Told the rows [first, last) that are rendered, whenever they change (to load them). */
  onRange?: (first: number, last: number) => void;
}

/**
 * A list that renders only the rows in view (plus a few), so 5,000+ devices scroll smoothly.
 * It is an ARIA listbox: arrow keys, Page Up/Down, Home/End move the selection, which scrolls
 * into view; Enter or a click selects.
 */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, rowHeight, height, columns, header, renderRow, rowKey, selectedKey, onSelect, label, onRange } = props;
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [active, setActive] = useState(0);
  const { first, last } = visibleRange(scrollTop, height, rowHeight, items.length, 8);

  useEffect(() => {
    onRange?.(first, last);
  }, [onRange, first, last]);

  useEffect(() => {
    if (active >= items.length) setActive(Math.max(0, items.length - 1));
  }, [items.length, active]);

  const moveTo = useCallback(
    (index: number) => {
      const i = Math.max(0, Math.min(items.length - 1, index));
      setActive(i);
      const el = ref.current;
      if (!el) return;
      const top = i * rowHeight;
      if (top < el.scrollTop) el.scrollTop = top;
      else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
      const item = items[i];
      if (item !== undefined) onSelect?.(item);
    },
    [items, rowHeight, onSelect],
  );

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, Math.floor(height / rowHeight) - 1);
    const moves: Record<string, number> = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      PageDown: active + page,
      PageUp: active - page,
      Home: 0,
      End: items.length - 1,
    };
    const to = moves[e.key];
    if (to !== undefined) {
      e.preventDefault();
      moveTo(to);
    }
  };

  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    const item = items[i];
    if (item === undefined) {
      rows.push(
        <div key={`row-${i}`} id={`vrow-${i}`} role="option" aria-selected={false} aria-busy="true" className="vrow" style={{ top: i * rowHeight, height: rowHeight, gridTemplateColumns: columns }}>
          <span className="muted">loading…</span>
        </div>,
      );
      continue;
    }
    const key = rowKey(item);
    rows.push(
      <div
        key={key}
        id={`vrow-${i}`}
        role="option"
        aria-selected={key === selectedKey}
        className="vrow"
        style={{ top: i * rowHeight, height: rowHeight, gridTemplateColumns: columns }}
        onClick={() => {
          setActive(i);
          onSelect?.(item);
        }}
      >
        {renderRow(item, i)}
      </div>,
    );
  }

  return (
    <div>
      <div className="vhead" style={{ gridTemplateColumns: columns }} aria-hidden="true">
        {header}
      </div>
      <div
        ref={ref}
        className="vlist"
        style={{ height }}
        role="listbox"
        aria-label={label}
        tabIndex={0}
        aria-activedescendant={items.length > 0 ? `vrow-${active}` : undefined}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div className="vlist-inner" style={{ height: items.length * rowHeight }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
