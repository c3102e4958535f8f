import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ctxOf, principalOf, tenantOf } from './auth/guards.js';
import {
  Conflict,
  Declined,
  Forbidden,
  Invalid,
  InvalidRequest,
  NotFound,
  Rejected,
  Unauthenticated,
  Unavailable,
  type DomainError,
} from './domain-errors.js';
import { domainErrorResponse, installErrorHandling, type RouteApp } from './http.js';
import { installValidators } from './validation.js';

describe('domain errors as HTTP answers', () => {
  it('gives each kind its status and keeps its code and message', () => {
    const cases: [DomainError, number, string][] = [
      [new InvalidRequest('Give either parts or lines'), 400, 'bad_request'],
      [new Unauthenticated(), 401, 'unauthorized'],
      [new Declined('Payment declined: insufficient funds'), 402, 'payment_declined'],
      [new Forbidden('no', 'branch_scope'), 403, 'branch_scope'],
      [new NotFound('Order'), 404, 'not_found'],
      [new Conflict('Table 3 already exists', 'table_number_taken'), 409, 'table_number_taken'],
      [new Rejected('refused', 'provider_refused'), 422, 'provider_refused'],
      [new Unavailable('down', 'provider_unavailable'), 503, 'provider_unavailable'],
    ];
    for (const [err, status, code] of cases) {
      const { status: s, body } = domainErrorResponse(err, 'body');
      expect(s, err.constructor.name).toBe(status);
      expect(body).toMatchObject({ statusCode: status, code, message: err.message });
    }
    expect(domainErrorResponse(new NotFound('Order'), 'body').body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Order not found', code: 'not_found' });
  });

  it('turns the input path of Invalid into the request path', () => {
    expect(domainErrorResponse(new Invalid('items.0.quantity', 'must be at least 1'), 'body').body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'body.items.0.quantity: must be at least 1',
      code: 'validation',
      details: [{ field: 'body.items.0.quantity', message: 'must be at least 1' }],
    });
    // The service may name the part; a summary replaces the built message.
    expect(domainErrorResponse(new Invalid('idempotency-key', 'too long', { in: 'headers' }), 'body').body.details).toEqual([
      { field: 'headers.idempotency-key', message: 'too long' },
    ]);
    const wrong = domainErrorResponse(new Invalid('currentPassword', 'is wrong', { code: 'invalid_current_password', summary: 'The current password is wrong' }), 'body');
    expect(wrong.body).toMatchObject({ message: 'The current password is wrong', code: 'invalid_current_password', details: [{ field: 'body.currentPassword' }] });
    // Several problems at once are listed like schema validation errors.
    const many = new Invalid(
      [
        { field: 'maxSelections', message: 'must be 1 for a single-choice group' },
        { field: 'options', message: 'option names must be unique in the group: Bacon' },
      ],
      { code: 'modifier_group_rules' },
    );
    expect(domainErrorResponse(many, 'body').body).toMatchObject({
      code: 'modifier_group_rules',
      message: 'body.maxSelections must be 1 for a single-choice group; body.options option names must be unique in the group: Bacon',
      details: [{ field: 'body.maxSelections' }, { field: 'body.options' }],
    });
  });

  it('keeps the notes of a conflict as they are, and names the field of a decline', () => {
    const tab = new Conflict('Table 3 already has an open tab', 'tab_open', [{ field: 'table', message: 'abc' }]);
    expect(domainErrorResponse(tab, 'body').body.details).toEqual([{ field: 'table', message: 'abc' }]);
    const declined = new Declined('Payment declined: cc_rejected', 'payment_declined', 'cardToken', 'cc_rejected');
    expect(domainErrorResponse(declined, 'body').body.details).toEqual([{ field: 'body.cardToken', message: 'cc_rejected' }]);
  });
});

describe('through a route', () => {
  const app = Fastify({ logger: false });
  beforeAll(async () => {
    installValidators(app);
    installErrorHandling(app);
    const routes: RouteApp = app;
    routes.post('/things', { schema: { body: Type.Object({ items: Type.Array(Type.Integer()) }) } }, async (req) => {
      const bad = req.body.items.findIndex((n) => n < 1);
      if (bad >= 0) throw new Invalid(`items.${bad}`, 'must be at least 1');
      return { ok: true };
    });
    routes.get('/things', { schema: { querystring: Type.Object({ to: Type.Optional(Type.String()) }) } }, async () => {
      throw new Invalid('to', 'must not be before from');
    });
    routes.get('/tenant-less', async (req) => ({ tenant: tenantOf(req).slug }));
    routes.get('/ctx-less', async (req) => ({ tenant: ctxOf(req).tenantId }));
    routes.get('/user-less', async (req) => ({ user: principalOf(req).id }));
    await app.ready();
  });
  afterAll(() => app.close());

  it('names the field in the part of the request the route takes: its body, else its query string', async () => {
    const body = await app.inject({ method: 'POST', url: '/things', payload: { items: [3, 0] } });
    expect(body.statusCode).toBe(400);
    expect(body.json().details).toEqual([{ field: 'body.items.1', message: 'must be at least 1' }]);
    const query = await app.inject({ url: '/things?to=2020-01-01' });
    expect(query.json()).toMatchObject({ statusCode: 400, code: 'validation', details: [{ field: 'querystring.to' }] });
  });

  it('answers a route that reads what its auth rule does not provide with a 500 that tells nothing', async () => {
    for (const url of ['/tenant-less', '/ctx-less', '/user-less']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(500);
      expect(res.json()).toMatchObject({ code: 'internal', message: expect.stringMatching(/^Internal error \(request /) });
    }
  });
});
