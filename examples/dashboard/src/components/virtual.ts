/**
 * The rows a virtual list must render: [first, last) covering the viewport at `scrollTop` plus
 * `overscan` rows on either side, clamped to [0, count).
 */
export function visibleRange(
  scrollTop: number,
  viewport: number,
  rowHeight: number,
  count: number,
  overscan: number,
): { first: number; last: number } {
  if (count <= 0 || rowHeight <= 0) return { first: 0, last: 0 };
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);
  return { first: Math.min(first, last), last };
}
