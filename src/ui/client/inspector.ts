import { html, render } from 'htm/preact';
import type { VNode } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { JournalEntry, TenantSummary } from '../../spec/types.js';
import { admin, followJournal, type Session, type StreamState, saveAdminKey, savedAdminKey } from './api.js';
import { Faults } from './faults.js';
import { Groups } from './groups.js';
import { type Filters, filtersFrom, Requests } from './requests.js';
import { Field, onProxy } from './ui.js';

type View = 'requests' | 'groups' | 'faults';
/** The views, whose tabs show their names capitalised; a proxy keeps no groups or faults, its target does. */
const views: readonly View[] = onProxy ? ['requests'] : ['requests', 'groups', 'faults'];

const server = onProxy ? 'proxy' : 'mock';

/** The proxy's one scope: its journal, with no tenants or keys of its own. */
const proxyScope: TenantSummary = { id: 'default', api_keys: {}, groups: 0 };

/** What the page's address names: the view, the tenant, and on the requests the filters and the chosen one. */
interface Route {
  readonly view: View;
  readonly tenant: string;
  readonly filters: Filters;
  /** The id of the request whose detail is open. */
  readonly selected: number | undefined;
}

/** `#requests&tenant=t-1&status=4xx&id=12` -> the route it names. */
function readHash(): Route {
  const parts = new URLSearchParams(location.hash.slice(1).replace(/^([a-z]+)(&|$)/, 'view=$1$2'));
  const view = parts.get('view');
  const id = Number(parts.get('id'));
  return {
    view: views.includes(view as View) ? (view as View) : 'requests',
    tenant: parts.get('tenant') ?? 'default',
    filters: filtersFrom(parts),
    selected: Number.isSafeInteger(id) && id > 0 ? id : undefined,
  };
}

/** The address of a route: the view first, then only what differs from the defaults (a filter left at all is ''). */
function hashOf({ view, tenant, filters, selected }: Route): string {
  const named = {
    tenant: tenant === 'default' ? '' : tenant,
    ...(view === 'requests' && { ...filters, id: `${selected ?? ''}` }),
  };
  const rest = new URLSearchParams(Object.entries(named).filter(([, value]) => value !== '')).toString();
  return `#${view}${rest === '' ? '' : `&${rest}`}`;
}

const streamLabels: Readonly<Record<StreamState, string>> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  refused: 'Not connected',
};

/** The inspector: a key prompt when the mock wants one, then the tenant's requests, groups and faults. */
function App(): VNode {
  const [adminKey, setAdminKey] = useState<string | undefined>(savedAdminKey());
  /** The tenants, once the admin API has answered; `locked` while it wants the admin key. */
  const [tenants, setTenants] = useState<TenantSummary[] | 'checking' | 'locked'>('checking');
  const [route, setRoute] = useState(readHash());
  const [entries, setEntries] = useState<JournalEntry[]>([]);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [message, setMessage] = useState('');
  const revision = entries[0]?.id ?? 0;

  const open = Array.isArray(tenants);
  const tenant = open ? (tenants.find((t) => t.id === route.tenant) ?? tenants[0]) : undefined;
  const session = useMemo<Session>(
    () => ({ adminKey, tenant }),
    [adminKey, tenant?.id, tenant?.api_keys.Customer],
  );

  useEffect(() => saveAdminKey(adminKey), [adminKey]);

  // A message is about the view it came from: another view starts without it.
  useEffect(() => setMessage(''), [route.view, route.tenant]);

  // Also on back and forward over the entries `go` pushed: each has a hash of its own.
  useEffect(() => {
    const changed = (): void => setRoute(readHash());
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);

  /**
   * Moves to a route: a new history entry (back returns to the one before), or with `replace` the same one (each
   * letter typed in the text filter, a request gone with the journal cleared).
   */
  const go = (change: Partial<Route>, replace = false): void => {
    const next = { ...readHash(), ...change };
    const hash = hashOf(next);
    if (hash !== location.hash) history[replace ? 'replaceState' : 'pushState'](null, '', hash);
    setRoute(readHash());
  };
  const navigate = (tenantId: string): void =>
    go({ tenant: tenantId, filters: filtersFrom(new URLSearchParams()), selected: undefined });

  const loadTenants = useCallback(async (): Promise<void> => {
    const path = onProxy ? '/__admin/health' : '/__admin/tenants';
    const answer = await admin({ adminKey, tenant: undefined }, 'GET', path);
    if (answer.status === 200) setTenants(onProxy ? [proxyScope] : (answer.body as TenantSummary[]));
    else if (answer.status === 401) setTenants('locked');
    else setMessage(`The ${server} answered ${answer.status} to GET ${path}.`);
  }, [adminKey]);

  useEffect(() => {
    void loadTenants();
    if (onProxy) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void loadTenants();
    }, 5000);
    return () => window.clearInterval(timer);
  }, [loadTenants]);

  useEffect(() => {
    if (tenant === undefined) return;
    setEntries([]);
    return followJournal(session, {
      entries: (batch) => {
        setEntries((previous) => [...batch.reverse(), ...previous].slice(0, 1000));
        if (!onProxy) void loadTenants(); // a request may have made a group: the group counts change
      },
      cleared: () => {
        setEntries([]);
        if (readHash().selected !== undefined) go({ selected: undefined }, true);
      },
      state: (state) => {
        setStream(state);
        if (state === 'refused') setTenants('locked');
      },
    });
  }, [open, session]);

  if (tenants === 'checking') return html`<p class="boot">Connecting to the ${server}…</p>`;
  if (tenants === 'locked') return KeyPrompt({ rejected: adminKey !== undefined, onKey: setAdminKey });

  const invalid = entries.filter((e) => e.diagnostics.length > 0).length;
  const clearJournal = async (): Promise<void> => {
    const answer = await admin(session, 'DELETE', '/__admin/requests');
    setMessage(answer.status === 204 ? 'Cleared the journal.' : `Clearing refused (${answer.status}).`);
  };

  return html`<div class="shell">
    <header class="top">
      <h1 class="brand"><strong>user-group-mock</strong> <span>${onProxy ? 'Inspector · validating proxy' : 'Inspector'}</span></h1>
      ${
        onProxy
          ? ''
          : html`<${Field} id="tenant" class="tenant-picker" label="Tenant" value=${tenant?.id} onInput=${navigate}
              options=${Object.fromEntries(tenants.map((t) => [t.id, `${t.id} · ${t.groups} group${t.groups === 1 ? '' : 's'}`]))} />`
      }
      <p class=${`stream stream-${stream}`} role="status"><span class="dot" aria-hidden="true"></span>${streamLabels[stream]}</p>
      <nav class="links" aria-label="Other pages">
        <a href="/docs">API reference</a>
        ${
          adminKey === undefined
            ? ''
            : html`<button type="button" class="quiet" onClick=${() => setAdminKey(undefined)}>Forget admin key</button>`
        }
      </nav>
    </header>
    <nav class="tabs" aria-label="Views">
      ${views.map(
        (view) => html`<a href=${hashOf({ ...route, view, tenant: tenant?.id ?? 'default' })}
          aria-current=${route.view === view ? 'page' : undefined}>${view.charAt(0).toUpperCase()}${view.slice(1)}${
            view === 'requests'
              ? html` <span class="pill">${entries.length}</span>${invalid > 0 ? html` <span class="pill bad" title="broke the contract">${invalid} ✗</span>` : ''}`
              : ''
          }</a>`,
      )}
    </nav>
    <main id="main">
      ${
        route.view === 'requests'
          ? html`<${Requests} entries=${entries} selected=${route.selected}
              onSelect=${(id: number) => go({ selected: id })} onClear=${clearJournal}
              filters=${route.filters} onFilters=${(filters: Filters, typing: boolean) => go({ filters }, typing)}
              scope=${onProxy ? 'this proxy' : `tenant ${tenant?.id ?? 'default'}`} />`
          : route.view === 'groups'
            ? html`<${Groups} key=${tenant?.id} session=${session} revision=${revision} announce=${setMessage} onChange=${loadTenants} />`
            : html`<${Faults} key=${tenant?.id} session=${session} revision=${revision} announce=${setMessage} />`
      }
    </main>
    <div class=${`announce${message === '' ? ' quiet-now' : ''}`}>
      <p role="status" aria-live="polite" aria-atomic="true">${message}</p>
      ${message === '' ? '' : html`<button type="button" class="quiet" aria-label="Dismiss the message" onClick=${() => setMessage('')}>×</button>`}
    </div>
  </div>`;
}

function KeyPrompt(props: { rejected: boolean; onKey: (key: string) => void }): VNode {
  return html`<main class="locked">
    <form class="card key-form" onSubmit=${(e: Event) => {
      e.preventDefault(); // the browser submits it only with a key (the input is required)
      props.onKey(new FormData(e.target as HTMLFormElement).get('admin-key') as string);
    }}>
      <h1>Admin key</h1>
      <p>This ${server} was started with <code>--admin-key</code>: its ${onProxy ? 'requests are' : 'requests, groups and faults are'} shown only with that key. It is sent as <code>X-Admin-Key</code> and kept in this tab only.</p>
      ${props.rejected ? html`<p class="error" role="alert" id="key-error">The ${server} did not accept this key. Check the value given with --admin-key.</p>` : ''}
      <label for="admin-key">Admin key</label>
      <input id="admin-key" name="admin-key" type="password" autocomplete="off" required autofocus
        aria-describedby=${props.rejected ? 'key-error' : undefined} aria-invalid=${props.rejected ? 'true' : undefined} />
      <button type="submit" class="primary">Open the inspector</button>
    </form>
  </main>`;
}

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(html`<${App} />`, root);
}
