import type { Device, DeviceList } from './types';

/** An API answer that was not a 2xx; `message` is the server's error message when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The API lives next to the dashboard (same origin; relative so a path prefix keeps working). */
export function apiUrl(path: string, query?: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined && v !== '') params.set(k, v);
  }
  const qs = params.toString();
  return `api/v1/${path}${qs ? `?${qs}` : ''}`;
}

/**
 * GETs one API path and parses the JSON body.
 * Throws ApiError for a non-2xx answer (with the server's `error.message` when present) and the
 * fetch's own error when the request could not be made or was aborted.
 */
export async function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, headers: { Accept: 'application/json' } });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`.trim();
    try {
      const body = (await res.json()) as { error?: { message?: string } };
      if (body.error?.message) message = body.error.message;
    } catch {
      // Not JSON: keep the status line.
    }
    throw new ApiError(url, res.status, `GET ${url}: ${message}`);
  }
  return (await res.json()) as T;
}

/**
 * POSTs `body` as JSON to one API path and parses the JSON answer. Only for the server's
 * compute-only route (POST /api/v1/whatif/replay), which changes nothing; errors as getJson.
 */
export async function postJson<T>(url: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    signal,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`.trim();
    try {
      const answer = (await res.json()) as { error?: { message?: string } };
      if (answer.error?.message) message = answer.error.message;
    } catch {
      // Not JSON: keep the status line.
    }
    throw new ApiError(url, res.status, `POST ${url}: ${message}`);
  }
  return (await res.json()) as T;
}

/** Largest page the server accepts (openapi: /api/v1/devices limit maximum). */
export const kDevicePage = 10000;

/**
 * Fetches every device matching `query`, page by page. Pages come from one server snapshot each;
 * if the generation moves between pages the fetch restarts once so the list is never a mix.
 */
export async function getAllDevices(
  query: Record<string, string | undefined>,
  signal?: AbortSignal,
): Promise<{ items: Device[]; total: number; generation: number }> {
  for (let attempt = 0; ; attempt++) {
    const items: Device[] = [];
    let generation = -1;
    let total = 0;
    let mixed = false;
    for (let offset = 0; ; ) {
      const page = await getJson<DeviceList>(
        apiUrl('devices', { ...query, offset: String(offset), limit: String(kDevicePage) }),
        signal,
      );
      if (generation >= 0 && page.snapshot.generation !== generation) mixed = true;
      generation = page.snapshot.generation;
      total = page.total;
      items.push(...page.items);
      offset += page.items.length;
      if (page.items.length === 0 || offset >= page.total) break;
    }
    if (!mixed || attempt >= 1) return { items, total, generation };
  }
}
