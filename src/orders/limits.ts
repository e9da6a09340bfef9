// What the client accepts for an order before anything is sent: one bound for `order place --quantity` and
// for a plan's rows, openapi.yaml's bound. A real service may state none; its own refusal still comes back as
// exit 4.
export const MAX_QUANTITY = 1_000_000;
