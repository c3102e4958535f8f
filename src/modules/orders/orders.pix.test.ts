import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePixPayload } from '../../platform/pix/brcode.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makePdv, makeTenantWithTeam } from '../../../test/factories.js';

/** PIX: the tenant's key (a PDV may have its own), the BR Code of a PIX order and of what is due, confirmation by hand. */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) => t.app.inject({ method, url, headers, payload: payload as never });

async function restaurant(pixKey?: string) {
  const team = await makeTenantWithTeam(t.app, { name: 'Cantina São João da Barra do Piraí' });
  if (pixKey) expect((await call('PUT', `/t/${team.slug}/tenants`, team.admin.headers, { pixKey, city: 'São Paulo' })).statusCode).toBe(200);
  const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
  const pdv = await makePdv(t.app, team.tenant);
  return { ...team, dish, pdv };
}

describe('the PIX key', () => {
  it('is validated and stored as the DICT stores it; null clears it', async () => {
    const r = await restaurant();
    const put = (pixKey: unknown) => call('PUT', `/t/${r.slug}/tenants`, r.admin.headers, { pixKey });
    expect((await put('(11) 98765-4321')).json().pixKey).toBe('+5511987654321');
    expect((await put('Caixa@Cantina.com.br')).json().pixKey).toBe('caixa@cantina.com.br');
    for (const bad of ['123', '111.111.111-12', 'not a key', '']) {
      const res = await put(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().details[0].field).toBe('body.pixKey');
    }
    expect((await call('GET', `/t/${r.slug}/tenants`, r.admin.headers)).json().pixKey).toBe('caixa@cantina.com.br');
    expect((await put(null)).json().pixKey).toBeNull();
  });
});

describe('a PIX order', () => {
  it('gets the BR Code for its total at checkout, with the key, the merchant, the order as txid, and its QR', async () => {
    const r = await restaurant('caixa@cantina.com.br');
    const res = await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: r.pdv.slug,
      orderType: 'takeout',
      customerName: 'Carla',
      paymentMethod: 'pix',
      items: [{ menuItemId: r.dish._id, quantity: 2 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const order = res.json();
    const code = parsePixPayload(order.pixPayload);
    expect(code).toMatchObject({ key: 'caixa@cantina.com.br', amountCents: 14900, merchantCity: 'SAO PAULO', txid: order._id });
    expect(code.merchantName).toBe('CANTINA SAO JOAO DA BARRA');
    expect(Buffer.from(order.pixQrCodeBase64, 'base64').subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');

    // What is due after part is paid by hand, and the cashier confirming the PIX of the rest by hand.
    const staff = await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', items: [{ menuItem: r.dish._id, quantity: 2 }] });
    const id = staff.json()._id;
    expect(staff.json().pixPayload).toBeNull();
    await call('POST', `/t/${r.slug}/orders/${id}/process-payment`, r.admin.headers, { method: 'cash', gateway: 'mock', amount: 4900 });
    const pix = await call('GET', `/t/${r.slug}/orders/${id}/pix`, r.staff.headers);
    expect(pix.statusCode, pix.body).toBe(200);
    expect(pix.json()).toMatchObject({ amount: 10000, txid: id });
    expect(parsePixPayload(pix.json().pixPayload).amountCents).toBe(10000);
    expect((await call('POST', `/t/${r.slug}/orders/${id}/process-payment`, r.admin.headers, { method: 'pix', gateway: 'mock' })).json()).toMatchObject({
      status: 'approved',
      amountDue: 0,
    });
    expect((await call('GET', `/t/${r.slug}/orders/${id}/pix`, r.staff.headers)).json().code).toBe('nothing_due');
  });

  it('uses the PDV key over the tenant key, and says when there is none', async () => {
    const r = await restaurant();
    const order = (await call('POST', `/t/${r.slug}/orders`, r.admin.headers, { orderType: 'takeout', items: [{ menuItem: r.dish._id, quantity: 1 }] })).json();
    const none = await call('GET', `/t/${r.slug}/orders/${order._id}/pix`, r.admin.headers);
    expect([none.statusCode, none.json().code]).toEqual([400, 'pix_not_configured']);
    const own = await t.app.services.branches.createPdv(t.app.deps.tenantDb(r.tenant._id), {
      branchId: r.pdv.branchId,
      name: 'Balcão',
      slug: `balcao-${r.slug}`,
      pixKey: '+55 11 98765-4321',
    });
    await call('PUT', `/t/${r.slug}/tenants`, r.admin.headers, { pixKey: 'caixa@cantina.com.br' });
    const onPdv = (await call('POST', `/t/${r.slug}/orders`, {}, {
      pdv: own.slug,
      orderType: 'takeout',
      customerName: 'Carla',
      paymentMethod: 'pix',
      items: [{ menuItemId: r.dish._id, quantity: 1 }],
    })).json();
    expect(parsePixPayload(onPdv.pixPayload).key).toBe('+5511987654321');
    expect(parsePixPayload((await call('GET', `/t/${r.slug}/orders/${order._id}/pix`, r.admin.headers)).json().pixPayload).key).toBe('caixa@cantina.com.br');
    // Another tenant's order: 404, as for any record of another tenant.
    const other = await restaurant('outra@cantina.com.br');
    expect((await call('GET', `/t/${other.slug}/orders/${order._id}/pix`, other.admin.headers)).statusCode).toBe(404);
    expect((await call('GET', `/t/${r.slug}/orders/${order._id}/pix`)).statusCode).toBe(401);
    expect((await call('GET', `/t/${r.slug}/orders/${order._id}/pix`, r.accountant.headers)).statusCode).toBe(403);
  });
});
