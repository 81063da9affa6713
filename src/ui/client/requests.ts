import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useMemo, useRef } from 'preact/hooks';
import type { Diagnostic, JournalEntry } from '../../spec/types.js';
import { JsonBody, type Mark } from './json.js';
import { AskFirst, clock, dateAndClock, Field, finds, onProxy, operationNames, shortNameOf } from './ui.js';

type StatusClass = '2xx' | '4xx' | '5xx' | 'none';
type Fault = NonNullable<JournalEntry['fault']>;

/** Whose mistake a broken contract is, as the row, its label and the detail say it. */
const faults: Readonly<Record<Fault, Readonly<Record<'label' | 'verdict' | 'explained', string>>>> = {
  client: {
    label: "the client's mistake",
    verdict: 'This request broke the contract',
    explained: "The client's mistake: the request does not follow the document; fix the client.",
  },
  provider: {
    label: "the provider's fault",
    verdict: "The provider's answer broke the contract",
    explained:
      "The provider's fault: the request kept the contract, the service's answer (or its failure to answer) did not; fix the service.",
  },
  both: {
    label: "both the client's and the provider's fault",
    verdict: 'The request and the provider’s answer both broke the contract',
    explained:
      "Both sides' fault: the request does not follow the document (the client's problems are listed first), and the service's answer breaks it too, where it should have refused the request; fix both.",
  },
};

/** An invalid entry's fault; the client's when the journal does not say (as the journal itself assumes). */
const faultOf = (entry: JournalEntry): Fault | undefined =>
  entry.diagnostics.length === 0 ? undefined : (entry.fault ?? 'client');

/** Whether an entry is (also) this side's fault: an exchange both sides broke is listed under either filter. */
const isFaultOf = (entry: JournalEntry, side: Fault): boolean => {
  const fault = faultOf(entry);
  return fault === side || (fault === 'both' && side !== 'both');
};

/**
 * The filters, by the names a link gives them (`#requests&status=4xx&fault=provider&q=shop-1&id=12`), so that a list
 * or a bad request can be linked; '' for all.
 */
export type Filters = Readonly<Record<'operation' | 'status' | 'invalid' | 'fault' | 'q', string>>;

type Choice = 'operation' | 'status' | 'fault';

/** The filters chosen from a list, and their values; a value a link names that is not among them is ignored. */
const choices: Readonly<Record<Choice, { label: string; options: Readonly<Record<string, string>> }>> = {
  operation: {
    label: 'Operation',
    options: {
      '': 'all',
      ...operationNames,
      none: 'no operation (unknown path or method)',
    },
  },
  status: {
    label: 'Status',
    options: { '': 'all', '2xx': '2xx', '4xx': '4xx', '5xx': '5xx', none: 'no answer' },
  },
  fault: { label: 'Fault', options: { '': 'any', client: "the client's", provider: "the provider's" } },
};

export function filtersFrom(params: URLSearchParams): Filters {
  const known = (name: Choice): string => {
    const value = params.get(name) ?? '';
    return Object.hasOwn(choices[name].options, value) ? value : '';
  };
  const invalid = params.get('invalid') === 'true' ? 'true' : '';
  return {
    operation: known('operation'),
    status: known('status'),
    invalid,
    fault: known('fault'),
    q: params.get('q') ?? '',
  };
}

/** A body read for the fields a row shows: any other JSON value (a string, an array) reads as holding none. */
type Fields = { readonly [name: string]: Fields } | null | undefined;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The group a request names: its `user_group_id`, else the `provided_id` of the group answered. */
const groupIdOf = (entry: JournalEntry): string | undefined =>
  text((entry.requestBody as Fields)?.user_group_id) ??
  text((entry.responseBody as Fields)?.user_group?.provided_id);

/** The error code of a refusal (the envelope's `error.code`), if the answer is one. */
const errorCodeOf = (entry: JournalEntry): string | undefined =>
  text((entry.responseBody as Fields)?.error?.code);

/** Behind the proxy, a request with a key whose environment no answer has shown yet (`notPlacedWords`). */
const keyNotPlaced = (entry: JournalEntry): boolean =>
  onProxy &&
  entry.keyEnvironment === null &&
  entry.requestHeaders.some((h) => h.name.toLowerCase() === 'authorization' && /^token /i.test(h.value));

const notPlacedWords =
  "an API key whose environment the service's answers have not shown yet: a get-or-create's answer names none (no api_environment_tag); the key's first update or rotation shows it";

const statusClassOf = (status: number): StatusClass =>
  status === 0 ? 'none' : status < 300 ? '2xx' : status < 500 ? '4xx' : '5xx';

function matches(entry: JournalEntry, filters: Filters): boolean {
  if (
    filters.operation === 'none'
      ? entry.operationId !== null
      : filters.operation !== '' && entry.operationId !== filters.operation
  )
    return false;
  if (filters.status !== '' && statusClassOf(entry.status) !== filters.status) return false;
  if (filters.invalid === 'true' && entry.diagnostics.length === 0) return false;
  if (filters.fault !== '' && !isFaultOf(entry, filters.fault as Fault)) return false;
  return finds(filters.q, entry, [entry.path, entry.requestBody, entry.responseBody, entry.diagnostics]);
}

/** The list and the detail side by side (inspector.css); below, the detail is under the list, out of sight. */
const sideBySide = (): boolean => window.matchMedia('(min-width: 1100px)').matches;

const describeEntry = (entry: JournalEntry): string =>
  [
    clock(entry.time),
    entry.method,
    shortNameOf(entry.operationId),
    entry.status === 0 ? 'no answer' : `status ${entry.status}`,
    `${entry.durationMs} ms`,
    entry.keyEnvironment === null
      ? keyNotPlaced(entry)
        ? 'a key of an environment not shown yet'
        : 'no known key'
      : `${entry.keyEnvironment} key`,
    ...(groupIdOf(entry) === undefined ? [] : [`group ${groupIdOf(entry)}`]),
    ...(errorCodeOf(entry) === undefined ? [] : [`error ${errorCodeOf(entry)}`]),
    entry.diagnostics.length > 0 ? `broke the contract (${entry.diagnostics.length})` : 'kept the contract',
    ...(faultOf(entry) === undefined ? [] : [faults[faultOf(entry) as Fault].label]),
  ].join(', ');

export interface RequestsProps {
  readonly entries: readonly JournalEntry[];
  readonly selected: number | undefined;
  readonly onSelect: (id: number) => void;
  /** The filters, kept in the page's address by the caller. */
  readonly filters: Filters;
  /** Changes the filters; `typing` when the text is being typed (one history entry for the whole word). */
  readonly onFilters: (filters: Filters, typing: boolean) => void;
  /** Clears the journal (asked first). */
  readonly onClear: () => void;
  /** Whose journal it is, as the question before clearing names it ("tenant t-1"). */
  readonly scope: string;
}

/** The journal, newest first, with filters; the selected request's bodies beside it. */
export function Requests(props: RequestsProps): VNode {
  const { filters } = props;
  const shown = useMemo(() => props.entries.filter((e) => matches(e, filters)), [props.entries, filters]);
  const set = (change: Partial<Filters>, typing = false): void =>
    props.onFilters({ ...filters, ...change }, typing);
  const selected = props.entries.find((e) => e.id === props.selected);
  const detail = useRef<HTMLElement>(null);
  /** A row was chosen: on a narrow layout the detail is brought to it once rendered (Preact renders in a microtask). */
  const choose = (id: number): void => {
    props.onSelect(id);
    if (sideBySide()) return;
    setTimeout(() => {
      detail.current?.scrollIntoView({ block: 'start' });
      detail.current?.focus({ preventScroll: true });
    }, 0);
  };
  const backToList = (): void => {
    const row = document.querySelector<HTMLElement>(`.request-row[data-id="${props.selected}"]`);
    row?.scrollIntoView({ block: 'center' });
    (row ?? document.getElementById('filter-operation'))?.focus({ preventScroll: row !== null });
  };
  return html`<div class="requests-view">
    <section class="list-pane" aria-labelledby="requests-title">
      <h2 id="requests-title" class="visually-hidden">Requests</h2>
      <form class="filters" role="search" aria-label="Filter the requests" onSubmit=${(e: Event) => e.preventDefault()}>
        ${Object.entries(choices).map(([name, { label, options }]) =>
          // Whose fault it is only the proxy's journal tells: on the mock it is always the client's.
          name === 'fault' && !onProxy
            ? ''
            : html`<${Field} id=${`filter-${name}`} class="filter" label=${label} options=${options}
                value=${filters[name as Choice]} onInput=${(value: string) => set({ [name]: value })} />`,
        )}
        <div class="filter check">
          <input type="checkbox" id="filter-invalid" checked=${filters.invalid === 'true'}
            onChange=${(e: Event) => set({ invalid: (e.target as HTMLInputElement).checked ? 'true' : '' })} />
          <label for="filter-invalid">Broke the contract only</label>
        </div>
        <${Field} id="filter-text" class="filter grow" label="Text" type="search" value=${filters.q}
          placeholder="id, name, token, message…" onInput=${(q: string) => set({ q }, true)} />
        <${AskFirst} id="clear-journal" ask="Clear journal…" button=${{ class: 'quiet' }}
          yes="Yes, clear the journal" onYes=${props.onClear}>
          Clear the journal of ${props.scope}? Its ${props.entries.length} request${props.entries.length === 1 ? '' : 's'} cannot be brought back.
        </${AskFirst}>
      </form>
      <p class="count" aria-live="polite">${shown.length} of ${props.entries.length} requests</p>
      ${
        onProxy && props.entries.some(keyNotPlaced)
          ? html`<p class="legend" id="key-legend"><span class="env">key ?</span> in Key: ${notPlacedWords}. The key itself is never kept.</p>`
          : ''
      }
      ${
        props.entries.length === 0
          ? html`<p class="empty">No request yet. Send one to <code>/api/user</code>: it appears here at once.</p>`
          : html`<div class="request-table" role="list" aria-label="Requests, newest first">
              <div class="request-head" aria-hidden="true">
                <span>Time</span><span>Method</span><span>Operation · group · error</span><span>Status</span><span>Duration</span><span>Key</span><span>Contract</span>
              </div>
              ${shown.map((entry) => Row({ entry, selected: entry.id === props.selected, onSelect: choose }))}
            </div>`
      }
    </section>
    <section class="detail-pane" aria-label="Selected request" id="detail" tabindex="-1" ref=${detail}>
      ${
        selected === undefined
          ? html`<p class="empty">Choose a request to see what was sent and answered.</p>`
          : html`<button type="button" class="link back-to-list" onClick=${backToList}>↑ Back to the list</button>
              ${Detail({ entry: selected })}`
      }
    </section>
  </div>`;
}

function Row(props: { entry: JournalEntry; selected: boolean; onSelect: (id: number) => void }): VNode {
  const { entry } = props;
  const fault = faultOf(entry);
  const broke = fault !== undefined;
  return html`<div role="listitem" key=${entry.id}>
    <button type="button" class=${`request-row${props.selected ? ' selected' : ''}${broke ? ' broke' : ''}`}
      aria-pressed=${props.selected ? 'true' : 'false'} aria-label=${describeEntry(entry)} data-id=${entry.id}
      onClick=${() => props.onSelect(entry.id)}>
      <span class="time"><time datetime=${entry.time} title=${dateAndClock(entry.time)}>${clock(entry.time)}</time></span>
      <span class="method">${entry.method}</span>
      <span class="op"><span class="op-name">${shortNameOf(entry.operationId)}</span>${About({ entry })}</span>
      <span class=${`status s${statusClassOf(entry.status)}`}>${entry.status === 0 ? '—' : entry.status}</span>
      <span class="duration">${entry.durationMs} ms</span>
      ${
        keyNotPlaced(entry)
          ? html`<span class="env not-placed" title=${notPlacedWords}>key ?</span>`
          : html`<span class="env" title=${entry.keyEnvironment === null ? unknownKey : undefined}>${entry.keyEnvironment ?? '—'}</span>`
      }
      <span class="contract">${
        broke
          ? html`<span class=${`badge bad fault-${fault}`} title=${`broke the contract: ${faults[fault].label}`}>✗ ${fault}</span>`
          : entry.warnings.length > 0
            ? html`<span class="badge warn">! warning</span>`
            : html`<span class="badge ok">✓</span>`
      }</span>
    </button>
  </div>`;
}

/** Under the operation: the group the request names, and the error code when it was refused. */
function About(props: { entry: JournalEntry }): VNode | string {
  const group = groupIdOf(props.entry);
  const code = errorCodeOf(props.entry);
  if (group === undefined && code === undefined) return '';
  return html`<span class="about">${group === undefined ? '' : html`<span class="group-id">${group}</span>`}${
    code === undefined ? '' : html`<span class="error-code">${breakable(code)}</span>`
  }</span>`;
}

/** `VALIDATION_FAILED` with a line break allowed after each `_`, never inside a word. */
const breakable = (code: string): Array<string | VNode> =>
  code.split('_').flatMap((part, i) => (i === 0 ? [part] : [html`_<wbr />`, part]));

/** The journal names no environment for the request's key: none was sent, or one the server does not know. */
const unknownKey = 'no API key of a known environment';

/**
 * The request's headers as sent, secrets hidden by the journal; open when a diagnostic is about one (a wrong
 * scheme, Content-Type...), folded otherwise.
 */
function Headers(props: { entry: JournalEntry }): VNode {
  const { entry } = props;
  const about = entry.diagnostics.some((d) => d.path.startsWith('/headers/'));
  return html`<details class="headers" open=${about}>
    <summary><h3>Request headers <span class="muted">(${entry.requestHeaders.length})</span></h3></summary>
    <dl class="header-list" aria-label="The request's headers, in the order sent; the API key is never shown">${entry.requestHeaders.map(
      (header) => html`<dt><code>${header.name}</code></dt><dd><code>${header.value}</code></dd>`,
    )}</dl>
  </details>`;
}

const inBody = (d: Diagnostic): boolean => d.path === '/body' || d.path.startsWith('/body/');

function Detail(props: { entry: JournalEntry }): VNode {
  const { entry } = props;
  const marks = (list: Diagnostic[], tone: Mark['tone'], prefix: string): Mark[] =>
    list.map((diagnostic, i) => ({ diagnostic, tone, id: `${prefix}-${entry.id}-${i}` }));
  const all = [...marks(entry.diagnostics, 'error', 'd'), ...marks(entry.warnings, 'warning', 'w')];
  const bodyMarks: Mark[] = all.filter((m) => inBody(m.diagnostic));
  const fault = faultOf(entry);
  // The provider's diagnostics point into the answer, the client's into the request. When both erred, a `/body`
  // path could be either body's: nothing is marked rather than the wrong line.
  const requestMarks = fault === 'client' || fault === undefined ? bodyMarks : [];
  const answerMarks = fault === 'provider' ? bodyMarks : [];
  const jump = (id: string): void => {
    const note = document.getElementById(id);
    note?.scrollIntoView({ block: 'center' });
    note?.focus();
  };
  return html`<article class="detail" aria-labelledby="detail-title">
    <h2 id="detail-title">${entry.method} ${entry.path} <span class="muted">· ${shortNameOf(entry.operationId)} ·</span>${' '}<span class=${`status s${statusClassOf(entry.status)}`}>${entry.status === 0 ? 'no answer' : entry.status}</span></h2>
    <p class="summary"><time datetime=${entry.time}>${dateAndClock(entry.time)}</time> · ${entry.durationMs} ms · ${
      entry.keyEnvironment === null
        ? keyNotPlaced(entry)
          ? notPlacedWords
          : unknownKey
        : `API key of ${entry.keyEnvironment}`
    } (the key itself is never recorded)</p>
    ${
      all.length === 0
        ? html`<p class="verdict ok">✓ This request kept the contract.</p>`
        : html`<div class=${`verdict ${fault === undefined ? 'warn' : `bad fault-${fault}`}`}>
            <p>${
              fault !== undefined
                ? `✗ ${faults[fault].verdict}: ${entry.diagnostics.length} problem${entry.diagnostics.length > 1 ? 's' : ''}.`
                : '! Accepted, with a warning.'
            }</p>
            ${fault === undefined ? '' : html`<p class="fault">${faults[fault].explained}</p>`}
            <ul class="diagnostics">${all.map(
              (m) => html`<li class=${`diag-${m.tone}`}>
                <code class="pointer">${m.diagnostic.path || '/'}</code> <span class="code-name">${m.diagnostic.code}</span>${' '}${m.diagnostic.message}${' '}${inBody(m.diagnostic) && fault !== 'both' ? html`<button type="button" class="link" onClick=${() => jump(m.id)}>show in body</button>` : ''}
              </li>`,
            )}</ul>
          </div>`
    }
    ${Headers({ entry })}
    <div class="bodies">
      <section aria-labelledby=${`req-${entry.id}`}>
        <h3 id=${`req-${entry.id}`}>Request body</h3>
        ${
          entry.requestBody === null
            ? html`<p class="empty">${
                entry.requestBodyNotKept === null
                  ? 'No body was sent (no Content-Length or Transfer-Encoding announced one).'
                  : `The body was ${entry.requestBodyNotKept}.`
              }</p>`
            : typeof entry.requestBody === 'string'
              ? html`<pre class="json raw">${entry.requestBody}</pre>`
              : JsonBody({ value: entry.requestBody, marks: requestMarks, label: 'Request body' })
        }
      </section>
      <section aria-labelledby=${`res-${entry.id}`}>
        <h3 id=${`res-${entry.id}`}>Answer body</h3>
        ${entry.responseBody === null ? html`<p class="empty">No answer was sent.</p>` : JsonBody({ value: entry.responseBody, marks: answerMarks, label: 'Answer body' })}
      </section>
    </div>
  </article>`;
}
