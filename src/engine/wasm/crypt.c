// The rounds of MD5-crypt and SHA-crypt (weaknesses/crypt/crypt-rounds.ts) in WebAssembly, built by
// scripts/build-wasm.mjs (clang, wasm32, -O3). Each round hashes a buffer of at most a few hundred bytes: through
// node:crypto that is one call into the binding a round (SHA-512-crypt's 5,000 rounds ~20 ms, mostly the calls);
// here the whole loop runs in one call. MD5 (RFC 1321), SHA-256 and SHA-512 (FIPS 180-4) over a whole buffer, with
// their padding; the constants are the standard ones (the sines of 1..64 for MD5, the cube and square roots of
// the first primes for SHA-2). test/engine/weaknesses/crypt.test.ts compares the rounds with node:crypto's over
// inputs of every length up to a few hundred bytes (the padding's edges), and the crypt hashes with fixed vectors
// and openssl.

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

// The caller's buffers: the digest the rounds start from (and end with), the password bytes p, the salt bytes s.
#define MAX_P 1024
#define MAX_S 64
static u8 digest_data[64];
static u8 p_data[MAX_P];
static u8 s_data[MAX_S];
// One round's input: the digest or p, s, p, the digest or p (at most 2 * MAX_P + MAX_P + MAX_S bytes).
static u8 input[3 * MAX_P + MAX_S];

u8 *crypt_digest(void) { return digest_data; }
u8 *crypt_p(void) { return p_data; }
u8 *crypt_s(void) { return s_data; }

static const u32 K_MD5[64] = {
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
  0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
  0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
  0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
  0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
  0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
  0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
  0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391
};
static const u32 K_256[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};
static const u32 H_256[8] = {
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
};
static const u64 K_512[80] = {
  0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
  0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
  0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
  0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
  0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
  0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
  0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
  0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
  0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
  0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
  0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
  0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
  0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
  0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
  0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
  0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
  0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
  0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
  0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
  0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL
};
static const u64 H_512[8] = {
  0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
  0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL
};


static inline u32 rotl32(u32 x, int n) { return (x << n) | (x >> (32 - n)); }
static inline u32 rotr32(u32 x, int n) { return (x >> n) | (x << (32 - n)); }
static inline u64 rotr64(u64 x, int n) { return (x >> n) | (x << (64 - n)); }
static inline u32 le32(const u8 *b) { return (u32)b[0] | ((u32)b[1] << 8) | ((u32)b[2] << 16) | ((u32)b[3] << 24); }
static inline u32 be32(const u8 *b) { return ((u32)b[0] << 24) | ((u32)b[1] << 16) | ((u32)b[2] << 8) | (u32)b[3]; }
static inline u64 be64(const u8 *b) { return ((u64)be32(b) << 32) | be32(b + 4); }

static const u8 R_MD5[64] = {
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
};

static void md5_block(u32 *h, const u8 *block) {
  u32 w[16];
  for (int i = 0; i < 16; i++) w[i] = le32(block + 4 * i);
  u32 a = h[0], b = h[1], c = h[2], d = h[3];
  for (int i = 0; i < 64; i++) {
    u32 f;
    int g;
    if (i < 16) { f = (b & c) | (~b & d); g = i; }
    else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) & 15; }
    else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) & 15; }
    else { f = c ^ (b | ~d); g = (7 * i) & 15; }
    u32 t = d;
    d = c;
    c = b;
    b = b + rotl32(a + f + K_MD5[i] + w[g], R_MD5[i]);
    a = t;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d;
}

static void sha256_block(u32 *h, const u8 *block) {
  u32 w[64];
  for (int i = 0; i < 16; i++) w[i] = be32(block + 4 * i);
  for (int i = 16; i < 64; i++) {
    u32 s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
    u32 s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  u32 a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    u32 t1 = hh + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) + ((e & f) ^ (~e & g)) + K_256[i] + w[i];
    u32 t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

static void sha512_block(u64 *h, const u8 *block) {
  u64 w[80];
  for (int i = 0; i < 16; i++) w[i] = be64(block + 8 * i);
  for (int i = 16; i < 80; i++) {
    u64 s0 = rotr64(w[i - 15], 1) ^ rotr64(w[i - 15], 8) ^ (w[i - 15] >> 7);
    u64 s1 = rotr64(w[i - 2], 19) ^ rotr64(w[i - 2], 61) ^ (w[i - 2] >> 6);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  u64 a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 80; i++) {
    u64 t1 = hh + (rotr64(e, 14) ^ rotr64(e, 18) ^ rotr64(e, 41)) + ((e & f) ^ (~e & g)) + K_512[i] + w[i];
    u64 t2 = (rotr64(a, 28) ^ rotr64(a, 34) ^ rotr64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

// The padded tail of a message: its last partial block, 0x80, zeros and the bit length (little-endian for MD5,
// big-endian for SHA-2), in one or two blocks of `size` bytes (64, or 128 for SHA-512, whose length field is 16
// bytes). Returns the number of blocks.
static int pad_tail(u8 *tail, const u8 *rest, u32 rest_len, u32 total, int size, int little) {
  int length_bytes = size == 128 ? 16 : 8;
  for (u32 i = 0; i < rest_len; i++) tail[i] = rest[i];
  tail[rest_len] = 0x80;
  int blocks = rest_len + 1 + length_bytes <= (u32)size ? 1 : 2;
  int end = blocks * size;
  for (int i = rest_len + 1; i < end; i++) tail[i] = 0;
  u64 bits = (u64)total * 8;
  for (int i = 0; i < 8; i++) {
    u8 byte = (u8)(bits >> (8 * i));
    if (little) tail[end - 8 + i] = byte;
    else tail[end - 1 - i] = byte;
  }
  return blocks;
}

// MD5 and SHA-256: 32-bit words, 64-byte blocks, `words` words of state from `init`, written out little-endian
// (MD5) or big-endian (SHA-256).
static void digest32(void (*block)(u32 *, const u8 *), const u32 *init, int words, int little, const u8 *msg, u32 len, u8 *out) {
  u32 h[8];
  for (int i = 0; i < words; i++) h[i] = init[i];
  u32 full = len & ~63u;
  for (u32 at = 0; at < full; at += 64) block(h, msg + at);
  u8 tail[128];
  int blocks = pad_tail(tail, msg + full, len - full, len, 64, little);
  for (int i = 0; i < blocks; i++) block(h, tail + 64 * i);
  for (int i = 0; i < words; i++) for (int j = 0; j < 4; j++) out[4 * i + j] = (u8)(h[i] >> (little ? 8 * j : 24 - 8 * j));
}

static const u32 H_MD5[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

static void sha512(const u8 *msg, u32 len, u8 *out) {
  u64 h[8];
  for (int i = 0; i < 8; i++) h[i] = H_512[i];
  u32 full = len & ~127u;
  for (u32 at = 0; at < full; at += 128) sha512_block(h, msg + at);
  u8 tail[256];
  int blocks = pad_tail(tail, msg + full, len - full, len, 128, 0);
  for (int i = 0; i < blocks; i++) sha512_block(h, tail + 128 * i);
  for (int i = 0; i < 8; i++) for (int j = 0; j < 8; j++) out[8 * i + j] = (u8)(h[i] >> (56 - 8 * j));
}

// The digest of the first `len` bytes of the input buffer into digest_data: 0 MD5, 1 SHA-256, 2 SHA-512.
static void digest_of(int algorithm, u32 len) {
  if (algorithm == 0) digest32(md5_block, H_MD5, 4, 1, input, len, digest_data);
  else if (algorithm == 1) digest32(sha256_block, H_256, 8, 0, input, len, digest_data);
  else sha512(input, len, digest_data);
}

static u32 append(u32 at, const u8 *bytes, u32 len) {
  for (u32 i = 0; i < len; i++) input[at + i] = bytes[i];
  return at + len;
}

// The crypt rounds from the digest in digest_data (16, 32 or 64 bytes by algorithm) over p and s; the result is
// left in digest_data. Returns 0, or -1 when a length is out of bounds.
int crypt_rounds(int algorithm, u32 p_len, u32 s_len, u32 rounds) {
  static const u32 DIGEST_LEN[3] = {16, 32, 64};
  if (algorithm < 0 || algorithm > 2 || p_len > MAX_P || s_len > MAX_S) return -1;
  u32 d_len = DIGEST_LEN[algorithm];
  for (u32 i = 0; i < rounds; i++) {
    u32 n = (i & 1) ? append(0, p_data, p_len) : append(0, digest_data, d_len);
    if (i % 3) n = append(n, s_data, s_len);
    if (i % 7) n = append(n, p_data, p_len);
    n = (i & 1) ? append(n, digest_data, d_len) : append(n, p_data, p_len);
    digest_of(algorithm, n);
  }
  return 0;
}
