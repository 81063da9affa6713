import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useState } from 'preact/hooks';
import { type Environment, environments } from '../../domain/model.js';
import type { Diagnostic, StoredGroup } from '../../spec/types.js';
import { shortToken } from '../html.js';
import { admin, problems, service, useAdminGet, type ViewProps } from './api.js';
import { checkSeed, numberOrText } from './checks.js';
import { copyText } from './clipboard.js';
import { AskFirst, compactJson, Field, FormProblems, finds, useCheckedForm } from './ui.js';

const emptyForm = {
  environment: 'Customer' as Environment,
  user_group_id: '',
  name: '',
  token: '',
  team_id: '',
  mapping: '',
  properties: '',
};
type SeedForm = typeof emptyForm;

/** The form as the body it sends; text that is not JSON where JSON is wanted is a problem of its own. */
function seedBody(form: SeedForm): { body: Record<string, unknown>; problems: Diagnostic[] } {
  const body: Record<string, unknown> = {
    environment: form.environment,
    user_group_id: form.user_group_id,
    name: form.name,
  };
  const found: Diagnostic[] = [];
  if (form.token.trim() !== '') body.token = form.token.trim();
  if (form.team_id.trim() !== '') body.team_id = numberOrText(form.team_id);
  for (const field of ['mapping', 'properties'] as const) {
    if (form[field].trim() === '') continue;
    try {
      body[field] = JSON.parse(form[field]);
    } catch (error) {
      found.push({
        code: 'BODY_INVALID_JSON',
        path: `/body/${field}`,
        message: `${field} is not JSON: ${(error as Error).message}`,
      });
    }
  }
  return { body, problems: found };
}

export interface GroupsProps extends ViewProps {
  /** Called after the tenant's groups changed here (its group count changed). */
  readonly onChange: () => void;
}

/** The groups of the tenant and environment: search, copy and rotate tokens, seed a group, reset the tenant. */
export function Groups(props: GroupsProps): VNode {
  const { session } = props;
  const tenant = session.tenant;
  const [environment, setEnvironment] = useState<Environment>('Customer');
  const [search, setSearch] = useState('');
  const path = `/__admin/groups?environment=${environment}`;
  const [groups, reload] = useAdminGet<StoredGroup[]>(session, path, props.revision, 150);
  const { form, set, show, field, others } = useCheckedForm(emptyForm, 'seed');

  const shown = (groups ?? []).filter((g) =>
    finds(search, g, [g.provided_id, g.name, g.token, g.team_id, g.properties, g.mapping]),
  );
  const keyOf = (g: StoredGroup): string | undefined => tenant?.api_keys[g.environment];

  const rotate = async (group: StoredGroup): Promise<void> => {
    const key = keyOf(group);
    if (key === undefined) return;
    const answer = await service('POST', key, { current_token: group.token });
    if (answer.status === 200) show([]);
    props.announce(
      answer.status === 200
        ? `Rotated the token of ${group.provided_id}: the old one now answers 404, and the embed preview says it was rotated.`
        : `Rotation refused (${answer.status}): ${problems(answer)[0]?.message ?? ''}`,
    );
    reload();
  };

  const seed = async (event: Event): Promise<void> => {
    event.preventDefault();
    const { body, problems: parseProblems } = seedBody(form);
    const found = [
      ...parseProblems,
      ...checkSeed(body).filter((d) => !parseProblems.some((p) => p.path === d.path)),
    ];
    show(found);
    if (found.length > 0) {
      props.announce(
        `The group was not sent: ${found.length} problem${found.length > 1 ? 's' : ''} with the form.`,
      );
      (document.querySelector('#seed-form [aria-invalid="true"]') as HTMLElement | null)?.focus();
      return;
    }
    const answer = await admin(session, 'POST', '/__admin/groups', body);
    if (answer.status === 201) {
      const group = answer.body as StoredGroup;
      props.announce(`Seeded ${group.provided_id} in ${group.environment} (team_id ${group.team_id}).`);
      set({ ...emptyForm, environment: form.environment });
      if (group.environment !== environment) setEnvironment(group.environment);
      reload();
      props.onChange();
    } else {
      show(problems(answer), true);
      props.announce(`The mock refused the group (${answer.status}).`);
    }
  };

  const reset = async (): Promise<void> => {
    const answer = await admin(session, 'POST', '/__admin/reset');
    if (answer.status === 204) show([]);
    props.announce(
      answer.status === 204
        ? `Reset tenant ${tenant?.id}: no groups, journal or faults left.`
        : `Reset refused (${answer.status}).`,
    );
    reload();
    props.onChange();
  };

  return html`<div class="groups-view">
    <section aria-labelledby="groups-title">
      <div class="section-head">
        <h2 id="groups-title">Groups <span class="muted">of ${tenant?.id ?? 'default'}</span></h2>
        <div class="toolbar">
          <fieldset class="segmented"><legend class="visually-hidden">Environment</legend>
            ${environments.map(
              (
                env,
              ) => html`<label><input type="radio" name="environment" value=${env} checked=${environment === env}
                onChange=${() => setEnvironment(env)} /> ${env}</label>`,
            )}
          </fieldset>
          <${Field} id="group-search" class="filter grow" label="Search" type="search" value=${search}
            placeholder="id, name, token, property…" onInput=${setSearch} />
        </div>
      </div>
      ${
        groups === undefined
          ? html`<p class="empty">Loading…</p>`
          : shown.length === 0
            ? html`<p class="empty">${groups.length === 0 ? `No ${environment} group yet: seed one below, or send a get-or-create.` : 'No group matches the search.'}</p>`
            : html`<div class="table-wrap"><table class="groups">
                <caption class="visually-hidden">${environment} groups of ${tenant?.id}</caption>
                <thead><tr><th scope="col">ID</th><th scope="col">Name</th><th scope="col">Team</th><th scope="col">Token</th>
                  <th scope="col">Mapping</th><th scope="col">Properties</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
                <tbody>${shown.map(
                  (g) => html`<tr key=${g.provided_id}>
                    <th scope="row" data-label="ID"><code>${g.provided_id}</code></th>
                    <td data-label="Name">${g.name}</td>
                    <td data-label="Team">${g.team_id}</td>
                    <td data-label="Token"><code class="token" title=${g.token}>${shortToken(g.token)}</code>
                      <button type="button" class="small" aria-label=${`Copy the token of ${g.provided_id}`}
                        onClick=${async () => props.announce((await copyText(g.token)) ? `Copied the token of ${g.provided_id}.` : 'Copying failed.')}>Copy</button></td>
                    <td data-label="Mapping"><code class="compact">${compactJson(g.mapping)}</code></td>
                    <td data-label="Properties"><code class="compact">${compactJson(g.properties)}</code></td>
                    <td data-label="Actions" class="actions">
                      <${AskFirst} id=${`rotate-${g.provided_id}`} ask="Rotate…"
                        yes=${`Yes, rotate ${g.provided_id}`} onYes=${() => rotate(g)} button=${{
                          class: 'small',
                          disabled: keyOf(g) === undefined,
                          title:
                            keyOf(g) === undefined
                              ? `no ${g.environment} API key in this tenant`
                              : 'POST /api/user with the current token',
                          'aria-label': `Rotate the token of ${g.provided_id}…`,
                        }}>
                        Rotate the token of <code>${g.provided_id}</code>? The current one stops working at once; this cannot be undone.
                      </${AskFirst}>
                      <a class="small-link" target="_blank" rel="noopener"
                        href=${`/embed/preview?${new URLSearchParams({ token: g.token, environment: g.environment, tenant: tenant?.id ?? 'default' })}`}
                        aria-label=${`Preview the embed as ${g.provided_id} (new tab)`}>Preview</a>
                    </td>
                  </tr>`,
                )}</tbody>
              </table></div>`
      }
    </section>

    <section class="card" aria-labelledby="seed-title">
      <h2 id="seed-title">Seed a group</h2>
      <p class="hint">Checked against <code>SeedGroupRequest</code> of the admin document before it is sent to <code>POST /__admin/groups</code>.</p>
      <form id="seed-form" class="form-grid" noValidate onSubmit=${seed}>
        ${field('environment', 'Environment', { options: { Customer: 'Customer', Testing: 'Testing' } })}
        ${field('user_group_id', 'user_group_id', { required: true, placeholder: 'customer-b' })}
        ${field('name', 'Name', { required: true, placeholder: 'Customer B' })}
        ${field('token', 'Token', { hint: '64 lowercase hex characters; empty for a fresh one' })}
        ${field('team_id', 'team_id', { hint: 'empty for the next free one', type: 'text' })}
        ${field('mapping', 'Mapping (JSON)', { multiline: true, placeholder: '{"40": "213"}' })}
        ${field('properties', 'Properties (JSON)', { multiline: true, placeholder: '{"region": "EU"}' })}
        ${FormProblems({ problems: others })}
        <div class="form-actions"><button type="submit" class="primary">Seed group</button></div>
      </form>
    </section>

    <section class="card danger" aria-labelledby="reset-title">
      <h2 id="reset-title">Reset</h2>
      <p>Empties the groups (both environments), the journal and the faults of tenant <code>${tenant?.id}</code>.</p>
      <${AskFirst} id="reset-tenant" ask="Reset tenant…" button=${{ class: 'danger' }}
        yes=${`Yes, reset ${tenant?.id}`} onYes=${reset}>Reset <code>${tenant?.id}</code> now? This cannot be undone.</${AskFirst}>
    </section>
  </div>`;
}
