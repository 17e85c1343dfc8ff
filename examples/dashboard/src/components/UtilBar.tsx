/** Utilisation as a bar plus the numbers; the bar is decoration, the text carries the meaning. */
export function UtilBar({ used, total, label }: { used: number; total: number; label?: string }) {
  const ratio = total > 0 ? Math.min(1, used / total) : 0;
  const pct = Math.round(ratio * 100);
  const level = ratio >= 1 ? 'full' : ratio >= 0.8 ? 'high' : 'normal';
  return (
    <div className="util">
      <div
        className="util-bar"
        role="meter"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={used}
        aria-label={label ?? 'utilisation'}
        aria-valuetext={`${used} of ${total} devices allocated (${pct}%)`}
      >
        <div className="util-fill" data-level={level} style={{ width: `${pct}%` }} />
      </div>
      <span className="util-text">
        {used}/{total} · {pct}%
      </span>
    </div>
  );
}
