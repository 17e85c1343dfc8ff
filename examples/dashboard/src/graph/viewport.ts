// Pan/zoom state of the graph canvas: screen = world * k + (x, y).

export interface View {
  x: number;
  y: number;
  k: number;
}

export const kMinZoom = 0.05;
export const kMaxZoom = 4;

const clampK = (k: number) => Math.min(kMaxZoom, Math.max(kMinZoom, k));

/** Zooms by `factor` keeping the world point under screen point (px, py) fixed. */
export function zoomAt(v: View, factor: number, px: number, py: number): View {
  const k = clampK(v.k * factor);
  const f = k / v.k;
  return { k, x: px - (px - v.x) * f, y: py - (py - v.y) * f };
}

/** Below this zoom labels are unreadable: a fit that would need less shows the top instead. */
export const kReadableZoom = 0.3;

/**
 * The view that shows the whole world rectangle inside the screen, with a margin, at most 1:1.
 * When the whole height would only fit below kReadableZoom (thousands of devices in one column),
 * it fits the width instead and shows the top, so the first screen is still legible.
 */
export function fitView(worldW: number, worldH: number, screenW: number, screenH: number, margin = 24): View {
  if (worldW <= 0 || worldH <= 0 || screenW <= 0 || screenH <= 0) return { x: margin, y: margin, k: 1 };
  const byWidth = (screenW - 2 * margin) / worldW;
  const byHeight = (screenH - 2 * margin) / worldH;
  let k = clampK(Math.min(1, byWidth, byHeight));
  if (k < kReadableZoom && byWidth > k) k = clampK(Math.min(1, byWidth));
  return { k, x: (screenW - worldW * k) / 2, y: margin };
}

/** The view that puts world point (wx, wy) at the screen centre, keeping the zoom. */
export function centreOn(v: View, wx: number, wy: number, screenW: number, screenH: number): View {
  return { k: v.k, x: screenW / 2 - wx * v.k, y: screenH / 2 - wy * v.k };
}

/** World rectangle visible on screen (for culling what is not drawn). */
export function visibleWorld(v: View, screenW: number, screenH: number): { x0: number; y0: number; x1: number; y1: number } {
  return { x0: -v.x / v.k, y0: -v.y / v.k, x1: (screenW - v.x) / v.k, y1: (screenH - v.y) / v.k };
}
