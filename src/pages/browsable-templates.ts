import { html, type SafeHtml } from './html.js';

/** One input of the HTML form, from a serializer field's `FieldInfo`. */
export interface FormField {
  readonly name: string;
  /** DRF's field kind: `string`, `integer`, `float`, `decimal`, `boolean`, `choice`, `list`, `json`, … */
  readonly kind: string;
  /** The HTML input: `text`, `number`, `email`, `url`, `date`, `datetime-local`, `time`, `checkbox`, `select`, `textarea`. */
  readonly inputType: string;
  readonly required: boolean;
  readonly label: string;
  readonly helpText?: string;
  readonly limits: Readonly<Record<string, unknown>>;
  readonly choices?: readonly { value: string | number; displayName: string }[];
}

/** How the script turns an input's text into the JSON value the field reads. */
function jsonType(f: FormField): 'boolean' | 'number' | 'json' | 'string' {
  if (f.inputType === 'checkbox') return 'boolean';
  if (f.kind === 'integer' || f.kind === 'float') return 'number';
  // A list of related keys (`select-multiple`) is sent as its JSON list, as a list field is.
  if (f.kind === 'list' || f.kind === 'json' || f.kind === 'dict' || f.kind === 'multiple choice' || f.inputType === 'select-multiple') return 'json';
  return 'string';
}

/** What the HTML form shows: method, fields, values and errors of the last attempt. */
export interface HtmlFormContext {
  readonly method: 'POST' | 'PUT';
  readonly fields: readonly FormField[];
  readonly values: Readonly<Record<string, unknown>>;
  readonly errors: Readonly<Record<string, readonly string[]>>;
  readonly nonFieldErrors: readonly string[];
  /** The media type the script sends the form as (`application/json` or a form type). */
  readonly contentType: string;
}

function fieldInput(f: FormField, value: unknown, describedBy: string | null): SafeHtml {
  const id = `id_${f.name}`;
  const type = jsonType(f);
  const aria = html`${describedBy ? html` aria-describedby="${describedBy}" aria-invalid="true"` : f.helpText ? html` aria-describedby="${`help_${f.name}`}"` : ''}`;
  const required = f.required ? html` required` : '';
  const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const limit = (attr: string, key: string) => (typeof f.limits[key] === 'number' ? html` ${attr}="${f.limits[key]}"` : '');
  const label = html`<label for="${id}">${f.label}</label>`;
  if (f.inputType === 'checkbox') {
    return html`<div class="check"><input type="checkbox" name="${f.name}" id="${id}" data-type="boolean"${value === true || value === 'true' || value === 'on' ? html` checked` : ''}${aria}>${label}</div>`;
  }
  if (f.inputType === 'select' && f.choices && f.kind !== 'multiple choice') {
    return html`${label}<select name="${f.name}" id="${id}" data-type="${type}"${required}${aria}>${f.required ? '' : html`<option value="">---------</option>`}${f.choices.map(
      (c) => html`<option value="${c.value}"${String(c.value) === text ? html` selected` : ''}>${c.displayName}</option>`,
    )}</select>`;
  }
  if (f.inputType === 'textarea' || type === 'json') {
    return html`${label}<textarea name="${f.name}" id="${id}" data-type="${type}" rows="4"${required}${aria}>${text}</textarea>`;
  }
  const input = ['number', 'email', 'url', 'date', 'datetime-local', 'time'].includes(f.inputType) ? f.inputType : 'text';
  const step = input === 'number' ? html` step="${f.kind === 'integer' ? '1' : 'any'}"` : '';
  return html`${label}<input type="${input}"${step} name="${f.name}" id="${id}" data-type="${type}" value="${text}"${limit('maxlength', 'max_length')}${limit('min', 'min_value')}${limit('max', 'max_value')}${required}${aria}>`;
}

/**
 * DRF's "HTML form" tab: one input per declared field (text, e-mail,
 * number, checkbox, select), the last attempt's values and errors beside
 * their fields, sent by `browsable.js` as the view's first text media type.
 */
export function htmlForm(ctx: HtmlFormContext): SafeHtml {
  const fields = ctx.fields;
  return html`<form id="html-form" action="" method="post" data-form-method="${ctx.method}" data-content-type="${ctx.contentType}" novalidate>
${ctx.nonFieldErrors.length ? html`<ul class="field-errors" role="alert">${ctx.nonFieldErrors.map((e) => html`<li>${e}</li>`)}</ul>` : ''}
${fields.map((f) => {
  const errors = ctx.errors[f.name] ?? [];
  const errorId = errors.length ? `err_${f.name}` : null;
  return html`<div class="field${errors.length ? ' has-error' : ''}">${fieldInput(f, ctx.values[f.name], errorId)}${
    f.helpText ? html`<p class="help" id="${`help_${f.name}`}">${f.helpText}</p>` : ''
  }${errors.length ? html`<ul class="field-errors" id="${errorId}">${errors.map((e) => html`<li>${e}</li>`)}</ul>` : ''}</div>\n`;
})}<div class="form-actions"><button type="submit" class="btn btn-primary">${ctx.method}</button></div>
</form>`;
}

/** The raw-data form: media type, content, one button per method. */
export function rawDataForm(ctx: { types: readonly string[]; content: string; methods: readonly string[] }): SafeHtml {
  return html`<form id="raw-data-form" action="" method="post">
<label for="id__content_type">Media type:</label>
<select name="_content_type" id="id__content_type">${ctx.types.map((t, i) => html`<option value="${t}"${i === 0 ? html` selected` : ''}>${t}</option>`)}</select>
<label for="id__content">Content:</label>
<textarea name="_content" id="id__content" spellcheck="false">${ctx.content}</textarea>
<div class="form-actions">${ctx.methods.map(
    (m, i) => html`<button type="button" class="btn${i === 0 ? ' btn-primary' : ''}" data-method="${m}" data-raw-form>${m}</button>`,
  )}</div>
</form>`;
}

/**
 * The forms area: an "HTML form" and a "Raw data" tab (the script turns
 * the two panels into tabs; without script both show), and the status line
 * the script writes to.
 */
export function formsArea(ctx: { htmlForm: SafeHtml | null; rawForm: SafeHtml | null }): SafeHtml {
  if (!ctx.htmlForm && !ctx.rawForm) return html``;
  const both = ctx.htmlForm !== null && ctx.rawForm !== null;
  return html`<div class="forms" id="forms">
${both ? html`<div class="tabs" role="tablist" aria-label="Request forms" hidden><button type="button" role="tab" id="tab-html" aria-controls="panel-html" aria-selected="true">HTML form</button><button type="button" role="tab" id="tab-raw" aria-controls="panel-raw" aria-selected="false" tabindex="-1">Raw data</button></div>` : ''}
${ctx.htmlForm ? html`<section class="panel" id="panel-html"${both ? html` role="tabpanel" aria-labelledby="tab-html"` : html` aria-labelledby="panel-html-title"`}><h2 id="panel-html-title">HTML form</h2>\n${ctx.htmlForm}</section>` : ''}
${ctx.rawForm ? html`<section class="panel" id="panel-raw"${both ? html` role="tabpanel" aria-labelledby="tab-raw"` : html` aria-labelledby="panel-raw-title"`}><h2 id="panel-raw-title">Raw data</h2>\n${ctx.rawForm}</section>` : ''}
<p id="request-status" class="muted" role="status"></p>
</div>`;
}

/** The DELETE confirmation the DELETE button opens (a modal `<dialog>`, driven by the script). */
export function deleteDialog(path: string): SafeHtml {
  return html`<dialog id="delete-dialog" aria-labelledby="delete-dialog-title">
<h2 id="delete-dialog-title">Delete?</h2>
<p>Send <code>DELETE ${path}</code>? This cannot be undone.</p>
<div class="form-actions"><button type="button" class="btn btn-danger" data-method="DELETE" id="delete-confirm">Yes, delete</button><button type="button" class="btn" data-close-dialog>Cancel</button></div>
</dialog>`;
}
