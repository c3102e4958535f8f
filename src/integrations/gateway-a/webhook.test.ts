import { describe, expect, it } from 'vitest';
import { buildGatewayAWebhookBody, parseGatewayAWebhook } from './webhook.js';

describe('gateway_a webhook bodies', () => {
  const facts = { intentId: 'pi-1', externalId: 'order-9', outcome: 'approved' as const, paymentId: '70000000001' };

  it('builds and reads the { event, data: { id, status } } shape', () => {
    const body = buildGatewayAWebhookBody('event', facts);
    expect(body).toEqual({
      event: 'payment_intent.approved',
      data: { id: 'pi-1', status: 'approved', payment_id: '70000000001', external_reference: 'order-9' },
    });
    expect(parseGatewayAWebhook(body)).toEqual({
      shape: 'event',
      event: 'payment_intent.approved',
      intentId: 'pi-1',
      externalId: 'order-9',
      outcome: 'approved',
      status: 'approved',
      transactionId: '70000000001',
    });
  });

  it('builds and reads the { external_id, status, id } shape', () => {
    const body = buildGatewayAWebhookBody('external', { ...facts, outcome: 'declined', paymentId: null });
    expect(body).toEqual({ external_id: 'order-9', status: 'declined', id: 'pi-1', payment_id: null });
    expect(parseGatewayAWebhook(body)).toMatchObject({ shape: 'external', intentId: 'pi-1', externalId: 'order-9', outcome: 'declined', transactionId: 'pi-1' });
    expect(parseGatewayAWebhook({ external_id: 'order-9', status: 'authorized', id: 123 })).toMatchObject({ outcome: 'approved', transactionId: '123' });
  });

  it('reads the spec minimal bodies and tells intermediate states apart', () => {
    expect(parseGatewayAWebhook({ event: 'x', data: { id: 'a', status: 'declined' } })).toMatchObject({ outcome: 'declined', externalId: null });
    expect(parseGatewayAWebhook({ event: 'x', data: { id: 'a', status: 'ON_TERMINAL' } })).toMatchObject({ outcome: null, status: 'ON_TERMINAL' });
    expect(parseGatewayAWebhook({ event: 'x', data: { id: 'a', status: 'FINISHED' } })).toMatchObject({ outcome: 'approved' });
    expect(parseGatewayAWebhook({ external_id: 'o', status: 'canceled' })).toMatchObject({ outcome: 'declined', intentId: null });
  });

  it('returns null for anything else', () => {
    for (const b of [null, 'x', [], {}, { event: 'x' }, { data: { status: 'approved' } }, { data: { id: 'a' } }, { id: 'a' }, { status: 'approved' }]) {
      expect(parseGatewayAWebhook(b)).toBeNull();
    }
  });
});
