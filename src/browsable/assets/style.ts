/**
 * The one stylesheet of Trestle's pages — login, browsable API, admin,
 * docs wrapper and error pages (served as `trestle/trestle.css`). Colours
 * meet WCAG AA contrast on their backgrounds; below 640 px tables become
 * stacked cards and the navigation wraps.
 */
export const STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #f5f6f8; }
a { color: #1a5597; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, [tabindex]:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
code, pre, .key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.navbar { display: flex; align-items: center; flex-wrap: wrap; gap: .4rem 1rem; padding: .6rem 1.5rem; background: #1f2d3d; color: #fff; }
.navbar a, .navbar button.link { color: #fff; }
.navbar .brand { font-weight: 600; font-size: 1.1rem; text-decoration: none; }
.navbar .spacer { flex: 1; }
.navbar form { display: inline; margin: 0; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 1rem; background: #e8eef6; color: #1f2d3d; font-size: .85rem; }
.navbar .badge { background: #34495e; color: #fff; }
button.link { background: none; border: 0; padding: 0; font: inherit; text-decoration: underline; cursor: pointer; }
.container { max-width: 1100px; margin: 1.25rem auto; padding: 0 1.5rem; }
.breadcrumb { display: flex; flex-wrap: wrap; list-style: none; margin: 0 0 .8rem; padding: .5rem .8rem; background: #e9edf2; border-radius: .3rem; font-size: .9rem; }
.breadcrumb li + li::before { content: "/"; padding: 0 .5rem; color: #4a5563; }
.breadcrumb a[aria-current] { color: #1f2328; text-decoration: none; font-weight: 600; }
.page-header { display: flex; align-items: flex-start; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
h1 { margin: .2rem 0 .6rem; font-size: 1.7rem; font-weight: 600; line-height: 1.25; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; }
.description { color: #3d4450; margin-bottom: 1rem; }
.toolbar { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin-bottom: 1rem; }
.toolbar input[type=search], .toolbar input[type=text] { flex: 1 1 14rem; width: auto; }
/* a toolbar's label and select stay on the line of their button (the change list's "Action: [Delete selected books] Go") */
.toolbar label:not(.visually-hidden) { margin: 0; }
.toolbar select { flex: 0 1 auto; width: auto; max-width: 100%; }
.btn { display: inline-block; padding: .35rem .8rem; border: 1px solid #8a96a3; border-radius: .3rem; background: #fff; color: #1f2328; font: inherit; font-size: .9rem; line-height: 1.4; text-decoration: none; cursor: pointer; }
.btn:hover { background: #eef2f6; }
.btn-primary { background: #1a5597; border-color: #1a5597; color: #fff; }
.btn-primary:hover { background: #144579; }
.btn-danger { background: #b3261e; border-color: #b3261e; color: #fff; }
.btn-danger:hover { background: #8f1e18; }
.btn-group { display: inline-flex; flex-wrap: wrap; gap: .3rem; }
.extra-actions { position: relative; margin-bottom: 1rem; }
.extra-actions > summary { list-style: none; }
.extra-actions > summary::-webkit-details-marker { display: none; }
.extra-actions > summary::after { content: " ▾"; }
.extra-actions .dropdown-menu { position: absolute; right: 0; z-index: 10; min-width: 12rem; margin: .2rem 0 0; padding: .3rem 0; list-style: none; background: #fff; border: 1px solid #d0d7de; border-radius: .3rem; box-shadow: 0 4px 12px rgba(0,0,0,.12); }
.extra-actions .dropdown-menu a { display: block; padding: .3rem .9rem; color: #1f2328; text-decoration: none; white-space: nowrap; }
.extra-actions .dropdown-menu a:hover { background: #eef2f6; }
pre.prettyprint { margin: 0 0 1rem; padding: .9rem 1rem; background: #fff; border: 1px solid #d0d7de; border-radius: .3rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; font-size: 13px; line-height: 1.45; }
.request-info pre { background: #fbfcfd; }
.meta b { color: #3d4450; }
.status-line { font-weight: 700; }
.pagination { display: flex; list-style: none; padding: 0; margin: 0 0 1rem; gap: .25rem; flex-wrap: wrap; }
.pagination li a, .pagination li span { display: inline-block; min-width: 2.2rem; text-align: center; padding: .3rem .6rem; border: 1px solid #b8c2cc; border-radius: .3rem; background: #fff; text-decoration: none; }
.pagination li.active a { background: #1a5597; color: #fff; border-color: #1a5597; }
.pagination li.disabled span { color: #4a5563; background: #eceff2; }
.pager { display: flex; gap: .5rem; margin: 0 0 1rem; }
.pager .disabled { color: #4a5563; background: #eceff2; cursor: default; }
.panel { background: #fff; border: 1px solid #d0d7de; border-radius: .3rem; padding: 1rem; margin-bottom: 1rem; }
.panel > h2:first-child { margin-top: 0; }
label { display: block; font-weight: 600; margin: .5rem 0 .2rem; }
label.inline { display: inline; font-weight: normal; }
.check { display: flex; align-items: center; gap: .4rem; margin: .6rem 0; }
.check label { margin: 0; font-weight: normal; }
.help { margin: .1rem 0 0; color: #4a5563; font-size: .85rem; }
input[type=text], input[type=password], input[type=search], input[type=email], input[type=number], input[type=url], input[type=date], input[type=datetime-local], input[type=time], select, textarea { width: 100%; padding: .45rem .5rem; border: 1px solid #8a96a3; border-radius: .3rem; font: inherit; background: #fff; color: #1f2328; }
input[type=checkbox] { width: 1.1rem; height: 1.1rem; }
textarea { min-height: 10rem; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
.form-actions { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; margin-top: .8rem; }
.field-errors { list-style: none; margin: .2rem 0 0; padding: 0; color: #a0161b; font-size: .9rem; }
.has-error input, .has-error select, .has-error textarea { border-color: #a0161b; }
fieldset.module { border: 1px solid #d0d7de; border-radius: .3rem; padding: .4rem .9rem .7rem; margin: 0 0 1rem; min-width: 0; }
fieldset.module > legend h2, .inline-heading { font-size: 1.05rem; margin: 0; padding: 0 .3rem; }
fieldset.module .description { color: #4a5563; font-size: .9rem; }
.form-row { display: flex; flex-wrap: wrap; gap: 0 1rem; }
.form-row > .field { flex: 1 1 12rem; }
.inline-group { overflow-x: auto; }
.inline-group table { width: 100%; border-collapse: collapse; }
.inline-group th, .inline-group td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #e6eaef; vertical-align: top; }
.inline-group th.required::after { content: " *"; color: #a0161b; }
.inline-group td.original p { margin: 0 0 .2rem; color: #4a5563; font-size: .85rem; }
.inline-group textarea { min-height: 3rem; }
.errorlist { list-style: none; margin: .2rem 0; padding: 0; color: #a0161b; font-size: .9rem; }
.admin-autocomplete-search { margin-top: .3rem; }
.tabs { display: flex; gap: .25rem; margin: 0 0 -1px; padding: 0; border-bottom: 1px solid #d0d7de; }
.tabs [role=tab] { padding: .4rem .9rem; border: 1px solid transparent; border-radius: .3rem .3rem 0 0; background: none; font: inherit; color: #1a5597; cursor: pointer; }
.tabs [role=tab][aria-selected=true] { border-color: #d0d7de #d0d7de #fff; background: #fff; color: #1f2328; font-weight: 600; }
.forms .panel { border-top-left-radius: 0; }
table.list { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #d0d7de; margin-bottom: 1rem; }
table.list th, table.list td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid #e6eaef; vertical-align: middle; }
table.list th { background: #eef1f4; font-weight: 600; white-space: nowrap; }
table.list th a { color: #1f2328; }
table.list td form { display: inline; margin: 0; }
/* the index's app tables: the app's name as the table's heading, the same column widths in every app */
table.list > caption { caption-side: top; text-align: left; font-weight: 600; font-size: 1.05rem; padding: .3rem 0; }
table.list[id^="app-"] { table-layout: fixed; }
table.list[id^="app-"] th[scope=col]:first-child { width: 40%; }
.messages { margin: 0 0 1rem; }
.messages p { padding: .6rem .9rem; border-radius: .3rem; margin-bottom: .5rem; background: #e6f4ea; border: 1px solid #9fd3ad; color: #12391f; }
.messages p.error { background: #fdecea; border-color: #efa8a1; color: #7a1212; }
.messages p.info { background: #e8f0fb; border-color: #a9c4ea; color: #14325c; }
.key-box { background: #fffbe6; border: 1px solid #d4b106; border-radius: .3rem; padding: 1rem; margin-bottom: 1rem; }
.key-box p:first-child { margin-top: 0; }
.key-box p:last-child { margin-bottom: 0; }
.key { display: inline-block; max-width: 100%; overflow-wrap: anywhere; font-size: 1rem; background: #fff; padding: .3rem .5rem; border: 1px dashed #8a6d00; }
.muted, .note { color: #4a5563; }
.filters { background: #fff; border: 1px solid #d0d7de; border-radius: .3rem; padding: .6rem 1rem; margin-bottom: 1rem; }
.filters summary { display: list-item; cursor: pointer; font-weight: 600; border: 0; padding: 0; background: none; }
.filters[open] summary { margin-bottom: .5rem; }
.filters form { margin: .5rem 0; }
.filter-search { display: flex; flex-wrap: wrap; align-items: flex-end; gap: .5rem; }
.filter-search label { flex: 1 1 14rem; margin: 0; }
.filter-search input, .filter-fields input, .filter-fields select { font-weight: normal; }
.filter-ordering h2 { font-size: 1rem; margin: .8rem 0 .3rem; }
.filter-ordering ul { list-style: none; display: flex; flex-wrap: wrap; gap: .3rem .9rem; padding: 0; margin: 0; }
.filter-ordering a[aria-current] { font-weight: 700; color: #1f2328; }
#changelist-filter h2 { font-size: 1rem; margin: 0; }
#changelist-filter h3 { font-size: .95rem; margin: .7rem 0 .3rem; }
#changelist-filter ul { list-style: none; display: flex; flex-wrap: wrap; gap: .3rem .9rem; padding: 0; margin: 0; }
/* a filter with many values (a hundred authors) scrolls within its own box, so the rows stay near the top */
#changelist-filter ul { max-height: 9.5rem; overflow-y: auto; }
#changelist-filter a[aria-current] { font-weight: 700; color: #1f2328; }
.readonly .label { display: block; font-weight: 600; margin: .5rem 0 .2rem; }
.readonly-value { padding: .3rem 0; overflow-wrap: anywhere; }
.filter-fields p { margin: .3rem 0; }
.confirm { max-width: 560px; }
.login-box { max-width: 380px; margin: 2.5rem auto; }
.error-page .status { color: #a0161b; }
dialog { max-width: min(28rem, calc(100vw - 2rem)); border: 1px solid #8a96a3; border-radius: .4rem; padding: 1.2rem; }
dialog::backdrop { background: rgba(15, 23, 32, .5); }
dialog h2 { margin-top: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); border: 0; white-space: nowrap; }
@media (max-width: 640px) {
  .navbar { padding: .6rem 1rem; }
  /* the links go together on a second line under the brand */
  .navbar .spacer { flex-basis: 100%; height: 0; }
  .container { padding: 0 .75rem; margin-top: .8rem; }
  h1 { font-size: 1.4rem; }
  table.list, table.list tbody, table.list tr, table.list td { display: block; width: 100%; }
  table.list { border: 0; background: none; }
  table.list thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  table.list tr { background: #fff; border: 1px solid #d0d7de; border-radius: .3rem; margin-bottom: .6rem; padding: .3rem 0; }
  table.list td { border: 0; padding: .25rem .75rem; }
  /* a row's header (the object's link, a history row's date) is the card's title, across its width */
  table.list tbody th { display: block; width: 100%; border: 0; padding: .25rem .75rem; background: none; white-space: normal; overflow-wrap: anywhere; }
  table.list td[data-label]::before { content: attr(data-label) ": "; font-weight: 600; color: #3d4450; }
  table.list td:empty { display: none; }
}
`;
