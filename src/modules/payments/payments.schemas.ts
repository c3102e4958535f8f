import { Type } from '@sinclair/typebox';
import { PAYMENT_GATEWAYS, PAYMENT_METHODS } from '../../db/schema/orders.js';
import { PAYMENT_RECORD_STATUSES, REFUND_REASONS, type PaymentRow } from '../../db/schema/payments.js';
import { Body, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { CreateOrderBody } from '../orders/index.js';

export const ProcessPaymentBody = Body({
  method: StringEnum(PAYMENT_METHODS),
  gateway: StringEnum(['mock', 'gateway_a', 'pix_psp'] as const satisfies readonly (typeof PAYMENT_GATEWAYS)[number][], {
    description: 'mock: confirmed by hand; gateway_a: the card terminal; pix_psp: a dynamic PIX charge (method pix), confirmed by the PSP',
  }),
  gatewayATerminalSerial: Type.Optional(Type.String({ pattern: '^T-[A-Za-z0-9][A-Za-z0-9._-]{0,62}$' })),
  amount: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100_000_000,
      description: 'cents to apply to the bill; default: all that is due. Cash may exceed it (the change is in the answer); card and PIX may not',
    }),
  ),
  tip: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'cents of tip on top of the amount (not part of the bill)' })),
});

/** What every answer of process-payment adds to the spec's fields: the ledger entry and what is left to pay. */
const PaymentOutcome = {
  paymentId: Type.String(),
  amount: Type.Integer({ description: 'cents applied to the bill' }),
  tip: Type.Integer({ description: 'cents' }),
  change: Type.Integer({ description: 'cents of cash to give back' }),
  amountDue: Type.Integer({ description: 'cents still due on the order after this payment (while processing: if it is approved)' }),
};

export const ProcessPaymentResult = Type.Union([
  Type.Object({ status: Type.Literal('approved'), transactionId: Type.String(), ...PaymentOutcome }),
  Type.Object({
    status: Type.Literal('processing'),
    intentId: Type.String({ description: 'the terminal intent, or the PIX charge txid' }),
    message: Type.String(),
    pixPayload: Type.Optional(Type.String({ description: 'pix_psp: the BR Code "copia e cola" of the charge' })),
    pixQrCodeBase64: Type.Optional(Type.String({ description: 'pix_psp: its QR code, PNG base64' })),
    ...PaymentOutcome,
  }),
]);

export const WebhookAck = Type.Object({ received: Type.Boolean() });

export const CheckoutConfig = Type.Object({ walletPublicKey: Nullable(Type.String()) });

const { paymentMethod: _ignored, customerEmail: _email, ...orderFields } = CreateOrderBody.properties;
export const WalletPaymentBody = Body({
  ...orderFields,
  customerEmail: Type.String({ format: 'email', maxLength: 254, description: 'payer e-mail, required by the wallet gateway' }),
  cardToken: Type.String({ minLength: 8, maxLength: 200, description: 'single-use card token from the wallet client SDK' }),
  installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  paymentMethodId: Type.Optional(Type.String({ maxLength: 40, description: 'card brand id from the SDK, e.g. visa, master' })),
});

export const TestCredentialsBody = Body({
  accessToken: Type.String({ minLength: 8, maxLength: 500, pattern: '^[!-~]+$', description: 'printable ASCII: it is sent in an HTTP header' }),
  deviceId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const TestCredentialsResult = Type.Object({
  success: Type.Literal(true),
  deviceCount: Type.Integer(),
  device: Nullable(
    Type.Object({
      id: Type.String(),
      operatingMode: Nullable(Type.String()),
      posId: Nullable(Type.String()),
      storeId: Nullable(Type.String()),
      externalPosId: Nullable(Type.String()),
    }),
  ),
});

/** One entry of an order's payment ledger. */
export const Payment = Type.Object({
  _id: Type.String(),
  order: Type.String(),
  attempt: Type.Integer(),
  method: StringEnum(PAYMENT_METHODS),
  gateway: StringEnum(PAYMENT_GATEWAYS),
  amount: Type.Integer({ description: 'cents applied to the bill' }),
  tip: Type.Integer({ description: 'cents' }),
  change: Type.Integer({ description: 'cents of cash given back' }),
  status: StringEnum(PAYMENT_RECORD_STATUSES),
  intentId: Nullable(Type.String()),
  transactionId: Nullable(Type.String()),
  terminalSerial: Nullable(Type.String()),
  shift: Nullable(Type.String({ description: 'the cashier shift open at the order’s PDV when it was taken' })),
  createdBy: Nullable(Type.String()),
  createdAt: Timestamp,
  settledAt: Nullable(Timestamp),
  refundRequestedAt: Nullable(Timestamp, { description: 'a refund was decided; the payment stays approved until the gateway confirms it' }),
  refundReason: Nullable(StringEnum(REFUND_REASONS)),
  refundId: Nullable(Type.String()),
  refundedAt: Nullable(Timestamp),
});

export function toPaymentView(p: PaymentRow) {
  return {
    _id: p.id,
    order: p.orderId,
    attempt: p.attempt,
    method: p.method,
    gateway: p.gateway,
    amount: p.amount,
    tip: p.tip,
    change: p.tendered === null ? 0 : p.tendered - p.amount,
    status: p.status,
    intentId: p.intentId,
    transactionId: p.transactionId,
    terminalSerial: p.terminalSerial,
    shift: p.shiftId,
    createdBy: p.createdBy,
    createdAt: p.createdAt.toISOString(),
    settledAt: p.settledAt?.toISOString() ?? null,
    refundRequestedAt: p.refundRequestedAt?.toISOString() ?? null,
    refundReason: p.refundReason,
    refundId: p.refundId,
    refundedAt: p.refundedAt?.toISOString() ?? null,
  };
}
