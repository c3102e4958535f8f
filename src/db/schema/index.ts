export * from './tenants.js';
export * from './users.js';
export * from './menu.js';
export * from './tables.js';
export * from './rate-limits.js';
export * from './branches.js';
export * from './orders.js';
export * from './idempotency.js';
