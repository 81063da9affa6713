import type { Group } from '../domain/model.js';
import { utcSecond } from '../domain/userGroups.js';
import type { EmbedOutcome, EmbedRequest } from './embedToken.js';
import { escapeHtml, page, shortToken } from './html.js';

const code = (text: string): string => `<code>${escapeHtml(text)}</code>`;

/** The preview of dashboard `dashboard` for a resolved token: the group's card, or a card saying what is wrong. */
export function embedPage(
  dashboard: string,
  request: EmbedRequest,
  outcome: EmbedOutcome,
): Omit<Card, 'title'> {
  const card = outcome.kind === 'viewing' ? viewingCard(outcome.group) : errorCard(request, outcome);
  const eyebrow = `Dashboard ${code(dashboard)} · ${escapeHtml(request.environment)} · preview by user-group-mock`;
  const body = `<main class="card card--${outcome.kind === 'viewing' ? 'ok' : 'error'}" data-outcome="${outcome.kind}" aria-labelledby="card-title">
<p class="eyebrow">${eyebrow}</p>
${card.html}
</main>`;
  const html = page({
    title: `${card.title} · dashboard ${dashboard}`,
    styles: ['/embed/assets/embed.css'],
    scripts: ['/embed/assets/embed.js'],
    body,
  });
  return { status: card.status, html };
}

interface Card {
  readonly status: number;
  readonly title: string;
  readonly html: string;
}

function viewingCard(group: Group): Card {
  const properties = Object.entries(group.properties ?? {});
  const mapping = Object.entries(group.mapping ?? {});
  const variables =
    properties.length === 0
      ? '<p class="empty">This group has no properties: the dashboard has no group variables.</p>'
      : `<dl class="pairs">${properties
          .map(([name, value]) => `<dt>${code(`{{${name}}}`)}</dt><dd>${code(JSON.stringify(value))}</dd>`)
          .join('')}</dl>`;
  const sources =
    mapping.length === 0
      ? '<p class="empty">No mapping: the dashboard uses its default data sources.</p>'
      : `<dl class="pairs">${mapping
          .map(
            ([schema, source]) =>
              `<dt>schema ${code(schema)}</dt><dd>data source ${code(String(source))}</dd>`,
          )
          .join('')}</dl>`;
  return {
    status: 200,
    title: `Viewing as ${group.name}`,
    html: `<h1 id="card-title">Viewing as <strong>${escapeHtml(group.name)}</strong> <span class="who">(${escapeHtml(group.provided_id)}, ${escapeHtml(group.environment)})</span></h1>
<section aria-labelledby="variables"><h2 id="variables">Variables</h2><p class="hint">The group's properties, as the dashboard's queries and filters see them.</p>${variables}</section>
<section aria-labelledby="sources"><h2 id="sources">Data sources</h2><p class="hint">The group's mapping of schema to data source.</p>${sources}</section>
<p class="meta">team_id ${group.team_id} · token ${code(shortToken(group.token))}</p>`,
  };
}

function errorCard(request: EmbedRequest, outcome: Exclude<EmbedOutcome, { kind: 'viewing' }>): Card {
  const card = (status: number, title: string, ...paragraphs: string[]): Card => ({
    status,
    title,
    html: `<h1 id="card-title">${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}`,
  });
  const token = request.token ?? '';
  const getOrCreate = `${code('GET /api/user')} (get-or-create)`;
  switch (outcome.kind) {
    case 'missing-token':
      return card(
        400,
        'No token',
        `This preview needs the group's token: add ${code('?token=<token>')} to the URL (the ${code('token')} attribute of ${code('<user-group-dashboard>')}).`,
        `A group's token is the ${code('token')} field of the answer of ${getOrCreate}.`,
      );
    case 'bad-environment':
      return card(
        400,
        'Unknown environment',
        `${code('environment')} must be ${code('Customer')} or ${code('Testing')}, not ${code(outcome.environment)}.`,
      );
    case 'unknown-tenant':
      return card(
        404,
        'Unknown tenant',
        `This mock has no tenant ${code(outcome.tenant)}: use ${code('default')} or an id returned by ${code('POST /__admin/tenants')}.`,
      );
    case 'api-key':
      return card(
        400,
        'An API key, not a user group token',
        `This is a ${escapeHtml(outcome.environment)} API key: it authenticates calls to ${code('/api/user')}. A dashboard takes the group's token, the ${code('token')} field of the answer of ${getOrCreate}.`,
      );
    case 'unknown':
      return card(
        404,
        'Unknown token',
        `No group holds the token ${code(shortToken(token))}: this mock never issued it, its group was removed (a reset empties the groups), or a rotation replaced it before the mock last started (the preview remembers rotations only while the mock runs).`,
        `Get the group's token with ${getOrCreate} and use the ${code('token')} of the answer.`,
      );
    case 'rotated': {
      const { retired } = outcome;
      const when = utcSecond(retired.rotatedAt);
      const elsewhere =
        outcome.tenant === request.tenant
          ? ''
          : ` It belonged to tenant ${code(outcome.tenant)}, not to this dashboard's tenant ${code(request.tenant)}.`;
      const next = outcome.groupExists
        ? `${getOrCreate} with ${code(`"user_group_id": ${JSON.stringify(retired.provided_id)}`)} answers the current token.`
        : `Its group has since been removed: create it again with ${getOrCreate}.`;
      return card(
        410,
        'Token rotated',
        "This token was rotated; fetch the group's current token.",
        `${code(shortToken(token))} was the token of ${code(retired.provided_id)} (${escapeHtml(retired.environment)}) until ${escapeHtml(when)} UTC.${elsewhere}`,
        next,
      );
    }
    case 'other-tenant':
      return card(
        403,
        'Token of another tenant',
        `This token belongs to a group of tenant ${code(outcome.tenant)}, but this dashboard belongs to tenant ${code(request.tenant)}.`,
        `Use a token made with this tenant's API keys, or set ${code(`tenant="${outcome.tenant}"`)}.`,
      );
    case 'other-environment':
      return card(
        403,
        'Token of another environment',
        `This token belongs to a ${escapeHtml(outcome.environment)} group, but this dashboard is embedded for ${escapeHtml(request.environment)}.`,
        `Use a token made with a ${escapeHtml(request.environment)} API key, or set ${code(`environment="${outcome.environment}"`)}.`,
      );
  }
}
