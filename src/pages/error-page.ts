import { STATUS_CODES } from 'node:http';
import { html, type SafeHtml } from './html.js';

/**
 * An error body's messages in words: `{"detail": "…"}` gives one, a
 * validation map `{"field": ["…"]}` one per message (`field: …`, plain for
 * `non_field_errors` / `detail`), anything else its JSON.
 */
export function errorMessages(data: unknown): string[] {
  if (typeof data === 'string') return [data];
  if (Array.isArray(data)) return data.flatMap(errorMessages);
  if (data === null || typeof data !== 'object') return data === null || data === undefined ? [] : [String(data)];
  const out: string[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === 'csrfToken') continue;
    const messages = errorMessages(value);
    const plain = key === 'detail' || key === 'non_field_errors' || key === 'action';
    out.push(...messages.map((m) => (plain ? m : `${key}: ${m}`)));
  }
  return out;
}

/** The messages of a page: success notes (`role=status`) and errors (`role=alert`). */
export function messageList(messages: readonly { level: 'success' | 'error' | 'info'; text: string }[]): SafeHtml {
  if (messages.length === 0) return html``;
  return html`<div class="messages">${messages.map((m) =>
    m.level === 'error' ? html`<p class="error" role="alert">${m.text}</p>` : html`<p class="${m.level}" role="status">${m.text}</p>`,
  )}</div>`;
}

/** The body of an error page: `404 Not Found`, the messages, a way back. */
export function errorPageBody(status: number, data: unknown, back: { href: string; text: string } | null = null): SafeHtml {
  const messages = errorMessages(data);
  return html`<div class="panel error-page">
<h1><span class="status">${status}</span> ${STATUS_CODES[status] ?? 'Error'}</h1>
${messageList(messages.map((text) => ({ level: 'error' as const, text })))}
${back ? html`<p><a href="${back.href}">${back.text}</a></p>` : ''}
</div>`;
}
