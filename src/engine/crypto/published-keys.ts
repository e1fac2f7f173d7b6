// Private keys everyone has: test vectors published in the source of widely shipped software, compiled into its
// builds. Such a key in an image protects nothing a device could rely on, and calling it the device's secret (which
// "private key in the image" does) would be wrong: it is reported as the published key it is. Keyed by the public
// key's id (SHA-256 of its SPKI DER, key-facts.ts publicKeyId), so every encoding of the same key matches.

export interface PublishedKey {
  /** Where the key is published, as a reader would look it up. */
  source: string;
  /** What the software uses it for. */
  use: string;
}

const LINUX_TESTMGR: PublishedKey = {
  source: "the Linux kernel's crypto/testmgr.h (rsa_tv_template and the PKCS#1 padding tests)",
  use: "the kernel's crypto self-tests (CONFIG_CRYPTO_MANAGER), which encrypt, decrypt, sign and verify with it once at boot or when the algorithm is first used",
};

/**
 * The RSA private keys of Linux 6.1's crypto/testmgr.h (Debian bookworm's linux-source-6.1 6.1.192-3; the 2048-bit
 * ones found compiled into Debian's own 6.1.0-57 kernel): 512, 1024, 2048, 4096 and the second 2048-bit key.
 */
const PUBLISHED: ReadonlyMap<string, PublishedKey> = new Map([
  ['6ec627494102f16d422fc273a5db76f56ba21e0594c488d07a80f63a96b0ba32', LINUX_TESTMGR],
  ['133beed2835f76a3b2c777de82c978b3aa8f03b155f57e574027c7c0b6be6276', LINUX_TESTMGR],
  ['e756a60b85ec3f538a2708550ddc4f072ad045696172efd285c09a46c90accfe', LINUX_TESTMGR],
  ['4e4656b01870f564f160178a057c15806678c16c6c8fe7f6731501dfa07617a1', LINUX_TESTMGR],
  ['b6362349fb07b79f2f91889f6afac92b637787e246221087169ff7dbcd65dc98', LINUX_TESTMGR],
]);

/** The published key with this public-key id, if it is one. */
export function publishedKey(keyId: string | undefined): PublishedKey | undefined {
  return keyId === undefined ? undefined : PUBLISHED.get(keyId);
}
