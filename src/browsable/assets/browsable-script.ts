/**
 * The browsable API's script (served as `trestle/browsable.js`): sends the
 * HTML form, the raw-data form and the OPTIONS/DELETE buttons with `fetch`,
 * carrying the CSRF token in the header the page names, and shows the
 * answer in place; turns the two form panels into tabs; opens the DELETE
 * confirmation dialog. It never builds markup from strings: answers in HTML
 * are parsed by the browser and only the server-escaped panels are moved
 * in; anything else is shown with `textContent`.
 */
export const BROWSABLE_SCRIPT = `(function () {
  'use strict';
  var page = document.getElementById('trestle-page');
  if (!page) return;
  var csrfToken = page.getAttribute('data-csrf-token') || '';
  var csrfHeader = page.getAttribute('data-csrf-header') || 'X-CSRFToken';

  function replacePanel(doc, id, removeWhenAbsent) {
    var fresh = doc.getElementById(id);
    var current = document.getElementById(id);
    if (fresh && current) current.replaceWith(document.importNode(fresh, true));
    else if (!fresh && current && removeWhenAbsent) current.remove();
  }

  function show(method, res) {
    return res.text().then(function (text) {
      var type = res.headers.get('content-type') || '';
      if (type.indexOf('text/html') === 0 && text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        replacePanel(doc, 'request-info');
        replacePanel(doc, 'response-info');
        // The answer to a write has no page controls: drop the old ones.
        replacePanel(doc, 'pagination-controls', true);
        // The HTML form comes back with the values sent and each field's errors.
        replacePanel(doc, 'html-form');
        return;
      }
      var pager = document.getElementById('pagination-controls');
      if (pager && method !== 'GET') pager.remove();
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
      .then(function (res) { return show(method, res).then(function () { return res; }); })
      .then(function (res) { if (status) status.textContent = method + ': ' + res.status + ' ' + res.statusText; })
      .catch(function (err) { if (status) status.textContent = 'Request failed: ' + err; });
  }

  // The HTML form as the view reads it: JSON with typed values, or a urlencoded form.
  function sendHtmlForm(form) {
    var method = form.getAttribute('data-form-method') || 'POST';
    var type = form.getAttribute('data-content-type') || 'application/json';
    var values = {};
    Array.prototype.forEach.call(form.querySelectorAll('[name]'), function (el) {
      var kind = el.getAttribute('data-type');
      if (kind === 'boolean') { values[el.name] = el.checked; return; }
      var v = el.value;
      if (v === '' && !el.required) return;
      if (kind === 'number' && v !== '' && !isNaN(Number(v))) { values[el.name] = Number(v); return; }
      if (kind === 'json') {
        // Sent as parsed when it is JSON; otherwise as typed, for the server to explain.
        try { values[el.name] = JSON.parse(v); } catch (e) { values[el.name] = v; }
        return;
      }
      values[el.name] = v;
    });
    if (type === 'application/json') return send(method, JSON.stringify(values), type);
    var params = new URLSearchParams();
    Object.keys(values).forEach(function (k) {
      var v = values[k];
      params.append(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
    });
    return send(method, params.toString(), type);
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || form.id !== 'html-form') return;
    event.preventDefault();
    sendHtmlForm(form);
  });

  function selectTab(tab) {
    Array.prototype.forEach.call(document.querySelectorAll('#forms [role=tab]'), function (t) {
      var on = t === tab;
      t.setAttribute('aria-selected', on ? 'true' : 'false');
      t.tabIndex = on ? 0 : -1;
      var panel = document.getElementById(t.getAttribute('aria-controls'));
      if (panel) panel.hidden = !on;
    });
  }
  var tablist = document.querySelector('#forms [role=tablist]');
  if (tablist) {
    tablist.hidden = false;
    Array.prototype.forEach.call(document.querySelectorAll('#forms [role=tabpanel] > h2'), function (h) { h.classList.add('visually-hidden'); });
    selectTab(document.getElementById('tab-html'));
    tablist.addEventListener('keydown', function (event) {
      if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
      var tabs = Array.prototype.slice.call(tablist.querySelectorAll('[role=tab]'));
      var at = tabs.indexOf(document.activeElement);
      var next = tabs[(at + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
      selectTab(next);
      next.focus();
    });
  }

  document.addEventListener('click', function (event) {
    var target = event.target;
    if (!(target instanceof Element)) return;
    var tab = target.closest('#forms [role=tab]');
    if (tab) { selectTab(tab); return; }
    var opener = target.closest('[data-confirm]');
    if (opener) {
      var dialog = document.getElementById(opener.getAttribute('data-confirm'));
      if (dialog && typeof dialog.showModal === 'function') dialog.showModal();
      return;
    }
    var closer = target.closest('[data-close-dialog]');
    if (closer) { closer.closest('dialog').close(); return; }
    var button = target.closest('[data-method]');
    if (!button) return;
    event.preventDefault();
    var method = button.getAttribute('data-method');
    var inDialog = button.closest('dialog');
    if (inDialog) inDialog.close();
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
