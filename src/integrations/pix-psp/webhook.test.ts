import { describe, expect, it } from 'vitest';
import { PIX_PSP_WEBHOOK_PATH, PIX_PSP_WEBHOOK_REGISTERED_PATH, parsePixPspWebhook } from './webhook.js';
import { pixWebhookUrl } from './simulator/webhooks.js';

const e2e = (n: number) => `E99999999202501011200${String(n).padStart(11, '0')}`;
const item = { endToEndId: e2e(1), txid: 'a'.repeat(30), valor: '149.00', horario: '2025-01-01T12:00:00.000Z' };

describe('pix_psp webhook bodies', () => {
  it('is received at the registered URL with /pix appended', () => {
    expect(PIX_PSP_WEBHOOK_REGISTERED_PATH).toBe('/api/pix-psp/webhook');
    expect(PIX_PSP_WEBHOOK_PATH).toBe('/api/pix-psp/webhook/pix');
    expect(pixWebhookUrl('https://r.example/api/pix-psp/webhook')).toBe(`https://r.example${PIX_PSP_WEBHOOK_PATH}`);
    expect(pixWebhookUrl('https://r.example/hook/?k=1')).toBe('https://r.example/hook/pix?k=1');
  });

  it('reads every Pix of the body in cents, with its charge, time and payer message', () => {
    const body = { pix: [{ ...item, infoPagador: 'Mesa 4' }, { ...item, endToEndId: e2e(2), txid: undefined, valor: '0.01' }] };
    expect(parsePixPspWebhook(body)).toEqual({
      payments: [
        { endToEndId: e2e(1), txid: item.txid, amountCents: 14_900, paidAt: new Date(item.horario), payerMessage: 'Mesa 4' },
        // A Pix sent to the key without a charge has no txid.
        { endToEndId: e2e(2), txid: null, amountCents: 1, paidAt: new Date(item.horario), payerMessage: null },
      ],
    });
    // Fields it does not know (devolucoes, chave, componentesValor...) are ignored.
    expect(parsePixPspWebhook({ pix: [{ ...item, chave: 'a@b.co', devolucoes: [] }] })?.payments).toHaveLength(1);
  });

  it('returns null for anything else', () => {
    for (const b of [
      null,
      'x',
      [],
      {},
      { pix: [] },
      { pix: item },
      { pix: [{ ...item, valor: 149 }] },
      { pix: [{ ...item, valor: '149' }] },
      { pix: [{ ...item, valor: '0.00' }] },
      { pix: [{ ...item, endToEndId: '' }] },
      { pix: [{ ...item, horario: 'yesterday' }] },
      { pix: [item, null] },
    ]) {
      expect(parsePixPspWebhook(b), JSON.stringify(b)).toBeNull();
    }
  });
});
