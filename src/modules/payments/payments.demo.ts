import type { PaymentMethod } from '../../db/schema/orders.js';
import { scopeOf, type TenantCtx } from '../../platform/auth/guards.js';
import type { DemoSeedContext } from '../../platform/module.js';
import type { TenantRef } from '../../platform/tenancy.js';
import { addDays, localDate, startOfLocalDay } from '../../platform/time.js';
import type { BranchesService, PdvView } from '../branches/index.js';
import type { MenuService } from '../menu/index.js';
import type { OrdersService } from '../orders/index.js';
import type { ShiftsService } from '../shifts/index.js';
import type { TenantsService } from '../tenants/index.js';
import type { UsersService } from '../users/index.js';
import type { PaymentsService } from './payments.service.js';

/** How many days before today get sales. */
export const DEMO_SALES_DAYS = 7;

/** Who works the drawers: the HQ's staff member, and at the other branches the admin (the users seed's logins). */
const HQ_OPERATOR = 'staff@demo.local';
const BRANCH_OPERATOR = 'admin@demo.local';

interface DemoSalesServices {
  payments: PaymentsService;
  orders: OrdersService;
  shifts: ShiftsService;
  branches: BranchesService;
  menu: MenuService;
  users: UsersService;
  tenants: TenantsService;
}

type Item = { _id: string; price: number };
type Tender = { method: PaymentMethod; amount?: number; tip?: number };
/** A shift of the day being seeded, with what its drawer took per method (amount + tip). */
type Shift = { pdv: PdvView; ctx: TenantCtx; id: string; float: number; closesAt: Date; took: Partial<Record<PaymentMethod, number>> };
type Planned = { shift: Shift; at: Date; lines: { menuItem: string; quantity: number }[]; dineIn: boolean };

/** A small seeded generator (mulberry32): the same history for a first start on the same weekday, only the dates move. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The demo tenant's last DEMO_SALES_DAYS days, for the branch reports: at every PDV of every branch, a
 * cashier shift opened with a float, orders taken through the day and paid by cash (with change), card
 * (R$ 5 of tip on table service), PIX or half cash half card, then delivered, and the shift closed
 * with its count (one short of cash, with a note). Everything goes through the services, stamped in the
 * past with their `at` option; today is left alone (no open shift, no open order).
 */
export async function seedDemoSales(s: DemoSalesServices, demo: DemoSeedContext) {
  const t = demo.tenant.db;
  const row = await s.tenants.findById(demo.tenant.id);
  if (!row) throw new Error('demo sales: the demo tenant is gone');
  const { id, slug, name, isActive, plan, businessType, timezone } = row;
  const tenant: TenantRef = { id, slug, name, isActive, plan, businessType, timezone, db: t };

  async function ctxOf(email: string): Promise<TenantCtx> {
    const account = await s.users.findByEmail(email);
    const member = account && (await s.users.findMember(t, account.id));
    if (!account || !member) throw new Error(`demo sales: ${email} is not a member of the demo tenant (the users seed runs first)`);
    return {
      tenantId: tenant.id,
      db: t,
      tenant,
      user: { id: account.id, email: account.email, name: account.name, isSuperadmin: account.isSuperadmin, sessionVersion: account.sessionVersion },
      role: member.role,
      branchScope: scopeOf(member.role, member.assignedBranchIds, member.assignedPdvIds),
    };
  }

  const branches = (await s.branches.list(t, { all: true }, { limit: 100 })).data;
  const pdvs = await s.branches.listPdvs(t);
  const operators = new Map<string, TenantCtx>();
  for (const b of branches) operators.set(b._id, await ctxOf(b.isHQ ? HQ_OPERATOR : BRANCH_OPERATOR));

  // Dishes without options, sold by the unit: mains and starters, and drinks and desserts.
  const items = (await s.menu.listItems(t, { isAvailable: true, isActive: true })).filter((i) => i.unit === 'un' && i.modifierGroupIds.length === 0);
  const dishes: Item[] = items.filter((i) => i.price >= 2000);
  const sides: Item[] = items.filter((i) => i.price < 2000);
  if (!dishes.length || !sides.length) throw new Error('demo sales: the demo menu has no plain dishes or drinks (the menu seed runs first)');

  const rand = random(11);
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  const today = localDate(demo.clock.now(), tenant.timezone);
  const at = (day: string, minutes: number) => new Date(startOfLocalDay(day, tenant.timezone).getTime() + minutes * 60_000);

  let orderCount = 0;
  for (let back = DEMO_SALES_DAYS; back >= 1; back--) {
    const day = addDays(today, -back);
    const weekend = [5, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay()); // Friday, Saturday

    // The day's plan: per PDV its shift hours and orders; the orders are then taken in time order.
    const shifts: Shift[] = [];
    const planned: Planned[] = [];
    for (const pdv of pdvs.filter((x) => x.active)) {
      const ctx = operators.get(pdv.branch);
      if (!ctx) continue;
      const table = pdv.serviceMode === 'mesa';
      const [opens, closes] = table ? [11 * 60 + 30, 23 * 60 + 30] : [10 * 60 + 30, 16 * 60 + 30];
      // The HQ's tables are the bigger parties.
      const party = branches.find((b) => b._id === pdv.branch)?.isHQ ? 4 : 2;
      const float = table ? 20000 : 15000;
      const opened = await s.shifts.open(ctx, pdv.branch, { pdvId: pdv._id, userId: ctx.user.id, openingFloat: float }, { at: at(day, opens) });
      const shift: Shift = { pdv, ctx, id: opened._id, float, closesAt: at(day, closes), took: {} };
      shifts.push(shift);
      const n = 2 + (weekend ? 1 : 0);
      // Taken from 20 minutes after the opening until the last table has time to eat and pay before the close.
      const first = opens + 20;
      const span = closes - (table ? 75 : 20) - first;
      for (let i = 0; i < n; i++) {
        const minute = first + Math.floor((span * (i + rand() * 0.9)) / n);
        const lines = table
          ? [
              { menuItem: pick(dishes)._id, quantity: 1 + Math.floor(rand() * party) },
              { menuItem: pick(sides)._id, quantity: 1 + Math.floor(rand() * 4) },
              ...(rand() < 0.4 ? [{ menuItem: pick(sides)._id, quantity: 1 }] : []),
            ]
          : [{ menuItem: pick(dishes)._id, quantity: 1 }, ...(rand() < 0.7 ? [{ menuItem: pick(sides)._id, quantity: 1 + Math.floor(rand() * 2) }] : [])];
        planned.push({ shift, at: at(day, minute), lines, dineIn: table });
      }
    }
    planned.sort((a, b) => a.at.getTime() - b.at.getTime());

    const taken = new Map<string, number>();
    for (const o of planned) {
      const { ctx, pdv } = o.shift;
      const order = await s.orders.insert(tenant, ctx, { orderType: o.dineIn ? 'dine_in' : 'takeout', pdv: pdv._id, items: o.lines }, { at: o.at });
      // The methods turn over per branch: every branch has cash, card and PIX every day (4 orders or more);
      // every other day a bill is shared between cash and card.
      const nth = taken.get(pdv.branch) ?? 0;
      taken.set(pdv.branch, nth + 1);
      const kind = (nth + back) % 4;
      const tenders: Tender[] =
        kind === 0
          ? [{ method: 'cash', amount: Math.ceil(order.total / 1000) * 1000 }] // change given back
          : kind === 1
            ? [{ method: 'credit_card', tip: o.dineIn ? 500 : 0 }]
            : kind === 2
              ? [{ method: 'pix' }]
              : back % 2
                ? [{ method: 'debit_card' }]
                : [{ method: 'cash', amount: Math.floor(order.total / 2) }, { method: 'credit_card' }];
      let paidAt = o.at.getTime() + (o.dineIn ? 45 : 5) * 60_000;
      for (const tender of tenders) {
        const paid = await s.payments.processPayment(ctx, order.id, { ...tender, gateway: 'mock' }, { at: new Date(paidAt) });
        o.shift.took[tender.method] = (o.shift.took[tender.method] ?? 0) + paid.amount + paid.tip;
        paidAt += 60_000;
      }
      await s.orders.setStatus(ctx, order.id, 'delivered', { at: new Date(paidAt) });
      orderCount++;
    }

    // One drawer a week comes out R$ 2,50 short: the one that took the most cash that day.
    const shortOne = back === 3 && shifts.length ? shifts.reduce((a, b) => ((b.took.cash ?? 0) > (a.took.cash ?? 0) ? b : a)) : null;
    for (const shift of shifts) {
      const short = shift === shortOne ? 250 : 0;
      const counted = { ...shift.took, cash: shift.float + (shift.took.cash ?? 0) - short };
      await s.shifts.close(shift.ctx, shift.pdv.branch, shift.id, { counted, ...(short ? { notes: 'Faltaram R$ 2,50 no troco' } : {}) }, { at: shift.closesAt });
    }
  }
  return { days: DEMO_SALES_DAYS, orders: orderCount };
}
