import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_FILE, openApiDocument, renderApiTypes } from '../src/openapi-types.js';
import { createTestApp, type TestApp } from './app.js';

/** The admin panel's generated API client types must be those of the current routes (`npm run gen:api`). */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

describe(API_TYPES_FILE, () => {
  it('is what the current OpenAPI document generates (run `npm run gen:api` after changing a route)', async () => {
    const expected = await renderApiTypes(await openApiDocument(t.app));
    const committed = readFileSync(API_TYPES_FILE, 'utf8');
    // A short message first: the whole file is 1 MB.
    expect(committed === expected, `${API_TYPES_FILE} is stale: run npm run gen:api`).toBe(true);
  });
});
