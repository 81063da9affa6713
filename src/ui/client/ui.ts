import { html } from 'htm/preact';
import type { ComponentChildren, VNode } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';
import type { Diagnostic } from '../../spec/types.js';
import { fieldOf } from './checks.js';

export const compactJson = (value: unknown): string => (value === null ? '—' : JSON.stringify(value));

export interface FieldProps {
  readonly id: string;
  readonly label: string;
  readonly value: string;
  readonly onInput: (value: string) => void;
  readonly hint?: string;
  readonly errors?: readonly Diagnostic[];
  readonly type?: string;
  readonly multiline?: boolean;
  readonly required?: boolean;
  readonly placeholder?: string;
  /** A list's options: each value and its text. */
  readonly options?: Readonly<Record<string, string>>;
  /** The class of the field's box: `field` in a form, `filter` above a list. */
  readonly class?: string;
}

/** A labelled form field with its hint and, when the document refuses it, the problems beside it. */
export function Field(props: FieldProps): VNode {
  const errors = props.errors ?? [];
  const described = [props.hint ? `${props.id}-hint` : '', errors.length > 0 ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  const tag = props.options ? 'select' : props.multiline ? 'textarea' : 'input';
  const input = html`<${tag} id=${props.id} name=${props.id} aria-describedby=${described || undefined}
      aria-invalid=${errors.length > 0 ? 'true' : undefined} required=${props.required} value=${props.value}
      type=${tag === 'input' ? (props.type ?? 'text') : undefined} rows=${tag === 'textarea' ? 3 : undefined}
      placeholder=${props.placeholder} autocomplete=${tag === 'input' ? 'off' : undefined}
      spellcheck=${tag === 'select' ? undefined : 'false'}
      onInput=${(e: Event) => props.onInput((e.target as HTMLInputElement).value)}>
    ${Object.entries(props.options ?? {}).map(([value, text]) => html`<option value=${value}>${text}</option>`)}
  </${tag}>`;
  return html`<div class=${`${props.class ?? 'field'}${errors.length > 0 ? ' invalid' : ''}`}>
    <label for=${props.id}>${props.label}${props.required ? html` <span class="req">(required)</span>` : ''}</label>
    ${input}
    ${props.hint ? html`<p class="hint" id=${`${props.id}-hint`}>${props.hint}</p>` : ''}
    ${errors.length > 0 ? html`<p class="error" id=${`${props.id}-error`}>${errors.map((d) => d.message).join('; ')}</p>` : ''}
  </div>`;
}

/**
 * A form checked against the admin document before it is sent: its values (a field's id is `${prefix}-${name}`), and
 * the problems of what was last checked or sent, each at its field or, belonging to none, in `others`. A change makes
 * problems stale: the checks' of the fields changed go, and a refusal of the mock's (`show(problems, true)`) all at
 * once, since it was of the form as sent.
 */
export function useCheckedForm<F extends Record<string, string | boolean>>(empty: F, prefix: string) {
  const [form, setForm] = useState(empty);
  const [shown, setShown] = useState({ problems: [] as Diagnostic[], refused: false });
  const show = (problems: Diagnostic[], refused = false): void => setShown({ problems, refused });
  const set = (change: Partial<F>): void => {
    setForm({ ...form, ...change });
    const stale = (d: Diagnostic): boolean => shown.refused || !(fieldOf(d) in form) || fieldOf(d) in change;
    show(shown.problems.filter((d) => !stale(d)));
  };
  const field = (name: keyof F & string, label: string, extra: Partial<FieldProps> = {}): VNode =>
    Field({
      id: `${prefix}-${name}`,
      label,
      value: String(form[name]),
      onInput: (value) => set({ [name]: value } as Partial<F>),
      errors: shown.problems.filter((d) => fieldOf(d) === name),
      ...extra,
    });
  return { form, set, show, field, others: shown.problems.filter((d) => !(fieldOf(d) in form)) };
}

const searchable = new WeakMap<object, string>();

/** Whether a list's text search finds `query`, in any case, in the JSON of an item's `fields` (made once per item). */
export function finds(query: string, item: object, fields: unknown[]): boolean {
  const wanted = query.trim().toLowerCase();
  if (wanted === '') return true;
  const text = searchable.get(item) ?? JSON.stringify(fields).toLowerCase();
  searchable.set(item, text);
  return text.includes(wanted);
}

/** Problems that belong to no field of a form. */
export function FormProblems(props: { problems: readonly Diagnostic[] }): VNode | null {
  if (props.problems.length === 0) return null;
  return html`<div class="problems" role="alert">
    <p>The mock's document refuses this:</p>
    <ul>${props.problems.map((d) => html`<li><code>${d.code}</code> ${d.message}</li>`)}</ul>
  </div>`;
}

/** The service's operations, written into the page (`#operations`) by the server from its document. */
const operations: readonly { operationId: string; shortName: string }[] = JSON.parse(
  document.getElementById('operations')?.textContent ?? '[]',
);

/** The short name of each operation, by its operationId: a list's options. */
export const operationNames: Readonly<Record<string, string>> = Object.fromEntries(
  operations.map((o) => [o.operationId, o.shortName]),
);

export const shortNameOf = (operationId: string | null): string =>
  operationId === null ? 'no operation' : (operationNames[operationId] ?? operationId);

/** Whether the page is on a validating proxy rather than the mock (written into the page by the server). */
export const onProxy: boolean =
  (JSON.parse(document.getElementById('server')?.textContent ?? '{}') as { kind?: string }).kind === 'proxy';

export interface AskFirstProps {
  readonly id: string;
  /** The asking button's text ("Reset tenant…") and its other attributes (class, title, disabled…). */
  readonly ask: string;
  readonly button?: Readonly<Record<string, unknown>>;
  /** The question, naming what is lost. */
  readonly children: ComponentChildren;
  /** The confirming button's text ("Yes, rotate customer-a"). */
  readonly yes: string;
  readonly onYes: () => void;
}

/**
 * A button for an action that cannot be undone (reset, rotate, clear the journal): clicked, it asks in a modal
 * dialog, with the confirming button and Cancel. The browser's <dialog> puts focus on Cancel, so that Enter does not
 * confirm by accident, cancels on Escape, keeps keys from the page behind, and gives focus back to the button.
 */
export function AskFirst(props: AskFirstProps): VNode {
  const dialog = useRef<HTMLDialogElement>(null);
  const question = useId();
  const close = (confirmed: boolean): void => {
    dialog.current?.close();
    if (confirmed) props.onYes();
  };
  return html`<button type="button" id=${props.id} ...${props.button}
      onClick=${() => dialog.current?.showModal()}>${props.ask}</button>
    <dialog class="confirm" ref=${dialog} aria-labelledby=${question}>
      <p id=${question}>${props.children}</p>
      <div class="confirm-actions">
        <button type="button" class="danger" onClick=${() => close(true)}>${props.yes}</button>
        <button type="button" autofocus onClick=${() => close(false)}>Cancel</button>
      </div>
    </dialog>`;
}

/** A journal time with its date, local: `2026-11-23 20:21:02.654` (ISO's layout, in the local zone). */
export const dateAndClock = (time: string): string => {
  const date = new Date(time);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000)
    .toISOString()
    .slice(0, 23)
    .replace('T', ' ');
};

/** A journal time as the list shows it, local: `20:21:02.654`. */
export const clock = (time: string): string => dateAndClock(time).slice(11);
