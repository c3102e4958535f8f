import { APP_EVENT_TYPES, APP_SCOPES, APP_STATUSES, DELIVERY_STATUSES, INSTALLATION_STATUSES } from '../src/db/schema/apps.js';
import { AUDIT_ACTIONS } from '../src/db/schema/audit.js';
import { DELIVERY_EVENT_STATUSES, DELIVERY_PROVIDERS, STATUS_PUSH_RESULTS } from '../src/db/schema/delivery.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCOUNT_NATURES,
  ACCOUNT_TYPES,
  BANK_ACCOUNT_TYPES,
  ENTRY_STATUSES,
  NORMAL_BALANCES,
  PERIOD_STATUSES,
  RECEIVABLE_SOURCES,
  RECEIVABLE_STATUSES,
  STATEMENT_LINE_STATUSES,
} from '../src/db/schema/accounting.js';
import { INDIRECT_COST_TYPES, INDIRECT_UNIT_TYPES, SNAPSHOT_TRIGGERS } from '../src/db/schema/bom.js';
import { EXPENSE_DRE_GROUPS } from '../src/db/schema/dre.js';
import { ITEM_STATUSES, LABEL_REASONS, LABEL_STATUSES, MOVEMENT_REASONS, MOVEMENT_TYPES, STOCK_UNITS } from '../src/db/schema/inventory.js';
import { KITCHEN_STATIONS, MENU_UNITS, MODIFIER_GROUP_TYPES } from '../src/db/schema/menu.js';
import { PURCHASE_ORDER_STATUSES, SUGGESTION_STATUSES } from '../src/db/schema/purchasing.js';
import { DISCOUNT_KINDS, ORDER_SOURCES, ORDER_STATUSES, ORDER_TYPES, PAYMENT_GATEWAYS, PAYMENT_METHODS, PAYMENT_STATUSES } from '../src/db/schema/orders.js';
import { CASH_MOVEMENT_KINDS, SHIFT_STATUSES } from '../src/db/schema/shifts.js';
import { RESERVATION_STATUSES, TABLE_STATUSES } from '../src/db/schema/tables.js';
import { MEMBER_ROLES } from '../src/db/schema/users.js';
import { CASH_FLOW_METHODS } from '../src/modules/accounting/reports.schemas.js';
import { POSTING_KEY_NAMES } from '../src/modules/accounting/books.js';
import { BUSINESS_TYPES, PLANS } from '../src/modules/tenants/tenants.schemas.js';
import { createTestApp, type TestApp } from './app.js';

type Schema = { $ref?: string; type?: string; nullable?: boolean; enum?: string[]; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };
interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components?: { schemas?: Record<string, Schema> };
}

let t: TestApp;
let doc: Doc;
beforeAll(async () => {
  t = await createTestApp();
  doc = (await t.app.inject({ url: '/openapi.json' })).json() as Doc;
});
afterAll(() => t.close());

/** Follows `$ref`s to the components of the document. */
function resolve(s: Schema): Schema {
  if (!s.$ref) return s;
  const name = s.$ref.replace('#/components/schemas/', '');
  const target = doc.components?.schemas?.[name];
  if (!target) throw new Error(`unresolved ${s.$ref}`);
  return resolve(target);
}

/** The schema of a route's answer with `status`, unwrapping arrays. */
function answer(method: string, path: string, status = '200'): Schema {
  const op = doc.paths[path]?.[method];
  expect(op, `${method.toUpperCase()} ${path} is documented`).toBeDefined();
  let s = resolve(op.responses[status].content!['application/json'].schema);
  while (s.type === 'array' && s.items) s = resolve(s.items);
  return s;
}

/**
 * The `enum` of a property, whether the property is nullable (`anyOf: [enum, null]`, or `nullable: true` with
 * `null` among the values, as OpenAPI 3.0.3 asks) or not; the `null` of a nullable enum is left out.
 */
function enumOf(object: Schema, prop: string): string[] | undefined {
  const p = object.properties?.[prop];
  expect(p, `property ${prop}`).toBeDefined();
  const s = resolve(p!);
  const values = s.enum ?? s.anyOf?.map(resolve).find((b) => b.enum)?.enum;
  if (s.enum && (s as { nullable?: boolean }).nullable) expect(s.enum, `nullable ${prop} lists null`).toContain(null);
  return values?.filter((v) => v !== null);
}

describe('/openapi.json', () => {
  it('lists the closed values of every enumerated response field', () => {
    const order = answer('get', '/t/{slug}/orders');
    expect(enumOf(order, 'status')).toEqual([...ORDER_STATUSES]);
    expect(enumOf(order, 'type')).toEqual([...ORDER_TYPES]);
    expect(enumOf(order, 'paymentStatus')).toEqual([...PAYMENT_STATUSES]);
    expect(enumOf(order, 'paymentMethod')).toEqual([...PAYMENT_METHODS]);
    expect(enumOf(order, 'paymentGateway')).toEqual([...PAYMENT_GATEWAYS]);
    expect(enumOf(order, 'source')).toEqual([...ORDER_SOURCES]);
    expect(enumOf(order, 'externalProvider')).toEqual([...DELIVERY_PROVIDERS]);
    const orderLine = resolve(resolve(order.properties!.items).items!);
    expect(enumOf(orderLine, 'unit')).toEqual([...MENU_UNITS]);
    expect(enumOf(orderLine, 'station')).toEqual([...KITCHEN_STATIONS]);
    expect(enumOf(resolve(orderLine.properties!.discount), 'kind')).toEqual([...DISCOUNT_KINDS]);

    const tracked = answer('get', '/t/{slug}/orders/{number}/track');
    expect(enumOf(tracked, 'status')).toEqual([...ORDER_STATUSES]);
    expect(enumOf(tracked, 'paymentStatus')).toEqual([...PAYMENT_STATUSES]);

    expect(enumOf(answer('get', '/t/{slug}/tables'), 'status')).toEqual([...TABLE_STATUSES]);
    expect(enumOf(answer('get', '/t/{slug}/reservations'), 'status')).toEqual([...RESERVATION_STATUSES]);
    expect(enumOf(answer('get', '/t/{slug}/users'), 'role')).toEqual([...MEMBER_ROLES]);
    expect(enumOf(resolve(answer('get', '/t/{slug}/audit').properties!.data.items!), 'action')).toEqual([...AUDIT_ACTIONS]);
    expect(enumOf(answer('get', '/t/{slug}/menu/modifier-groups'), 'type')).toEqual([...MODIFIER_GROUP_TYPES]);
    expect(enumOf(answer('get', '/t/{slug}/menu/items'), 'unit')).toEqual([...MENU_UNITS]);
    expect(enumOf(answer('get', '/t/{slug}/menu/items'), 'station')).toEqual([...KITCHEN_STATIONS]);
    expect(enumOf(resolve(answer('get', '/t/{slug}/storefront').properties!.tenant), 'businessType')).toEqual([...BUSINESS_TYPES]);

    for (const tenant of [answer('get', '/t/{slug}/tenants'), answer('get', '/api/superadmin/tenants')]) {
      expect(enumOf(tenant, 'plan')).toEqual([...PLANS]);
      expect(enumOf(tenant, 'businessType')).toEqual([...BUSINESS_TYPES]);
    }

    expect(enumOf(answer('get', '/api/t/{slug}/admin/branches/{id}/shifts/active'), 'status')).toEqual([...SHIFT_STATUSES]);
    const shift = answer('get', '/api/t/{slug}/admin/branches/{id}/shifts/{shiftId}');
    expect(enumOf(shift, 'status')).toEqual([...SHIFT_STATUSES]);
    expect(enumOf(resolve(resolve(shift.properties!.movements).items!), 'kind')).toEqual([...CASH_MOVEMENT_KINDS]);

    const item = answer('get', '/t/{slug}/inventory');
    expect(enumOf(item, 'unit')).toEqual([...STOCK_UNITS]);
    expect(enumOf(item, 'status')).toEqual([...ITEM_STATUSES]);
    for (const movement of [answer('post', '/t/{slug}/inventory/{id}/movements', '201'), answer('post', '/t/{slug}/inventory/scan/{token}', '201')]) {
      expect(enumOf(movement, 'type')).toEqual([...MOVEMENT_TYPES]);
      expect(enumOf(movement, 'reason')).toEqual([...MOVEMENT_REASONS]);
    }
    const label = answer('post', '/t/{slug}/inventory/labels', '201');
    expect(enumOf(label, 'reason')).toEqual([...LABEL_REASONS]);
    expect(enumOf(label, 'status')).toEqual([...LABEL_STATUSES]);
    expect(enumOf(resolve(answer('get', '/t/{slug}/branch-stock').properties!.item), 'unit')).toEqual([...STOCK_UNITS]);
    expect(enumOf(answer('get', '/t/{slug}/inventory/purchase-orders'), 'status')).toEqual([...PURCHASE_ORDER_STATUSES]);
    expect(enumOf(answer('get', '/t/{slug}/inventory/predictions/suggested-orders'), 'status')).toEqual([...SUGGESTION_STATUSES]);

    const account = answer('get', '/t/{slug}/accounting/chart');
    expect(enumOf(account, 'nature')).toEqual([...ACCOUNT_NATURES]);
    expect(enumOf(account, 'type')).toEqual([...ACCOUNT_TYPES]);
    expect(enumOf(account, 'normalBalance')).toEqual([...NORMAL_BALANCES]);
    expect(enumOf(resolve(resolve(answer('get', '/t/{slug}/accounting/journal').properties!.data).items!), 'status')).toEqual([...ENTRY_STATUSES]);
    expect(enumOf(answer('get', '/t/{slug}/accounting/ledger/balancete'), 'nature')).toEqual([...ACCOUNT_NATURES]);
    expect(enumOf(answer('get', '/t/{slug}/accounting/mappings'), 'key')).toEqual([...POSTING_KEY_NAMES]);
    expect(enumOf(answer('get', '/t/{slug}/accounting/ledger/periods'), 'status')).toEqual(['open', ...PERIOD_STATUSES]);
    const receivable = resolve(resolve(answer('get', '/t/{slug}/accounting/receivables').properties!.data).items!);
    expect(enumOf(receivable, 'status')).toEqual([...RECEIVABLE_STATUSES]);
    expect(enumOf(receivable, 'source')).toEqual([...RECEIVABLE_SOURCES]);
    expect(enumOf(answer('get', '/t/{slug}/accounting/bank'), 'type')).toEqual([...BANK_ACCOUNT_TYPES]);

    for (const app of [answer('get', '/t/{slug}/admin/marketplace/apps'), answer('get', '/api/superadmin/apps')]) {
      expect(enumOf(app, 'status')).toEqual([...APP_STATUSES]);
      expect(resolve(resolve(app.properties!.scopes).items!).enum).toEqual([...APP_SCOPES]);
    }
    const installation = answer('get', '/t/{slug}/admin/marketplace/installations');
    expect(enumOf(installation, 'status')).toEqual([...INSTALLATION_STATUSES]);
    expect(resolve(resolve(installation.properties!.scopes).items!).enum).toEqual([...APP_SCOPES]);
    const delivery = resolve(resolve(answer('get', '/t/{slug}/admin/marketplace/installations/{id}/deliveries').properties!.items).items!);
    expect(enumOf(delivery, 'status')).toEqual([...DELIVERY_STATUSES]);
    expect(enumOf(delivery, 'eventType')).toEqual([...APP_EVENT_TYPES]);
    expect(enumOf(answer('post', '/t/{slug}/admin/marketplace/installations/{id}/webhooks/enable'), 'status')).toEqual([...INSTALLATION_STATUSES]);
    expect(enumOf(answer('get', '/public/v1/orders'), 'status')).toEqual([...ORDER_STATUSES]);
    expect(enumOf(answer('get', '/public/v1/reservations'), 'status')).toEqual([...RESERVATION_STATUSES]);

    expect(enumOf(answer('get', '/t/{slug}/marketplace/integrations'), 'provider')).toEqual([...DELIVERY_PROVIDERS]);
    const deliveryEvent = resolve(resolve(answer('get', '/t/{slug}/marketplace/events').properties!.items).items!);
    expect(enumOf(deliveryEvent, 'status')).toEqual([...DELIVERY_EVENT_STATUSES]);
    expect(enumOf(deliveryEvent, 'provider')).toEqual([...DELIVERY_PROVIDERS]);
    expect(enumOf(answer('post', '/t/{slug}/marketplace/events/{id}/retry'), 'status')).toEqual([...DELIVERY_EVENT_STATUSES]);
    const push = answer('get', '/t/{slug}/marketplace/orders/{orderId}/pushes');
    expect(enumOf(push, 'provider')).toEqual([...DELIVERY_PROVIDERS]);
    expect(enumOf(push, 'status')).toEqual([...ORDER_STATUSES]);
    expect(enumOf(push, 'result')).toEqual([...STATUS_PUSH_RESULTS]);
    for (const path of ['/t/{slug}/marketplace/integrations/sync', '/t/{slug}/marketplace/integrations/{id}/sync']) {
      expect(enumOf(resolve(resolve(answer('post', path, '202').properties!.runs).items!), 'provider')).toEqual([...DELIVERY_PROVIDERS]);
    }
    expect(enumOf(answer('get', '/t/{slug}/accounting/bank/{id}/statement'), 'status')).toEqual([...STATEMENT_LINE_STATUSES]);
    expect(enumOf(answer('get', '/t/{slug}/admin/accounting/cash-flow'), 'method')).toEqual([...CASH_FLOW_METHODS]);
    expect(enumOf(answer('get', '/t/{slug}/dre/categories'), 'dreGroup')).toEqual([...EXPENSE_DRE_GROUPS]);
    expect(enumOf(resolve(answer('get', '/t/{slug}/dre').properties!.byCategory!.items!), 'dreGroup')).toEqual([...EXPENSE_DRE_GROUPS]);
    expect(enumOf(resolve(answer('post', '/t/{slug}/dre/expenses', '201').properties!.category!), 'dreGroup')).toEqual([...EXPENSE_DRE_GROUPS]);
    const indirectCost = answer('post', '/t/{slug}/bom/indirect-costs', '201');
    expect(enumOf(indirectCost, 'type')).toEqual([...INDIRECT_COST_TYPES]);
    expect(enumOf(indirectCost, 'unitType')).toEqual([...INDIRECT_UNIT_TYPES]);
    expect(enumOf(answer('get', '/t/{slug}/bom/{menuItemId}/history'), 'triggeredBy')).toEqual([...SNAPSHOT_TRIGGERS]);
    expect(enumOf(resolve(answer('get', '/t/{slug}/bom').properties!.latestSnapshot), 'triggeredBy')).toEqual([...SNAPSHOT_TRIGGERS]);
  });

  it('documents the media types of a file answer, errors staying JSON', () => {
    const responses = doc.paths['/t/{slug}/pdvs/{pdvId}/table-qr'].get.responses;
    expect(Object.keys(responses['200'].content!).sort()).toEqual(['image/png', 'text/html']);
    expect(Object.keys(responses['404'].content!)).toEqual(['application/json']);
  });

  it('shows a nullable field as the value or null (OpenAPI 3.0 `nullable`), enums included with null among their values', () => {
    const order = answer('get', '/t/{slug}/orders');
    expect(resolve(order.properties!.table)).toMatchObject({ type: 'string', nullable: true });
    expect(resolve(order.properties!.paymentStatus)).toMatchObject({ type: 'string', nullable: true, enum: [...PAYMENT_STATUSES, null] });
  });
});
