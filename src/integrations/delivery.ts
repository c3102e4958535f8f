/**
 * What the three delivery platforms (provider_a like iFood, provider_b like Rappi, provider_c like Uber
 * Eats) share: the credentials a tenant gives, the client every provider folder implements, and the
 * normalised order each provider's payload is read into. Each provider's own protocol (paths, auth,
 * signatures, body shapes) stays in its folder (`provider-a/`, `provider-b/`, `provider-c/`).
 */

/** A tenant's credentials at a platform (spec 2, MarketplaceIntegration.credentials). */
export interface DeliveryCredentials {
  clientId: string;
  clientSecret: string;
  merchantId: string;
}

/** A platform's OAuth access token (client credentials); the caller caches it (encrypted) and renews it before `expiresAt`. */
export interface ProviderToken {
  accessToken: string;
  expiresAt: Date;
}

export type DeliveryProviderName = 'provider_a' | 'provider_b' | 'provider_c';

/** Internal order statuses pushed to the platforms (spec 4.14's table). */
export type PushableStatus = 'confirmed' | 'preparing' | 'ready' | 'delivered' | 'cancelled';

/** Spec 4.14: internal status -> each platform's status; null = unsupported (recorded as skipped). */
export const STATUS_MAP: Record<DeliveryProviderName, Record<PushableStatus, string | null>> = {
  provider_a: { confirmed: 'CONFIRMED', preparing: 'IN_PREPARATION', ready: 'READY_TO_PICKUP', delivered: 'CONCLUDED', cancelled: 'CANCELLED' },
  provider_b: { confirmed: 'TAKEN', preparing: 'COOKING', ready: 'READY_TO_PICK', delivered: 'DELIVERED', cancelled: 'REJECTED' },
  provider_c: { confirmed: 'accept_pos_order', preparing: null, ready: null, delivered: null, cancelled: 'cancel' },
};

/** An option (modifier) chosen on a line, as the platform sent it. */
export interface NormalizedOption {
  /** The platform's code of the option (what the restaurant registered there), or null. */
  externalCode: string | null;
  name: string;
  quantity: number;
  /** Price of one unit of the option, in cents (0 when free). */
  unitPriceCents: number;
}

export interface NormalizedLine {
  /** The platform's code of the item: matched against the menu item's external code for this provider. */
  externalCode: string | null;
  name: string;
  /** Units (whole numbers for unit items). */
  quantity: number;
  /** Price of one unit without options, in cents. */
  unitPriceCents: number;
  /** The line's total as the platform computed it (unit price and options times quantity), in cents. */
  totalCents: number;
  options: NormalizedOption[];
  notes: string | null;
}

export interface NormalizedAddress {
  street: string | null;
  number: string | null;
  complement: string | null;
  neighborhood: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  reference: string | null;
  /** The whole address in one line, as the platform formats it (or built from the parts). */
  formatted: string;
}

/** A platform order read into one shape; every amount in integer cents of BRL. */
export interface NormalizedOrder {
  provider: DeliveryProviderName;
  /** The platform's order id: at most one internal order per (provider, externalId). */
  externalId: string;
  /** The short number the platform shows the courier and the customer, when it has one. */
  displayId: string | null;
  /** When the customer placed it (ISO 8601). */
  placedAt: string;
  /** `delivery` by the platform's courier or the restaurant's, `takeout` when the customer picks it up. */
  fulfilment: 'delivery' | 'takeout';
  customer: { name: string; phone: string | null; email: string | null; document: string | null };
  deliveryAddress: NormalizedAddress | null;
  items: NormalizedLine[];
  notes: string | null;
  totals: {
    itemsCents: number;
    discountCents: number;
    deliveryFeeCents: number;
    serviceFeeCents: number;
    tipCents: number;
    /** What the customer pays in all. */
    totalCents: number;
  };
  payment: {
    /** The platform's method as it names it (`CREDIT`, `cc`, `cash`...). */
    method: string;
    /** True when the platform collected the money online (the restaurant receives it from the platform). */
    prepaid: boolean;
  };
}

/** What a verified webhook says, read by the provider's `parseWebhook`. */
export interface DeliveryWebhookEvent {
  /** The event's own id (spec 4.14: provider_a `id`; provider_b `event.id` or `eventId`; provider_c `event_id`), or null. */
  eventId: string | null;
  /** The platform's event name (`PLACED`, `orders.notification`, `canceled_with_charge`...). */
  type: string;
  /** `new_order`: an order to create; `cancelled`: the platform cancelled one; `other`: nothing to do here. */
  kind: 'new_order' | 'cancelled' | 'other';
  /** The order it is about (its external id), when it names one. */
  externalOrderId: string | null;
  /** The whole order when the body carries it; null when only a reference came (the job fetches it with `getOrder`). */
  order: NormalizedOrder | null;
}

/** A menu item as pushed to a platform's catalog. */
export interface CatalogItem {
  /** The item's code at the platform (its external code for the provider, else the menu item id). */
  externalCode: string;
  name: string;
  description: string | null;
  priceCents: number;
  available: boolean;
  category: string | null;
}

/** What the service asks of a delivery platform; one implementation per provider folder (HTTP, against the simulator or live). */
export interface DeliveryClient {
  /** OAuth 2.0 client credentials. */
  token(credentials: DeliveryCredentials): Promise<ProviderToken>;
  /** The whole order by the platform's id (when a webhook carried only a reference). */
  getOrder(accessToken: string, merchantId: string, externalOrderId: string): Promise<NormalizedOrder>;
  /** Tells the platform the order's new status (already mapped with `STATUS_MAP`). */
  pushStatus(accessToken: string, merchantId: string, externalOrderId: string, providerStatus: string): Promise<void>;
  /** Creates or updates one item of the merchant's catalog at the platform. */
  syncItem(accessToken: string, merchantId: string, item: CatalogItem): Promise<void>;
}
