/**
 * Starts Swagger UI on the docs page (served as `trestle/docs.js`); the
 * document's URL comes from the page's `data-schema-url`, so the page needs
 * no inline script.
 */
export const DOCS_SCRIPT = `(function () {
  'use strict';
  var root = document.getElementById('swagger-ui');
  if (!root || typeof SwaggerUIBundle !== 'function') return;
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-schema-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    requestInterceptor: function (req) {
      var token = root.getAttribute('data-csrf-token');
      if (token) req.headers[root.getAttribute('data-csrf-header') || 'X-CSRFToken'] = token;
      return req;
    }
  });
})();
`;
