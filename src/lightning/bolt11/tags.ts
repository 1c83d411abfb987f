// Tagged-field type numbers (the bech32 character in BOLT11's field list, as its 5-bit value).
export const TAG = {
  paymentHash: 1, // p
  routeHint: 3, // r
  features: 5, // 9
  expiry: 6, // x
  fallback: 9, // f
  description: 13, // d
  paymentSecret: 16, // s
  payeeNodeKey: 19, // n
  descriptionHash: 23, // h
  minFinalCltvExpiry: 24, // c
} as const;

export const DEFAULT_EXPIRY = 3600;
export const DEFAULT_MIN_FINAL_CLTV_EXPIRY = 18;
export const SIGNATURE_WORDS = 104; // 65 bytes: r, s and the recovery id
export const TIMESTAMP_WORDS = 7; // 35 bits

// Feature bits below 50 are assigned or reserved by BOLT 9; an even bit beyond them is one we cannot honour.
export const HIGHEST_KNOWN_FEATURE = 49;
