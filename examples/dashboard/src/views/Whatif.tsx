import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { apiUrl, getJson, postJson } from '../api/client';
import { useLive, useResource } from '../api/hooks';
import type { Summary, WhatifDeviceResult, WhatifEdit, WhatifNodeReason, WhatifPlacedClaim, WhatifPolicy, WhatifReplay } from '../api/types';
import { Badge, ErrorNote, Loading } from '../components/common';
import { setRouteParams } from '../router';

const kPolicies: { value: WhatifPolicy; text: string }[] = [
  { value: 'first-fit', text: 'first fit (name order)' },
  { value: 'most-allocated', text: 'most allocated' },
  { value: 'least-allocated', text: 'least allocated' },
];

type EditOp = WhatifEdit['op'];
const kEditOps: { op: EditOp; text: string; target: string }[] = [
  { op: 'add-nodes', text: 'Add nodes like', target: 'node' },
  { op: 'drain-node', text: 'Drain node', target: 'node' },
  { op: 'delete-node', text: 'Delete node', target: 'node' },
  { op: 'delete-claim', text: 'Delete claim', target: 'namespace/claim' },
  { op: 'delete-pod', text: 'Delete pod', target: 'namespace/pod' },
];

/** Pause between two steps while playing. */
const kPlayMs = 1000;
/** Pods of the queue listed around the current one, and node rows of a pending pod shown at once:
 * a replay of thousands of pods on thousands of nodes stays a small page (search finds the rest). */
const kQueueWindow = 100;
const kNodeRows = 200;
/** Node names the name field suggests at once (those that contain what is typed). */
const kNodeSuggestions = 30;

/** One pod of the replay, in queue order: where it lands, or why it stays pending. */
export interface WhatifStep {
  pod: string;
  node?: string;
  claims?: WhatifPlacedClaim[];
  /** The nodes the pod fits on at its turn (the policy chose `node` among them). */
  feasible?: string[];
  nodes?: WhatifNodeReason[];
}

/** The replay as steps, one per pending pod in kube-scheduler's queue order. */
export function replaySteps(r: WhatifReplay): WhatifStep[] {
  const placed = new Map(r.placed.map((p) => [p.pod, p]));
  const pending = new Map(r.pending.map((p) => [p.pod, p]));
  return r.order.map((pod) => {
    const p = placed.get(pod);
    if (p) return { pod, node: p.node, claims: p.claims, feasible: p.feasible };
    return { pod, nodes: pending.get(pod)?.nodes ?? [] };
  });
}

export function editText(e: WhatifEdit): string {
  if (e.op === 'add-nodes') return `add ${e.count} node${e.count === 1 ? '' : 's'} like ${e.like}`;
  return `${e.op.replace('-', ' ')} ${e.name}`;
}

function isPolicy(p: string | null): p is WhatifPolicy {
  return kPolicies.some((k) => k.value === p);
}

/** The placed pod: its node and every device of its claims. */
function PlacedStep({ step }: { step: WhatifStep }) {
  type Row = { c: WhatifPlacedClaim; r: WhatifDeviceResult | undefined };
  const rows = (step.claims ?? []).flatMap((c): Row[] =>
    c.results.length === 0 ? [{ c, r: undefined }] : c.results.map((r) => ({ c, r })),
  );
  return (
    <>
      <p>
        <Badge tone="ok">placed</Badge> on node <strong data-testid="whatif-node">{step.node}</strong>
        {step.claims && step.claims.length === 0 ? ' (no claims)' : ''}
        {step.feasible && (
          <span className="muted" data-testid="whatif-feasible" title={step.feasible.join(', ')}>
            {' '}
            · fits on {step.feasible.length} node{step.feasible.length === 1 ? '' : 's'} at its turn
          </span>
        )}
      </p>
      {rows.length > 0 && (
        <table aria-label={`Devices of ${step.pod}`}>
          <thead>
            <tr>
              <th scope="col">Claim</th>
              <th scope="col">Request</th>
              <th scope="col">Driver</th>
              <th scope="col">Pool</th>
              <th scope="col">Device</th>
              <th scope="col">Allocated</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ c, r }, i) => (
              <tr key={`${c.claim}-${i}`}>
                <td>{c.claim}</td>
                <td>{r?.request ?? '—'}</td>
                <td>{r?.driver ?? '—'}</td>
                <td>{r?.pool ?? '—'}</td>
                <td>{r?.device ?? 'no devices'}</td>
                <td>{c.existing ? 'before the replay' : 'by the replay'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** The pending pod: every node with the scheduler plugin that rejected it and why. */
function PendingStep({ step }: { step: WhatifStep }) {
  const [search, setSearch] = useState('');
  const all = step.nodes ?? [];
  const q = search.trim().toLowerCase();
  const matching = q ? all.filter((n) => n.node.toLowerCase().includes(q) || n.filter.toLowerCase().includes(q) || n.reason.toLowerCase().includes(q)) : all;
  const shown = matching.slice(0, kNodeRows);
  return (
    <>
      <p>
        <Badge tone="warn">pending</Badge> fits on no node
      </p>
      {all.length > kNodeRows && (
        <p className="toolbar">
          <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="node, filter or reason" aria-label="Search the nodes" />
          <span className="muted">
            {shown.length} of {matching.length} node{matching.length === 1 ? '' : 's'} shown
          </span>
        </p>
      )}
      <table aria-label={`Why ${step.pod} fits on no node`}>
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Filter</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((n) => (
            <tr key={n.node}>
              <td>{n.node}</td>
              <td>{n.filter}</td>
              <td className="muted">{n.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * What-if: replays the pending pods on a copy of the cluster (the server's
 * /api/v1/whatif/replay; nothing is changed), optionally after edits, and steps through the
 * replay pod by pod.
 */
export function Whatif({ params }: { params: URLSearchParams }) {
  const live = useLive();
  const policyParam = params.get('policy');
  const [policy, setPolicy] = useState<WhatifPolicy>(isPolicy(policyParam) ? policyParam : 'first-fit');
  const [edits, setEdits] = useState<WhatifEdit[]>([]);
  const [op, setOp] = useState<EditOp>('add-nodes');
  const [target, setTarget] = useState('');
  const [count, setCount] = useState(1);
  const [result, setResult] = useState<{ replay: WhatifReplay; policy: WhatifPolicy; edits: WhatifEdit[]; generation: number }>();
  const [error, setError] = useState<string>();
  const [running, setRunning] = useState(false);
  const [step, setStep] = useState(0);
  const [playing, setPlaying] = useState(false);
  const inFlight = useRef<AbortController | null>(null);

  const summary = useResource('whatif-summary', (signal) => getJson<Summary>(apiUrl('summary'), signal));
  const nodeNames = useMemo(
    () => [...new Set((summary.data?.pools ?? []).map((p) => p.node).filter((n) => n))].sort(),
    [summary.data],
  );

  const run = useCallback(
    (withPolicy: WhatifPolicy, withEdits: WhatifEdit[]) => {
      inFlight.current?.abort();
      const ctrl = new AbortController();
      inFlight.current = ctrl;
      setRunning(true);
      setPlaying(false);
      const generation = live.generation;
      // Without edits the GET answer (cached by the server per snapshot) is the same question.
      const answer =
        withEdits.length === 0
          ? getJson<WhatifReplay>(apiUrl('whatif/replay', { policy: withPolicy }), ctrl.signal)
          : postJson<WhatifReplay>(apiUrl('whatif/replay'), { policy: withPolicy, edits: withEdits }, ctrl.signal);
      answer.then(
        (replay) => {
          if (ctrl.signal.aborted) return;
          setResult({ replay, policy: withPolicy, edits: withEdits, generation });
          setError(undefined);
          setStep(0);
          setRunning(false);
        },
        (err: unknown) => {
          if (ctrl.signal.aborted) return;
          setError(err instanceof Error ? err.message : String(err));
          setRunning(false);
        },
      );
    },
    [live.generation],
  );

  // The first replay, with no edits, as soon as the page opens.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    run(policy, []);
    return () => inFlight.current?.abort();
  }, []);

  const steps = useMemo(() => (result ? replaySteps(result.replay) : []), [result]);
  const current = steps[Math.min(step, Math.max(steps.length - 1, 0))];
  const queueStart = Math.max(0, Math.min(step - kQueueWindow / 2, steps.length - kQueueWindow));

  useEffect(() => {
    if (!playing) return;
    if (step >= steps.length - 1) {
      setPlaying(false);
      return;
    }
    const timer = setTimeout(() => setStep((s) => s + 1), kPlayMs);
    return () => clearTimeout(timer);
  }, [playing, step, steps.length]);

  function submit(e: FormEvent) {
    e.preventDefault();
    setRouteParams('whatif', { policy: policy === 'first-fit' ? undefined : policy });
    run(policy, edits);
  }

  function addEdit(e: FormEvent) {
    e.preventDefault();
    const name = target.trim();
    if (!name) return;
    const edit: WhatifEdit = op === 'add-nodes' ? { op, like: name, count: Math.max(1, Math.floor(count)) } : { op, name };
    setEdits((list) => [...list, edit]);
    setTarget('');
  }

  const placed = result?.replay.placed.length ?? 0;
  const pending = result?.replay.pending.length ?? 0;
  const targetKind = kEditOps.find((k) => k.op === op)?.target ?? 'node';
  const typed = target.trim().toLowerCase();
  const suggestions = useMemo(() => {
    const out: string[] = [];
    for (const n of nodeNames) {
      if (out.length >= kNodeSuggestions) break;
      if (n.toLowerCase().includes(typed)) out.push(n);
    }
    return out;
  }, [nodeNames, typed]);

  return (
    <>
      <div className="view-head">
        <h1 style={{ fontSize: 22 }}>What-if</h1>
        <p>
          The pending pods placed one at a time as kube-scheduler would, on a copy of the cluster: nothing is
          changed.
        </p>
      </div>

      <section className="panel" aria-labelledby="whatif-edits-h">
        <div className="panel-head">
          <h2 id="whatif-edits-h">Edits</h2>
          <span className="muted">applied in order to the copy before the replay</span>
        </div>
        <div className="panel-body">
        {edits.length === 0 ? (
          <p className="empty">No edits: the replay runs on the cluster as it is.</p>
        ) : (
          <ol className="whatif-edits" aria-label="Edits">
            {edits.map((e, i) => (
              <li key={i}>
                <span>{editText(e)}</span>{' '}
                <button type="button" onClick={() => setEdits((list) => list.filter((_, j) => j !== i))} aria-label={`Remove edit ${i + 1}: ${editText(e)}`}>
                  Remove
                </button>
              </li>
            ))}
          </ol>
        )}
        <form className="toolbar" onSubmit={addEdit} aria-label="Add an edit">
          <label>
            Edit
            <select value={op} onChange={(e) => setOp(e.target.value as EditOp)} aria-label="Edit">
              {kEditOps.map((k) => (
                <option key={k.op} value={k.op}>
                  {k.text}
                </option>
              ))}
            </select>
          </label>
          {op === 'add-nodes' && (
            <label>
              Count
              <input type="number" min={1} max={1000} value={count} onChange={(e) => setCount(Number(e.target.value))} aria-label="Count" style={{ width: 80 }} />
            </label>
          )}
          <label>
            {targetKind === 'node' ? 'Node' : 'Name'}
            <input
              value={target}
              onChange={(e) => setTarget(e.target.value)}
              list={targetKind === 'node' ? 'whatif-node-names' : undefined}
              placeholder={targetKind}
              aria-label={targetKind === 'node' ? 'Node' : 'Name'}
            />
          </label>
          <datalist id="whatif-node-names">
            {suggestions.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
          <button type="submit" disabled={!target.trim()}>
            Add edit
          </button>
        </form>
        </div>
      </section>

      <form className="toolbar" onSubmit={submit} aria-label="Run a replay">
        <label>
          Policy
          <select value={policy} onChange={(e) => setPolicy(e.target.value as WhatifPolicy)} aria-label="Policy">
            {kPolicies.map((p) => (
              <option key={p.value} value={p.value}>
                {p.text}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={running}>
          {running ? 'Running…' : 'Run replay'}
        </button>
      </form>

      <ErrorNote error={error} />
      {!result && !error && <Loading what="the replay" />}
      {result && (
        <section className="panel" aria-label="Replay result" aria-busy={running}>
          <div className="panel-head">
            <h2>Result</h2>
            <span className="muted" data-testid="whatif-summary">
              {placed} placed · {pending} pending · policy {result.policy}
              {result.edits.length > 0 ? ` · ${result.edits.length} edit${result.edits.length === 1 ? '' : 's'}` : ''}
            </span>
          </div>
          <div className="panel-body">
          {live.generation > result.generation && result.generation >= 0 && (
            <p className="muted" role="status">
              The cluster changed since this replay; run it again to see the present.
            </p>
          )}
          {(result.replay.notes ?? []).map((n, i) => (
            <p key={i} className="muted" data-testid="whatif-note">
              {n}
            </p>
          ))}
          {result.replay.edits && result.replay.edits.length > 0 && (
            <ul className="whatif-changes" aria-label="What the edits did">
              {result.replay.edits.map((t, i) => (
                <li key={i}>{t}</li>
              ))}
            </ul>
          )}
          {steps.length === 0 ? (
            <p className="empty">No pending pods: there is nothing to replay.</p>
          ) : (
            <div className="whatif-steps">
              <div className="toolbar" role="group" aria-label="Step through the replay">
                <button type="button" onClick={() => { setPlaying(false); setStep((s) => Math.max(0, s - 1)); }} disabled={step === 0}>
                  ◀ Previous
                </button>
                <button type="button" onClick={() => { if (step >= steps.length - 1) setStep(0); setPlaying((p) => !p); }} aria-pressed={playing}>
                  {playing ? '❚❚ Pause' : '▶ Play'}
                </button>
                <button type="button" onClick={() => { setPlaying(false); setStep((s) => Math.min(steps.length - 1, s + 1)); }} disabled={step >= steps.length - 1}>
                  Next ▶
                </button>
                <span className="muted" data-testid="whatif-position">
                  Pod {Math.min(step, steps.length - 1) + 1} of {steps.length}
                </span>
              </div>
              <div className="whatif-layout">
                <ol className="whatif-queue" aria-label="Queue order" start={queueStart + 1}>
                  {steps.slice(queueStart, queueStart + kQueueWindow).map((s, k) => { const i = queueStart + k; return (
                    <li key={s.pod}>
                      <button type="button" aria-current={i === step ? 'step' : undefined} onClick={() => { setPlaying(false); setStep(i); }}>
                        <span>{s.pod}</span>{' '}
                        {s.node ? <Badge tone="ok">{s.node}</Badge> : <Badge tone="warn">pending</Badge>}
                      </button>
                    </li>
                  ); })}
                </ol>
                {current && (
                  <section className="whatif-step" aria-label="Current step" data-pod={current.pod} aria-live="polite">
                    <h3 data-testid="whatif-pod">{current.pod}</h3>
                    {current.node !== undefined ? <PlacedStep step={current} /> : <PendingStep key={current.pod} step={current} />}
                  </section>
                )}
              </div>
            </div>
          )}
          </div>
        </section>
      )}
    </>
  );
}
