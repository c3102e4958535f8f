export * from './tenants.js';
export * from './users.js';
