import { html } from 'htm/preact';
import type { VNode } from 'preact';
import type { Fault } from '../../spec/types.js';
import { admin, problems, useAdminGet, type ViewProps } from './api.js';
import { checkFault, numberOrText } from './checks.js';
import { FormProblems, operationNames, shortNameOf, useCheckedForm } from './ui.js';

const emptyForm = { operationId: '', status: '503', times: '1', delay_ms: '', reset: false };
type FaultForm = typeof emptyForm;

function faultBody(form: FaultForm): Record<string, unknown> {
  return {
    ...(form.operationId === '' ? {} : { operationId: form.operationId }),
    ...(form.status.trim() === '' || form.reset ? {} : { status: numberOrText(form.status) }),
    ...(form.times.trim() === '' ? {} : { times: numberOrText(form.times) }),
    ...(form.delay_ms.trim() === '' ? {} : { delay_ms: numberOrText(form.delay_ms) }),
    ...(form.reset ? { action: 'reset-connection' } : {}),
  };
}

/** What a planned fault does: "the next call of update will answer 503", "the next 2 calls of any operation will…". */
function plannedFault(fault: Fault): string {
  const one = fault.remaining === 1;
  const calls = `the next ${one ? 'call' : `${fault.remaining} calls`} of ${
    fault.operationId === null ? 'any operation' : shortNameOf(fault.operationId)
  }`;
  const after = fault.delay_ms > 0 ? ` after ${fault.delay_ms} ms` : '';
  if (fault.action === 'reset-connection')
    return `${calls} will lose ${one ? 'its' : 'their'} connection${after}`;
  if (fault.status === null)
    return `${calls} will wait ${fault.delay_ms} ms before ${one ? 'it is' : 'they are'} answered`;
  return `${calls} will answer ${fault.status}${after}`;
}

/** Plan a failure of the next matching calls, see the pending ones, clear them. */
export function Faults(props: ViewProps): VNode {
  const { session } = props;
  const [faults, reload] = useAdminGet<Fault[]>(session, '/__admin/faults', props.revision);
  const { form, set, show, field, others } = useCheckedForm(emptyForm, 'fault');

  const plan = async (event: Event): Promise<void> => {
    event.preventDefault();
    const body = faultBody(form);
    const found = checkFault(body);
    show(found);
    if (found.length > 0) {
      props.announce(`The fault was not planned: ${found.map((d) => d.message).join('; ')}`);
      return;
    }
    const answer = await admin(session, 'POST', '/__admin/faults', body);
    if (answer.status === 201) {
      const fault = answer.body as Fault;
      props.announce(`Planned fault ${fault.id}: ${plannedFault(fault)}.`);
      reload();
    } else {
      show(problems(answer), true);
    }
  };

  const clear = async (): Promise<void> => {
    const answer = await admin(session, 'DELETE', '/__admin/faults');
    if (answer.status === 204) show([]);
    props.announce(
      answer.status === 204 ? 'Cleared the pending faults.' : `Clearing refused (${answer.status}).`,
    );
    reload();
  };

  return html`<div class="faults-view">
    <section class="card" aria-labelledby="plan-title">
      <h2 id="plan-title">Plan a fault</h2>
      <p class="hint">The next matching calls to <code>/api/user</code> of this tenant that reach the rules wait, then answer the status or lose their connection. Checked against <code>FaultRequest</code> before it is sent.</p>
      <form id="fault-form" class="form-grid" noValidate onSubmit=${plan}>
        ${field('operationId', 'Operation', {
          options: { '': 'any operation', ...operationNames },
        })}
        ${field('status', 'Status', { type: 'number', hint: '400–599, answered with code INJECTED_FAULT' })}
        ${field('times', 'Times', { type: 'number', hint: 'how many matching calls' })}
        ${field('delay_ms', 'Delay (ms)', { type: 'number', hint: '0–60000, before answering' })}
        <div class="field check-field">
          <label class="check"><input type="checkbox" id="fault-reset" checked=${form.reset}
            onChange=${(e: Event) => set({ reset: (e.target as HTMLInputElement).checked })} /> Reset the connection (no answer)</label>
        </div>
        ${FormProblems({ problems: others })}
        <div class="form-actions"><button type="submit" class="primary">Plan fault</button></div>
      </form>
    </section>
    <section aria-labelledby="pending-title">
      <div class="section-head">
        <h2 id="pending-title">Pending faults</h2>
        <button type="button" class="quiet" onClick=${clear} disabled=${(faults ?? []).length === 0}>Clear faults</button>
      </div>
      ${
        faults === undefined
          ? html`<p class="empty">Loading…</p>`
          : faults.length === 0
            ? html`<p class="empty">No fault is pending: every call is served normally.</p>`
            : html`<div class="table-wrap"><table class="faults">
                <thead><tr><th scope="col">#</th><th scope="col">Operation</th><th scope="col">Status</th><th scope="col">Delay</th><th scope="col">Action</th><th scope="col">Remaining</th></tr></thead>
                <tbody>${faults.map(
                  (f) => html`<tr key=${f.id}>
                    <th scope="row" data-label="#">${f.id}</th>
                    <td data-label="Operation">${f.operationId === null ? 'any' : shortNameOf(f.operationId)}</td>
                    <td data-label="Status">${f.status ?? '—'}</td>
                    <td data-label="Delay">${f.delay_ms} ms</td>
                    <td data-label="Action">${f.action ?? '—'}</td>
                    <td data-label="Remaining">${f.remaining}</td>
                  </tr>`,
                )}</tbody>
              </table></div>`
      }
    </section>
  </div>`;
}
