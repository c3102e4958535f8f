// `npm run gen:api`: regenerates the admin panel's API types from the service's OpenAPI document.
import { writeFileSync } from 'node:fs';
import { API_TYPES_FILE, currentOpenApiDocument, renderApiTypes } from '../src/openapi-types.js';

writeFileSync(API_TYPES_FILE, await renderApiTypes(await currentOpenApiDocument()));
console.log(`api: wrote ${API_TYPES_FILE}`);
process.exit(0);
