export * from './tenants.js';
export * from './users.js';
export * from './menu.js';
export * from './tables.js';
export * from './rate-limits.js';
