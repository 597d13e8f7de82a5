import { html, type SafeHtml } from './html.js';

/** One input field as DRF's OPTIONS metadata describes it (`FieldSet.describe()`). */
export interface FormField {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly readOnly: boolean;
  readonly label: string;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly minValue?: number;
  readonly maxValue?: number;
  readonly choices?: readonly { value: string; display_name: string }[];
}

/** Fields from `describe()`'s `{name: {type, required, read_only, label, …}}`. */
export function formFields(described: Readonly<Record<string, Record<string, unknown>>>): FormField[] {
  return Object.entries(described).map(([name, d]) => {
    const num = (k: string) => (typeof d[k] === 'number' ? (d[k] as number) : undefined);
    const choices = Array.isArray(d['choices']) ? (d['choices'] as { value: string; display_name: string }[]) : undefined;
    return {
      name,
      type: typeof d['type'] === 'string' ? d['type'] : 'string',
      required: d['required'] === true,
      readOnly: d['read_only'] === true,
      label: typeof d['label'] === 'string' ? d['label'] : name,
      ...(num('max_length') !== undefined && { maxLength: num('max_length') }),
      ...(num('min_length') !== undefined && { minLength: num('min_length') }),
      ...(num('min_value') !== undefined && { minValue: num('min_value') }),
      ...(num('max_value') !== undefined && { maxValue: num('max_value') }),
      ...(choices && { choices }),
    };
  });
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
  const described = describedBy ? html` aria-describedby="${describedBy}"` : '';
  const invalid = describedBy ? html` aria-invalid="true"` : '';
  const required = f.required ? html` required` : '';
  const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  switch (f.type) {
    case 'boolean':
      return html`<div class="check"><input type="checkbox" name="${f.name}" id="${id}" data-type="boolean"${value === true || value === 'true' || value === 'on' ? html` checked` : ''}${described}><label for="${id}">${f.label}</label></div>`;
    case 'choice':
      return html`<label for="${id}">${f.label}</label><select name="${f.name}" id="${id}" data-type="choice"${required}${described}${invalid}>${
        f.required ? '' : html`<option value="">---------</option>`
      }${(f.choices ?? []).map((c) => html`<option value="${c.value}"${c.value === text ? html` selected` : ''}>${c.display_name}</option>`)}</select>`;
    case 'integer':
      return html`<label for="${id}">${f.label}</label><input type="number" step="1" name="${f.name}" id="${id}" data-type="integer" value="${text}"${
        f.minValue !== undefined ? html` min="${f.minValue}"` : ''
      }${f.maxValue !== undefined ? html` max="${f.maxValue}"` : ''}${required}${described}${invalid}>`;
    default: {
      const type = f.type === 'email' ? 'email' : f.type === 'url' ? 'url' : 'text';
      return html`<label for="${id}">${f.label}</label><input type="${type}" name="${f.name}" id="${id}" data-type="string" value="${text}"${
        f.maxLength !== undefined ? html` maxlength="${f.maxLength}"` : ''
      }${required}${described}${invalid}>`;
    }
  }
}

/**
 * DRF's "HTML form" tab: one input per declared field (text, e-mail,
 * number, checkbox, select), the last attempt's values and errors beside
 * their fields, sent by `browsable.js` as the view's first text media type.
 */
export function htmlForm(ctx: HtmlFormContext): SafeHtml {
  const fields = ctx.fields.filter((f) => !f.readOnly);
  return html`<form id="html-form" action="" method="post" data-form-method="${ctx.method}" data-content-type="${ctx.contentType}" novalidate>
${ctx.nonFieldErrors.length ? html`<ul class="field-errors" role="alert">${ctx.nonFieldErrors.map((e) => html`<li>${e}</li>`)}</ul>` : ''}
${fields.map((f) => {
  const errors = ctx.errors[f.name] ?? [];
  const errorId = errors.length ? `err_${f.name}` : null;
  return html`<div class="field${errors.length ? ' has-error' : ''}">${fieldInput(f, ctx.values[f.name], errorId)}${
    errors.length ? html`<ul class="field-errors" id="${errorId}">${errors.map((e) => html`<li>${e}</li>`)}</ul>` : ''
  }</div>\n`;
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
