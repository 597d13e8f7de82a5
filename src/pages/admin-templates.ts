import { html, type SafeHtml } from './html.js';

/** A date as `2026-11-23 01:54` (UTC), or a dash. */
export function when(date: Date | null): string {
  return date ? date.toISOString().replace('T', ' ').slice(0, 16) : '—';
}

/** A column header that sorts the list: the link flips the direction; `aria-sort` says the current one. */
export interface SortHeader {
  readonly label: string;
  /** `null`: the column does not sort. */
  readonly href: string | null;
  readonly sort: 'ascending' | 'descending' | null;
}

function header(h: SortHeader): SafeHtml {
  if (h.href === null) return html`<th scope="col">${h.label}</th>`;
  const arrow = h.sort === 'ascending' ? ' ▲' : h.sort === 'descending' ? ' ▼' : '';
  return h.sort
    ? html`<th scope="col" aria-sort="${h.sort}"><a href="${h.href}">${h.label}${arrow}</a></th>`
    : html`<th scope="col"><a href="${h.href}">${h.label}</a></th>`;
}

/** The hidden CSRF field of every admin form. */
export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="csrfmiddlewaretoken" value="${token}">`;
}

/** A one-button form posting `action` (and hidden fields) to `url`. */
export function actionButton(url: string, csrfToken: string, fields: Record<string, string>, label: string, cls = 'btn'): SafeHtml {
  return html`<form method="post" action="${url}">${csrfField(csrfToken)}${Object.entries(fields).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`,
  )}<button type="submit" class="${cls}">${label}</button></form>`;
}

/** The search box of a list, keeping the current sort. */
export function searchForm(base: string, search: string, ordering: string | null): SafeHtml {
  return html`<form method="get" action="${base}" class="toolbar" role="search">
<label class="visually-hidden" for="id_q">Search users</label>
<input type="search" name="q" id="id_q" value="${search}" placeholder="Search username or e-mail">
${ordering ? html`<input type="hidden" name="o" value="${ordering}">` : ''}
<button type="submit" class="btn">Search</button>
</form>`;
}

/** A list table: sortable headers, rows already rendered (each `td` with `data-label` for narrow screens). */
export function listTable(id: string, caption: string, headers: readonly SortHeader[], rows: readonly SafeHtml[]): SafeHtml {
  return html`<table class="list" id="${id}">
<caption class="visually-hidden">${caption}</caption>
<thead><tr>${headers.map(header)}</tr></thead>
<tbody>
${rows.length ? rows.map((r) => html`${r}\n`) : html`<tr><td colspan="${headers.length}">Nothing found.</td></tr>`}
</tbody>
</table>`;
}

/** The admin start page. */
export function indexBody(ctx: { usersUrl: string; tokensUrl: string; userCount: number }): SafeHtml {
  return html`<h1>Site administration</h1>
<table class="list">
<caption class="visually-hidden">Sections</caption>
<thead><tr><th scope="col">Section</th><th scope="col">About</th></tr></thead>
<tbody>
<tr><td data-label="Section"><a href="${ctx.usersUrl}">Users</a></td><td data-label="About">${ctx.userCount} user${ctx.userCount === 1 ? '' : 's'}</td></tr>
<tr><td data-label="Section"><a href="${ctx.tokensUrl}">Tokens</a></td><td data-label="About">API tokens of each user</td></tr>
</tbody>
</table>`;
}

/** What a confirmation page asks. */
export interface ConfirmContext {
  readonly heading: string;
  /** What will happen, in a sentence or two. */
  readonly question: string;
  readonly action: string;
  readonly csrfToken: string;
  readonly fields: Record<string, string>;
  readonly confirmLabel: string;
  readonly cancelUrl: string;
}

/**
 * Django's "Are you sure?" page: a destructive action is a link to this
 * page, and only its form's POST does it. Works without any script.
 */
export function confirmBody(ctx: ConfirmContext): SafeHtml {
  return html`<div class="panel confirm" id="confirm">
<h1>${ctx.heading}</h1>
<p>${ctx.question}</p>
<div class="form-actions">
${actionButton(ctx.action, ctx.csrfToken, ctx.fields, ctx.confirmLabel, 'btn btn-danger')}
<a class="btn" href="${ctx.cancelUrl}">No, take me back</a>
</div>
</div>`;
}

/** The page that shows a new key, once. */
export function keyBody(ctx: { username: string; key: string | null; tokensUrl: string }): SafeHtml {
  if (ctx.key === null) {
    return html`<h1>Token for ${ctx.username}</h1>
<p>A key is shown only once, right after it is created or regenerated; it cannot be shown again.
Regenerate the token if its key was lost.</p>
<p><a href="${ctx.tokensUrl}">Back to tokens</a></p>`;
  }
  return html`<h1>Token for ${ctx.username}</h1>
<div class="key-box">
<p>Copy this key now: it will not be shown again. Send it as <code>Authorization: Token &lt;key&gt;</code>.</p>
<p><code class="key" id="token-key">${ctx.key}</code></p>
</div>
<p><a href="${ctx.tokensUrl}">Back to tokens</a></p>`;
}
