/**
 * GET /openapi.json, /docs (Swagger UI) and /redoc (ReDoc), with their assets served
 * from node_modules so the documentation works offline (no CDN).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express, { type Express } from 'express';
import { z } from 'zod';
import type { ApiBuilder } from '../api.js';
import { REDOC_CSP, SWAGGER_CSP } from '../middleware/security-headers.js';

const require = createRequire(import.meta.url);

const SWAGGER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stockscreen API — Swagger UI</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

// validatorUrl: null — Swagger UI would otherwise send the document to validator.swagger.io (offline, and private).
const SWAGGER_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout', persistAuthorization: true });`;

const REDOC_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>stockscreen API — ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/openapi.json"></redoc>
<script src="/redoc/assets/redoc.standalone.js"></script>
</body></html>`;

/** Register the documentation routes; `document` is built lazily once all routes exist. */
export function registerDocsRoutes(app: Express, api: ApiBuilder, document: () => unknown): void {
  const common = { tags: ['docs'], access: 'public', raw: true, rateLimitExempt: true } as const;
  const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  const redocDir = dirname(require.resolve('redoc/package.json'));
  app.use('/docs/assets', express.static(swaggerDir, { index: false, maxAge: '1h' }));
  app.use('/redoc/assets', express.static(`${redocDir}/bundles`, { index: false, maxAge: '1h' }));

  api.route({ ...common, method: 'get', path: '/openapi.json', summary: 'This OpenAPI 3.1 document', response: z.record(z.string(), z.unknown()) }, (_req, res) => {
    res.json(document());
  });
  api.route({ ...common, method: 'get', path: '/docs', summary: 'Interactive documentation (Swagger UI)', contentType: 'text/html', headers: { 'Content-Security-Policy': SWAGGER_CSP } }, (_req, res) => {
    res.type('html').send(SWAGGER_HTML);
  });
  api.route({ ...common, method: 'get', path: '/docs/init.js', summary: 'Swagger UI start-up script', contentType: 'text/javascript' }, (_req, res) => {
    res.type('js').send(SWAGGER_INIT);
  });
  api.route({ ...common, method: 'get', path: '/redoc', summary: 'Interactive documentation (ReDoc)', contentType: 'text/html', headers: { 'Content-Security-Policy': REDOC_CSP } }, (_req, res) => {
    res.type('html').send(REDOC_HTML);
  });
}
