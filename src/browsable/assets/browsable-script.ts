/**
 * The browsable API's script (served as `trestle/browsable.js`): sends the
 * raw-data form and the OPTIONS/DELETE buttons with `fetch`, carrying the
 * CSRF token in the header the page names, and shows the answer in place.
 * It never builds markup from strings: answers in HTML are parsed by the
 * browser and only the server-escaped panels are moved in; anything else is
 * shown with `textContent`.
 */
export const BROWSABLE_SCRIPT = `(function () {
  'use strict';
  var page = document.getElementById('trestle-page');
  if (!page) return;
  var csrfToken = page.getAttribute('data-csrf-token') || '';
  var csrfHeader = page.getAttribute('data-csrf-header') || 'X-CSRFToken';

  function replacePanel(doc, id) {
    var fresh = doc.getElementById(id);
    var current = document.getElementById(id);
    if (fresh && current) current.replaceWith(document.importNode(fresh, true));
  }

  function show(method, res) {
    return res.text().then(function (text) {
      var type = res.headers.get('content-type') || '';
      if (type.indexOf('text/html') === 0 && text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        replacePanel(doc, 'request-info');
        replacePanel(doc, 'response-info');
        replacePanel(doc, 'pagination-controls');
        return;
      }
      var req = document.querySelector('#request-info pre');
      if (req) req.textContent = method + ' ' + window.location.pathname + window.location.search;
      var pre = document.querySelector('#response-info pre');
      if (!pre) return;
      var lines = ['HTTP ' + res.status + ' ' + res.statusText];
      ['allow', 'content-type', 'location', 'vary'].forEach(function (name) {
        var value = res.headers.get(name);
        if (value !== null) lines.push(name.replace(/(^|-)([a-z])/g, function (m, dash, c) { return dash + c.toUpperCase(); }) + ': ' + value);
      });
      pre.textContent = lines.join('\\n') + (text ? '\\n\\n' + text : '');
    });
  }

  function send(method, body, contentType) {
    // DRF's negotiation ignores q: asking for text/html alone is what gets the page back.
    var headers = { 'Accept': 'text/html', 'X-Requested-With': 'XMLHttpRequest' };
    headers[csrfHeader] = csrfToken;
    if (body !== null) headers['Content-Type'] = contentType;
    var status = document.getElementById('request-status');
    if (status) status.textContent = 'Sending ' + method + '…';
    return fetch(window.location.href, { method: method, headers: headers, body: body, credentials: 'same-origin' })
      .then(function (res) { return show(method, res); })
      .then(function () { if (status) status.textContent = ''; })
      .catch(function (err) { if (status) status.textContent = 'Request failed: ' + err; });
  }

  document.addEventListener('click', function (event) {
    var target = event.target;
    if (!(target instanceof Element)) return;
    var button = target.closest('[data-method]');
    if (!button) return;
    event.preventDefault();
    var method = button.getAttribute('data-method');
    if (button.hasAttribute('data-raw-form')) {
      var form = document.getElementById('raw-data-form');
      var content = form.querySelector('textarea[name=_content]').value;
      var type = form.querySelector('select[name=_content_type]').value;
      send(method, content, type);
    } else {
      send(method, null, '');
    }
  });
})();
`;
