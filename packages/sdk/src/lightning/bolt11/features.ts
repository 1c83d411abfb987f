// Feature bits as a list of bit numbers (how Ferry and LND's REST answers speak of them) and back to the
// named form the bolt11 package reads and writes. Our own code because bolt11 offers only the named form.
import type { TagData } from 'bolt11';

export type PackageFeatureBits = Extract<TagData, { word_length: number }>;

// bolt11's names for bits 0 to 19, two bits (required, supported) each; higher bits are its `extra_bits`.
const NAMES = [
  'option_data_loss_protect',
  'initial_routing_sync',
  'option_upfront_shutdown_script',
  'gossip_queries',
  'var_onion_optin',
  'gossip_queries_ex',
  'option_static_remotekey',
  'payment_secret',
  'basic_mpp',
  'option_support_large_channel',
] as const;
const EXTRA_START = NAMES.length * 2;

export function featureBitsFromPackage(features: PackageFeatureBits): number[] {
  const bits: number[] = [];
  NAMES.forEach((name, i) => {
    if (features[name]?.required === true) bits.push(2 * i);
    if (features[name]?.supported === true) bits.push(2 * i + 1);
  });
  const extra = features.extra_bits;
  extra?.bits.forEach((set, k) => {
    if (set) bits.push(extra.start_bit + k);
  });
  return bits;
}

export function featureBitsToPackage(bits: number[]): PackageFeatureBits {
  const features: PackageFeatureBits = { word_length: Math.floor(Math.max(...bits) / 5) + 1 };
  const extra: boolean[] = [];
  for (const bit of bits) {
    if (bit >= EXTRA_START) {
      extra[bit - EXTRA_START] = true;
      continue;
    }
    const feature = (features[NAMES[bit >> 1]] ??= {});
    if (bit % 2 === 0) feature.required = true;
    else feature.supported = true;
  }
  if (extra.length > 0) features.extra_bits = { start_bit: EXTRA_START, bits: Array.from(extra, (set) => set === true) };
  return features;
}
