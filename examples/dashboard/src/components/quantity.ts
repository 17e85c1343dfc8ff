// Kubernetes resource quantities ("40Gi", "500m", "1.5e3") as numbers, for drawing counter bars.
// Display always uses the server's own strings; this is only for ratios.

const kBinary: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const kDecimal: Record<string, number> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** The value of a quantity string, or undefined when it is not a valid quantity. */
export function parseQuantity(q: string): number | undefined {
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/.exec(q.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? '';
  const mult = kBinary[suffix] ?? kDecimal[suffix];
  return mult === undefined ? undefined : base * mult;
}

/** used/total as a ratio in [0, 1], or undefined when either is not a quantity or total is 0. */
export function quantityRatio(used: string | undefined, total: string): number | undefined {
  const t = parseQuantity(total);
  const u = used === undefined ? 0 : parseQuantity(used);
  if (t === undefined || u === undefined || t <= 0) return undefined;
  return Math.max(0, Math.min(1, u / t));
}
