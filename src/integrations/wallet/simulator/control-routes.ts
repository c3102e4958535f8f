/**
 * The wallet simulator's control API (`/__sim...`): the default account, test cards, every account's
 * payments, new accounts. Registered through `controlApi`: this machine only, absent in production.
 */
import type { FastifyInstance } from 'fastify';
import { hide, objectBody, send } from '../../simulator/server.js';
import { publicPayment, replyError, WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS, type WalletState } from './state.js';

export function controlRoutes(ctl: FastifyInstance, { state }: { state: WalletState }) {
  ctl.get('/__sim', hide, async (_req, reply) =>
    send(reply, 200, {
      simulator: 'wallet',
      account: WALLET_SIM_ACCOUNT,
      testCards: WALLET_TEST_CARDS,
      cardholderNames: { APRO: 'approved', FUND: 'insufficient funds', SECU: 'bad security code', CALL: 'call for authorize', OTHE: 'declined' },
      payments: state.payments.size,
      refunds: state.refunds.list().length,
      capturedCents: state.captured(),
      control: ['POST __sim/accounts { devices?: string[] }', 'GET  __sim/payments', 'GET  __sim/refunds'],
    }),
  );

  ctl.post('/__sim/accounts', hide, async (req, reply) => {
    const devices = objectBody(req).devices;
    if (devices !== undefined && (!Array.isArray(devices) || !devices.every((d) => typeof d === 'string' && d.length > 0 && d.length <= 100))) {
      return replyError(reply, 400, 'bad_request', 'devices must be a list of device ids');
    }
    return send(reply, 201, state.createAccount({ devices: devices as string[] | undefined }));
  });

  ctl.get('/__sim/payments', hide, async (_req, reply) => send(reply, 200, [...state.payments.values()].reverse().map(publicPayment)));

  ctl.get('/__sim/refunds', hide, async (_req, reply) => send(reply, 200, state.refunds.list().reverse()));
}
