/** The stylesheet of the browsable API and the admin console (served as `trestle/trestle.css`). */
export const STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; background: #f5f6f8; }
a { color: #1d5fa8; }
.navbar { display: flex; align-items: center; gap: 1rem; padding: .6rem 1.5rem; background: #1f2d3d; color: #fff; }
.navbar a, .navbar button.link { color: #fff; }
.navbar .brand { font-weight: 600; font-size: 1.1rem; text-decoration: none; }
.navbar .spacer { flex: 1; }
.navbar form { display: inline; margin: 0; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 1rem; background: #e8eef6; color: #1f2d3d; font-size: .85rem; }
.navbar .badge { background: #34495e; color: #fff; }
button.link { background: none; border: 0; padding: 0; font: inherit; text-decoration: underline; cursor: pointer; }
main.container { max-width: 1100px; margin: 1.5rem auto; padding: 0 1.5rem; }
.page-header { display: flex; align-items: flex-start; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
h1 { margin: .2rem 0 .6rem; font-size: 1.7rem; font-weight: 600; }
.description { color: #444; margin-bottom: 1rem; }
.toolbar { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; }
.btn { display: inline-block; padding: .35rem .8rem; border: 1px solid #b8c2cc; border-radius: .3rem; background: #fff; color: #222; font: inherit; font-size: .9rem; text-decoration: none; cursor: pointer; }
.btn:hover { background: #eef2f6; }
.btn-primary { background: #1d5fa8; border-color: #1d5fa8; color: #fff; }
.btn-primary:hover { background: #174d88; }
.btn-danger { background: #c0392b; border-color: #c0392b; color: #fff; }
.btn-danger:hover { background: #a93226; }
pre.prettyprint { margin: 0 0 1rem; padding: .9rem 1rem; background: #fff; border: 1px solid #dde3ea; border-radius: .3rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.request-info pre { background: #fbfcfd; }
.meta b { color: #555; }
.status-line { font-weight: 700; }
.pagination { display: flex; list-style: none; padding: 0; margin: 0 0 1rem; gap: .25rem; flex-wrap: wrap; }
.pagination li a, .pagination li span { display: inline-block; min-width: 2.2rem; text-align: center; padding: .3rem .6rem; border: 1px solid #cfd6de; border-radius: .3rem; background: #fff; text-decoration: none; }
.pagination li.active a { background: #1d5fa8; color: #fff; border-color: #1d5fa8; }
.pagination li.disabled span { color: #999; background: #f0f0f0; }
.pager { display: flex; gap: .5rem; margin: 0 0 1rem; }
.pager .disabled { color: #999; border-color: #ddd; cursor: default; }
.panel { background: #fff; border: 1px solid #dde3ea; border-radius: .3rem; padding: 1rem; margin-bottom: 1rem; }
.panel h2 { margin-top: 0; font-size: 1.1rem; }
label { display: block; font-weight: 600; margin: .4rem 0 .2rem; }
label.inline { display: inline; font-weight: normal; }
input[type=text], input[type=password], input[type=search], input[type=email], select, textarea { width: 100%; padding: .4rem .5rem; border: 1px solid #b8c2cc; border-radius: .3rem; font: inherit; }
textarea { min-height: 10rem; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.form-actions { display: flex; gap: .5rem; margin-top: .6rem; }
table.list { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #dde3ea; margin-bottom: 1rem; }
table.list th, table.list td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid #eef1f4; vertical-align: middle; }
table.list th { background: #f0f3f6; font-weight: 600; }
table.list td form { display: inline; margin: 0 .2rem 0 0; }
.messages { list-style: none; padding: 0; }
.messages li { padding: .6rem .9rem; border-radius: .3rem; margin-bottom: .5rem; background: #e6f4ea; border: 1px solid #b7dfc2; }
.messages li.error, .errorlist li { background: #fdecea; border: 1px solid #f5c2bd; }
.errorlist { list-style: none; padding: 0; color: #a12; }
.key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #fff8dc; padding: .2rem .4rem; border: 1px dashed #d4b106; }
.muted { color: #777; }
.login-box { max-width: 360px; margin: 3rem auto; }
nav.tabs { display: flex; gap: 1rem; margin-bottom: 1rem; }
`;
