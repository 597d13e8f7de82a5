/**
 * The admin's autocomplete widgets (served as `trestle/admin-autocomplete.js`):
 * typing in the search box next to a select with `data-autocomplete-url`
 * asks the admin's `autocomplete/` endpoint for `term` and lists the rows
 * found as options, keeping the chosen ones. No inline script, no library.
 */
export const ADMIN_AUTOCOMPLETE_SCRIPT = `(function () {
  'use strict';
  function setup(input) {
    var select = document.getElementById(input.getAttribute('data-for'));
    if (!select) return;
    var url = select.getAttribute('data-autocomplete-url');
    var timer = null;
    var asked = 0;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      timer = setTimeout(function () {
        var mine = ++asked;
        fetch(url + '&term=' + encodeURIComponent(input.value), { credentials: 'same-origin', headers: { Accept: 'application/json' } })
          .then(function (res) { return res.ok ? res.json() : null; })
          .then(function (data) {
            if (!data || mine !== asked) return;
            Array.prototype.slice.call(select.options).forEach(function (o) {
              if (!o.selected && o.value !== '') select.removeChild(o);
            });
            var have = {};
            Array.prototype.forEach.call(select.options, function (o) { have[o.value] = true; });
            data.results.forEach(function (r) {
              if (have[r.id]) return;
              var o = document.createElement('option');
              o.value = r.id;
              o.textContent = r.text;
              select.appendChild(o);
            });
          });
      }, 250);
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll('input.admin-autocomplete-search'), setup);
})();
`;
