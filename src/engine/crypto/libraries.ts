// Crypto libraries recognised by their symbols and strings, and the algorithms their present functions
// implement. A library is reported when one of its markers is present; each function name found adds its
// algorithm (with parameter and mode where the name says). Version strings are read around the marker hit.

export interface LibrarySignature {
  /** Kebab-case id, e.g. 'openssl'. */
  id: string;
  name: string;
  /** Strings that identify the library itself. */
  markers: string[];
  /** Symbol or string → algorithm spec 'NAME[:parameter[:mode]]' in the catalog (algorithms.ts). */
  functions: Record<string, string>;
  /** Reads a version near a marker, e.g. 'OpenSSL 1.1.1k  25 Mar 2021'. */
  version?: RegExp;
}

export const LIBRARIES: LibrarySignature[] = [
  {
    id: 'openssl',
    name: 'OpenSSL',
    markers: ['OpenSSL 0.9.', 'OpenSSL 1.', 'OpenSSL 3.', 'OPENSSL_init_crypto', 'OpenSSL RSA method', 'OpenSSL PKCS#3 DH method', 'OpenSSL NIST SP 800-90A DRBG', 'libcrypto.so.', 'OPENSSL_1_1_0'],
    version: /OpenSSL (\d+\.\d+\.\d+[a-z]{0,2})/,
    functions: {
      'OpenSSL RSA method': 'RSA', 'OpenSSL PKCS#1 RSA': 'RSA', 'OpenSSL RSA-PSS method': 'RSA', 'OpenSSL PKCS#3 DH method': 'DH', 'OpenSSL X9.42 DH method': 'DH',
      'OpenSSL HMAC method': 'HMAC', 'OpenSSL CMAC method': 'CMAC', 'OpenSSL NIST SP 800-90A DRBG': 'DRBG', 'OpenSSL DSA method': 'DSA', 'OpenSSL ECDSA method': 'ECDSA', 'OpenSSL EC algorithm': 'ECC',
      AES_set_encrypt_key: 'AES', EVP_aes_128_cbc: 'AES:128:CBC', EVP_aes_256_cbc: 'AES:256:CBC', EVP_aes_128_gcm: 'AES:128:GCM', EVP_aes_256_gcm: 'AES:256:GCM', EVP_aes_128_ecb: 'AES:128:ECB',
      DES_set_key_checked: 'DES', DES_ecb_encrypt: 'DES', EVP_des_ede3_cbc: '3DES::CBC', EVP_des_cbc: 'DES::CBC', RC4_set_key: 'RC4', EVP_rc4: 'RC4', BF_set_key: 'Blowfish', Camellia_set_key: 'Camellia',
      EVP_chacha20_poly1305: 'ChaCha20-Poly1305', MD5_Init: 'MD5', EVP_md5: 'MD5', SHA1_Init: 'SHA-1', EVP_sha1: 'SHA-1', SHA256_Init: 'SHA-256', EVP_sha256: 'SHA-256', SHA512_Init: 'SHA-512', EVP_sha384: 'SHA-384', EVP_sha512: 'SHA-512', EVP_sha3_256: 'SHA-3:256',
      RSA_sign: 'RSA', RSA_public_encrypt: 'RSA', RSA_generate_key_ex: 'RSA', DSA_sign: 'DSA', DH_generate_key: 'DH', ECDSA_sign: 'ECDSA', ECDSA_do_verify: 'ECDSA', ECDH_compute_key: 'ECDH', EC_KEY_new_by_curve_name: 'ECC',
      X25519: 'X25519', ED25519_sign: 'Ed25519', PKCS5_PBKDF2_HMAC: 'PBKDF2', HMAC_Init_ex: 'HMAC',
    },
  },
  {
    id: 'boringssl',
    name: 'BoringSSL',
    markers: ['BoringSSL', 'boringssl', 'BORINGSSL_self_test'],
    functions: { EVP_aead_aes_128_gcm: 'AES:128:GCM', EVP_aead_aes_256_gcm: 'AES:256:GCM', EVP_aead_chacha20_poly1305: 'ChaCha20-Poly1305', X25519_keypair: 'X25519', ED25519_sign: 'Ed25519', KYBER_generate_key: 'ML-KEM:768', MLKEM768_generate_key: 'ML-KEM:768', MLDSA65_generate_key: 'ML-DSA:65' },
  },
  {
    id: 'mbedtls',
    name: 'Mbed TLS',
    markers: ['mbed TLS ', 'Mbed TLS ', 'mbedtls_ssl_init', 'mbedtls_version_get_string'],
    version: /[mM]bed TLS (\d+\.\d+\.\d+)/,
    functions: {
      mbedtls_aes_setkey_enc: 'AES', mbedtls_gcm_setkey: 'AES::GCM', mbedtls_ccm_setkey: 'AES::CCM', mbedtls_des_setkey_enc: 'DES', mbedtls_des3_set3key_enc: '3DES', mbedtls_arc4_setup: 'RC4',
      mbedtls_blowfish_setkey: 'Blowfish', mbedtls_camellia_setkey_enc: 'Camellia', mbedtls_chacha20_setkey: 'ChaCha20', mbedtls_chachapoly_setkey: 'ChaCha20-Poly1305', mbedtls_poly1305_starts: 'Poly1305',
      mbedtls_md5_starts: 'MD5', mbedtls_sha1_starts: 'SHA-1', mbedtls_sha256_starts: 'SHA-256', mbedtls_sha512_starts: 'SHA-512', mbedtls_sha3_starts: 'SHA-3', mbedtls_ripemd160_starts: 'RIPEMD-160',
      mbedtls_rsa_pkcs1_sign: 'RSA', mbedtls_rsa_pkcs1_verify: 'RSA', mbedtls_ecdsa_sign: 'ECDSA', mbedtls_ecdsa_verify: 'ECDSA', mbedtls_ecdh_compute_shared: 'ECDH', mbedtls_dhm_make_public: 'DH',
      mbedtls_pkcs5_pbkdf2_hmac: 'PBKDF2', mbedtls_hkdf: 'HKDF', mbedtls_ctr_drbg_seed: 'DRBG', mbedtls_lms_verify: 'LMS',
    },
  },
  {
    id: 'wolfssl',
    name: 'wolfSSL',
    markers: ['wolfSSL_Init', 'wolfSSL_CTX_new', 'wolfCrypt_Init', 'libwolfssl'],
    version: /wolfSSL (\d+\.\d+\.\d+)/,
    functions: {
      wc_AesSetKey: 'AES', wc_AesGcmSetKey: 'AES::GCM', wc_Des_SetKey: 'DES', wc_Des3_SetKey: '3DES', wc_Arc4SetKey: 'RC4', wc_Chacha_SetKey: 'ChaCha20', wc_Poly1305SetKey: 'Poly1305',
      wc_InitMd5: 'MD5', wc_InitSha: 'SHA-1', wc_InitSha256: 'SHA-256', wc_InitSha384: 'SHA-384', wc_InitSha512: 'SHA-512', wc_InitSha3_256: 'SHA-3:256',
      wc_RsaSSL_Sign: 'RSA', wc_RsaSSL_Verify: 'RSA', wc_RsaPublicEncrypt: 'RSA', wc_ecc_sign_hash: 'ECDSA', wc_ecc_verify_hash: 'ECDSA', wc_ecc_shared_secret: 'ECDH', wc_DhAgree: 'DH',
      wc_ed25519_sign_msg: 'Ed25519', wc_curve25519_shared_secret: 'X25519', wc_KyberKey_Init: 'ML-KEM', wc_MlKemKey_Init: 'ML-KEM', wc_dilithium_sign_msg: 'ML-DSA', wc_LmsKey_Verify: 'LMS', wc_XmssKey_Verify: 'XMSS',
    },
  },
  {
    id: 'libsodium',
    name: 'libsodium',
    markers: ['sodium_init', 'libsodium.so', 'sodium_version_string'],
    functions: {
      crypto_box_easy: 'X25519', crypto_scalarmult_curve25519: 'X25519', crypto_sign_ed25519_detached: 'Ed25519', crypto_sign_detached: 'Ed25519', crypto_secretbox_easy: 'Salsa20', crypto_secretbox_xsalsa20poly1305: 'Salsa20',
      crypto_aead_chacha20poly1305_ietf_encrypt: 'ChaCha20-Poly1305', crypto_aead_aes256gcm_encrypt: 'AES:256:GCM', crypto_generichash_blake2b: 'BLAKE2b', crypto_generichash: 'BLAKE2b', crypto_pwhash_argon2id: 'Argon2', crypto_hash_sha256: 'SHA-256', crypto_hash_sha512: 'SHA-512', crypto_onetimeauth_poly1305: 'Poly1305',
    },
  },
  {
    id: 'nettle',
    name: 'Nettle',
    markers: ['nettle_sha256_init', 'libnettle.so', 'nettle_version_major', 'libhogweed.so'],
    functions: {
      nettle_aes128_set_encrypt_key: 'AES:128', nettle_aes256_set_encrypt_key: 'AES:256', nettle_des_set_key: 'DES', nettle_des3_set_key: '3DES', nettle_arcfour_set_key: 'RC4', nettle_blowfish_set_key: 'Blowfish',
      nettle_camellia128_set_encrypt_key: 'Camellia:128', nettle_twofish_set_key: 'Twofish', nettle_chacha_poly1305_encrypt: 'ChaCha20-Poly1305', nettle_salsa20_crypt: 'Salsa20',
      nettle_md5_init: 'MD5', nettle_sha1_init: 'SHA-1', nettle_sha256_init: 'SHA-256', nettle_sha512_init: 'SHA-512', nettle_sha3_256_init: 'SHA-3:256', nettle_ripemd160_init: 'RIPEMD-160',
      nettle_rsa_sha256_sign: 'RSA', nettle_rsa_pkcs1_verify: 'RSA', nettle_dsa_sign: 'DSA', nettle_ecdsa_sign: 'ECDSA', nettle_ed25519_sha512_sign: 'Ed25519', nettle_curve25519_mul: 'X25519', nettle_pbkdf2_hmac_sha256: 'PBKDF2',
    },
  },
  {
    id: 'edk2-basecryptlib',
    name: 'EDK II BaseCryptLib',
    markers: ['CryptoPkg/Library/BaseCryptLib', 'BaseCryptLib', 'CryptoPkg/Library/TlsLib', 'CryptoPkg/Library/OpensslLib'],
    functions: {
      'BaseCryptLib/Pk/CryptRsaBasic': 'RSA', 'BaseCryptLib/Pk/CryptPkcs7Verify': 'RSA', 'BaseCryptLib/Pk/CryptAuthenticode': 'RSA', 'BaseCryptLib/Pk/CryptEc': 'ECDSA', 'BaseCryptLib/Pk/CryptDh': 'DH', 'BaseCryptLib/Pk/CryptX509': 'RSA',
      'BaseCryptLib/Hash/CryptSha256': 'SHA-256', 'BaseCryptLib/Hash/CryptSha512': 'SHA-512', 'BaseCryptLib/Hash/CryptSha1': 'SHA-1', 'BaseCryptLib/Hash/CryptMd5': 'MD5', 'BaseCryptLib/Cipher/CryptAes': 'AES', 'BaseCryptLib/Hmac/CryptHmac': 'HMAC',
      Pkcs7Verify: 'RSA', AuthenticodeVerify: 'RSA', RsaPkcs1Verify: 'RSA', Sha256HashAll: 'SHA-256', Sha1HashAll: 'SHA-1', Md5HashAll: 'MD5', AesCbcEncrypt: 'AES::CBC',
    },
  },
];

export interface AlgorithmSpec {
  algorithm: string;
  parameter?: string;
  mode?: string;
}

export function parseSpec(spec: string): AlgorithmSpec {
  const [algorithm, parameter, mode] = spec.split(':');
  return { algorithm: algorithm!, parameter: parameter || undefined, mode: mode || undefined };
}
