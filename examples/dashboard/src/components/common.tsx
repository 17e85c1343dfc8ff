import type { ReactNode } from 'react';
import type { ClaimState, DeviceAttribute, DeviceCapacity } from '../api/types';

export function Badge({ tone, children, title }: { tone: 'ok' | 'warn' | 'bad' | 'info' | 'muted'; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

const kStateTone: Record<ClaimState, 'ok' | 'warn' | 'info'> = {
  reserved: 'ok',
  allocated: 'info',
  pending: 'warn',
};

export function ClaimStateBadge({ state, deleting }: { state: ClaimState; deleting?: boolean }) {
  return (
    <>
      <Badge tone={kStateTone[state] ?? 'muted'}>{state}</Badge>
      {deleting ? (
        <>
          {' '}
          <Badge tone="bad">deleting</Badge>
        </>
      ) : null}
    </>
  );
}

/** Where a request failed; shown above the (possibly stale) data, never instead of it. */
export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      Could not load: {error}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="empty" role="status">
      Loading {what}…
    </p>
  );
}

/** An attribute value as kubectl would print it. */
export function attributeText(a: DeviceAttribute | undefined): string {
  if (!a) return '';
  if (a.string !== undefined) return a.string;
  if (a.int !== undefined) return String(a.int);
  if (a.bool !== undefined) return String(a.bool);
  if (a.version !== undefined) return a.version;
  const other = Object.values(a)[0];
  return other === undefined ? '' : typeof other === 'string' ? other : JSON.stringify(other);
}

export function capacityText(c: DeviceCapacity | undefined): string {
  if (!c) return '';
  return c.value !== undefined ? String(c.value) : JSON.stringify(c);
}

export function pct(ratio: number): string {
  return `${Math.round(ratio * 100)}%`;
}

/** One number of an inventory (`dl.cards`), optionally a link to where it comes from. */
export function Card({ label, value, sub, href, title }: { label: string; value: number; sub?: string; href?: string; title?: string }) {
  const body = (
    <>
      <dt>{label}</dt>
      <dd>
        {value.toLocaleString()} {sub ? <small>{sub}</small> : null}
      </dd>
    </>
  );
  return <div className="card" title={title}>{href ? <a href={href} style={{ color: 'inherit', textDecoration: 'none' }}>{body}</a> : body}</div>;
}

/** The first cell of a table row that opens (▸) and closes (▾) the row's details. */
export function ExpandButton({ expanded, onToggle, children }: { expanded: boolean; onToggle: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      aria-expanded={expanded}
      onClick={onToggle}
      style={{ border: 0, background: 'transparent', padding: 0, color: 'var(--accent)', textAlign: 'left' }}
    >
      {expanded ? '▾' : '▸'} {children}
    </button>
  );
}

/** A row under a table row holding that row's details, across all `columns`. */
export function DetailRow({ columns, children }: { columns: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={columns} style={{ padding: 0 }}>
        {children}
      </td>
    </tr>
  );
}

/** The space the rows above or below a windowed table's window would take (nothing when 0). */
export function SpacerRow({ height }: { height: number }) {
  return height > 0 ? <tr aria-hidden="true" style={{ height }} /> : null;
}
