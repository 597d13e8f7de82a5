import { html, type SafeHtml } from './html.js';
import { messageList } from './error-page.js';

/** What the login form shows. */
export interface LoginFormContext {
  readonly heading: string;
  /** The form's id (`login-form`, `admin-login-form`). */
  readonly formId: string;
  readonly csrfToken: string;
  /** A same-site path to go to after logging in, or `''`. */
  readonly next: string;
  readonly username: string;
  readonly errors: readonly string[];
  /** A line under the heading (`Staff accounts only.`). */
  readonly note?: string;
}

/** The login form of `/api-auth/login/` and of the admin, in a centred panel. */
export function loginForm(ctx: LoginFormContext): SafeHtml {
  return html`<div class="login-box panel">
<h1>${ctx.heading}</h1>
${ctx.note ? html`<p class="muted">${ctx.note}</p>` : ''}
${messageList(ctx.errors.map((text) => ({ level: 'error' as const, text })))}
<form method="post" action="" id="${ctx.formId}">
<input type="hidden" name="csrfmiddlewaretoken" value="${ctx.csrfToken}">
<input type="hidden" name="next" value="${ctx.next}">
<label for="id_username">Username</label>
<input type="text" name="username" id="id_username" value="${ctx.username}" autocomplete="username" autocapitalize="none" autofocus required>
<label for="id_password">Password</label>
<input type="password" name="password" id="id_password" autocomplete="current-password" required>
<div class="form-actions"><button type="submit" class="btn btn-primary">Log in</button></div>
</form>
</div>`;
}
