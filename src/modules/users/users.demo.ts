import type { DemoSeedContext } from '../../platform/module.js';
import type { UsersService } from './users.service.js';

/** The demo tenant's admin and a waiter who works every PDV of the demo (the branches seed runs first). */
export async function seedDemoUsers(users: UsersService, pdvIds: string[], demo: DemoSeedContext) {
  for (const [role, email, name] of [
    ['admin', 'admin@demo.local', 'Ana Admin'],
    ['staff', 'staff@demo.local', 'Bruno Garçom'],
  ] as const) {
    const id = await users.createAccount({ email, name, password: demo.password });
    await users.addMember(demo.tenant.db, id, role, role === 'staff' ? { assignedPdvIds: pdvIds } : {});
    demo.addLogin({ who: `demo ${role}`, email, password: demo.password, tenant: demo.tenant.slug });
  }
}
