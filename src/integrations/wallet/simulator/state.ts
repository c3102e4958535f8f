/**
 * What the wallet simulator remembers: accounts (access token, public key, devices), card tokens,
 * payments, their refunds, and the answers of idempotent requests; and how a card token decides a payment.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import { decimalToCents } from '../../money.js';
import { refundLedger, type RefundablePayment } from '../../simulator/refunds.js';
import { send } from '../../simulator/server.js';

export const WALLET_SIM_ACCOUNT = {
  accessToken: 'TEST-sim-wallet-access-token-0001',
  publicKey: 'TEST-sim-wallet-public-key-0001',
  devices: ['SIMULATOR_POINT__SIM0001'],
} as const;

/** Fixed card tokens with a known result, reusable, valid for every account. */
export const WALLET_TEST_CARDS = {
  approved: 'sim_card_approved',
  insufficientFunds: 'sim_card_insufficient_funds',
  badSecurityCode: 'sim_card_bad_security_code',
  callForAuthorize: 'sim_card_call_for_authorize',
  declined: 'sim_card_declined',
} as const;

export type CardResult = { status: 'approved' | 'rejected'; statusDetail: string };
const APPROVED: CardResult = { status: 'approved', statusDetail: 'accredited' };
/** Outcome of a card token made by the client SDK, by cardholder name. */
const RESULTS: Record<string, CardResult> = {
  APRO: APPROVED,
  FUND: { status: 'rejected', statusDetail: 'cc_rejected_insufficient_amount' },
  SECU: { status: 'rejected', statusDetail: 'cc_rejected_bad_filled_security_code' },
  CALL: { status: 'rejected', statusDetail: 'cc_rejected_call_for_authorize' },
  OTHE: { status: 'rejected', statusDetail: 'cc_rejected_other_reason' },
};
const TEST_CARD_RESULTS: Record<string, CardResult> = {
  [WALLET_TEST_CARDS.approved]: RESULTS.APRO,
  [WALLET_TEST_CARDS.insufficientFunds]: RESULTS.FUND,
  [WALLET_TEST_CARDS.badSecurityCode]: RESULTS.SECU,
  [WALLET_TEST_CARDS.callForAuthorize]: RESULTS.CALL,
  [WALLET_TEST_CARDS.declined]: RESULTS.OTHE,
};

export const CARD_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;

export interface WalletSimAccount {
  accessToken: string;
  publicKey: string;
  devices: string[];
}

export interface Account extends WalletSimAccount {
  userId: number;
}

export interface CardToken {
  id: string;
  userId: number;
  holder: string;
  lastFour: string;
  firstSix: string;
  expiresAt: number;
  used: boolean;
}

export interface SimPayment {
  id: number;
  status: 'approved' | 'rejected';
  status_detail: string;
  transaction_amount: number;
  currency_id: 'BRL';
  description: string | null;
  installments: number;
  external_reference: string | null;
  payment_method_id: string;
  payment_type_id: 'credit_card';
  binary_mode: boolean;
  live_mode: false;
  payer: { email: string };
  date_created: string;
  date_approved: string | null;
  collector_id: number;
}

/** The payment as the API shows it (without the owner kept for access checks). */
export function publicPayment(p: SimPayment & { userId?: number }): SimPayment {
  const { userId: _userId, ...rest } = p;
  return rest;
}

/** The payment as refunds see it. */
export const refundable = (p: SimPayment): RefundablePayment => ({
  id: String(p.id),
  amountCents: decimalToCents(p.transaction_amount) ?? 0,
  approved: p.status === 'approved',
});

/** An error answer in the gateway's shape. */
export const replyError = (reply: FastifyReply, status: number, code: string, message: string) =>
  send(reply, status, { message, error: code, status, cause: [] });

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function walletState(clock: Clock, extraAccounts: WalletSimAccount[] = []) {
  const byToken = new Map<string, Account>();
  const byPublicKey = new Map<string, Account>();
  const cardTokens = new Map<string, CardToken>();
  const payments = new Map<number, SimPayment & { userId: number }>();
  const idempotency = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const refunds = refundLedger(clock);
  let nextUserId = 100_000_001;
  let nextPaymentId = 90_000_000_000 + Math.floor(Math.random() * 1_000_000);

  function addAccount(a: WalletSimAccount): WalletSimAccount {
    const account: Account = { ...a, devices: [...a.devices], userId: nextUserId++ };
    byToken.set(account.accessToken, account);
    byPublicKey.set(account.publicKey, account);
    return { accessToken: account.accessToken, publicKey: account.publicKey, devices: [...account.devices] };
  }
  addAccount({ ...WALLET_SIM_ACCOUNT, devices: [...WALLET_SIM_ACCOUNT.devices] });
  for (const a of extraAccounts) addAccount(a);

  return {
    byPublicKey,
    cardTokens,
    payments,
    idempotency,
    refunds,
    /** Cents the gateway holds: approved charges minus their refunds, every account. */
    captured: () => refunds.captured([...payments.values()].map(refundable)),
    nextPaymentId: () => nextPaymentId++,

    createAccount(opts: { devices?: string[] } = {}): WalletSimAccount {
      const suffix = randomBytes(12).toString('hex');
      return addAccount({
        accessToken: `TEST-sim-wallet-${suffix}`,
        publicKey: `TEST-sim-pk-${suffix}`,
        devices: opts.devices ?? [`SIMULATOR_POINT__${suffix.slice(0, 8).toUpperCase()}`],
      });
    },

    /** The account of the request's bearer access token. */
    accountOf(req: FastifyRequest): Account | undefined {
      const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      return m ? byToken.get(m[1]) : undefined;
    },

    /** The result of charging `token` for `account`, or why the token cannot be used. Uses up a single-use token. */
    resolveCard(token: string, account: Account): CardResult | string {
      const fixed = TEST_CARD_RESULTS[token];
      if (fixed) return fixed;
      const card = cardTokens.get(token);
      if (!card || card.userId !== account.userId) return 'Card Token not found';
      if (card.used) return 'Card Token already used';
      if (clock.now().getTime() >= card.expiresAt) return 'Card Token expired';
      card.used = true;
      return RESULTS[card.holder.trim().toUpperCase()] ?? APPROVED;
    },
  };
}
export type WalletState = ReturnType<typeof walletState>;
