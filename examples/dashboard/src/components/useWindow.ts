import { useState } from 'react';
import type { UIEvent } from 'react';
import { visibleRange } from './virtual';

/** Lists longer than this many rows are windowed (only the rows in view are in the DOM). */
export const kWindowAbove = 150;

export interface RowWindow {
  /** Whether the list is windowed at all (short lists render every row, as before). */
  windowed: boolean;
  first: number;
  last: number;
  /** Space the rows above `first` and below `last` would take, for spacers. */
  padTop: number;
  padBottom: number;
  onScroll: (e: UIEvent<HTMLElement>) => void;
}

/**
 * The rows of a list of `count` fixed-height rows (`rowHeight` px) to render inside a scroll box
 * `viewport` px high: the rows in view plus a few on either side once `count` exceeds
 * kWindowAbove, every row below it. The caller puts `onScroll` on the scroll box and spacers of
 * `padTop`/`padBottom` around the rows, so the scrollbar keeps the whole list's height.
 */
export function useRowWindow(count: number, rowHeight: number, viewport: number): RowWindow {
  const [scrollTop, setScrollTop] = useState(0);
  const onScroll = (e: UIEvent<HTMLElement>) => setScrollTop(e.currentTarget.scrollTop);
  if (count <= kWindowAbove) return { windowed: false, first: 0, last: count, padTop: 0, padBottom: 0, onScroll };
  const { first, last } = visibleRange(scrollTop, viewport, rowHeight, count, 10);
  return { windowed: true, first, last, padTop: first * rowHeight, padBottom: (count - last) * rowHeight, onScroll };
}
