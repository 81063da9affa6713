import { html } from 'htm/preact';
import type { VNode } from 'preact';
import type { Diagnostic } from '../../spec/types.js';
import { pointer as below } from '../../validate/diagnostic.js';

interface Line {
  readonly depth: number;
  readonly parts: readonly VNode[];
}

interface Node {
  readonly first: number;
  readonly last: number;
}

const maxLines = 3000;

/** Pretty JSON as lines, and the line range of every node by its JSON pointer. */
function layout(value: unknown): { lines: Line[]; nodes: Map<string, Node> } {
  const lines: Line[] = [];
  const nodes = new Map<string, Node>();
  const visit = (
    v: unknown,
    pointer: string,
    key: string | undefined,
    depth: number,
    comma: boolean,
  ): void => {
    const first = lines.length;
    const label =
      key === undefined ? [] : [html`<span class="j-key">${JSON.stringify(key)}</span>`, html`: `];
    const tail = comma ? [html`,`] : [];
    const entries = v !== null && typeof v === 'object' ? Object.entries(v) : undefined;
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries === undefined) {
      const scalar = html`<span class=${`j-${v === null ? 'null' : typeof v}`}>${JSON.stringify(v)}</span>`;
      lines.push({ depth, parts: [...label, scalar, ...tail] });
    } else if (entries.length === 0 || lines.length > maxLines) {
      lines.push({ depth, parts: [...label, html`${open}${close}`, ...tail] });
    } else {
      lines.push({ depth, parts: [...label, html`${open}`] });
      for (const [i, [k, item]] of entries.entries())
        visit(item, below(pointer, k), Array.isArray(v) ? undefined : k, depth + 1, i < entries.length - 1);
      lines.push({ depth, parts: [html`${close}`, ...tail] });
    }
    nodes.set(pointer, { first, last: lines.length - 1 });
  };
  visit(value, '', undefined, 0, false);
  return { lines, nodes };
}

/** The nearest node at or above a pointer (a missing field points below its object). */
function nearest(nodes: Map<string, Node>, pointer: string): { node: Node; exact: boolean } | undefined {
  let at = pointer;
  for (;;) {
    const node = nodes.get(at);
    if (node !== undefined) return { node, exact: at === pointer };
    if (at === '') return undefined;
    at = at.slice(0, at.lastIndexOf('/'));
  }
}

export interface Mark {
  readonly diagnostic: Diagnostic;
  readonly tone: 'error' | 'warning';
  /** The element id the diagnostics list links to. */
  readonly id: string;
}

/**
 * A JSON body, pretty-printed, with each diagnostic's JSON pointer highlighted in it (the node's lines, or the
 * nearest enclosing object for a missing field) and its message beside the node's first line.
 */
export function JsonBody(props: { value: unknown; marks: readonly Mark[]; label: string }): VNode {
  const { lines, nodes } = layout(props.value);
  // A line's look: `marked-*` inside the node a pointer names, `context-*` inside the object that lacks a field.
  const marked = new Map<number, string>();
  const rank = (look: string | undefined): number =>
    ['context-warning', 'context-error', 'marked-warning', 'marked-error'].indexOf(look ?? '');
  const notes = new Map<number, Mark[]>();
  for (const mark of props.marks) {
    const found = nearest(nodes, mark.diagnostic.path.replace(/^\/body/, ''));
    if (found === undefined) continue;
    const look = `${found.exact ? 'marked' : 'context'}-${mark.tone}`;
    for (let i = found.node.first; i <= found.node.last; i++)
      if (rank(marked.get(i)) < rank(look)) marked.set(i, look);
    notes.set(found.node.first, [...(notes.get(found.node.first) ?? []), mark]);
  }
  const shown = lines.slice(0, maxLines);
  return html`<pre class="json" aria-label=${props.label}>${shown.map((line, i) => {
    const look = marked.get(i);
    return html`<div class=${`line${look === undefined ? '' : ` ${look}`}`}>
      <span class="code">${'  '.repeat(line.depth)}${line.parts}</span>${(notes.get(i) ?? []).map(
        (mark) =>
          html`<span class=${`note note-${mark.tone}`} id=${mark.id} tabindex="-1"
            ><span class="note-code">${mark.diagnostic.code}</span> ${mark.diagnostic.message}</span
          >`,
      )}
    </div>`;
  })}${lines.length > maxLines ? html`<div class="line more">… ${lines.length - maxLines} more lines</div>` : ''}</pre>`;
}
