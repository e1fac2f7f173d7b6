// The two inner loops of Firmscope's byte searches, compiled to WebAssembly by scripts/build-wasm.mjs (clang,
// wasm32, -O3): V8 runs them about twice as fast as the same loops in JavaScript (bounds checks, and a table
// load per byte that the JIT does not keep in registers). Each loop only finds candidate positions; the caller
// (src/engine/wasm/search.ts) compares the patterns at them in JavaScript, on its own copy of the bytes.
// The tables are static: every instance of the module (one per scanner) has its own memory, and so its own.

typedef unsigned char u8;
typedef unsigned int u32;

// The pair scans (wasm/search.ts, PairSearch): for each byte pair some literal is anchored on, 1 when every
// literal anchored on it has four bytes from its anchor on and 2 otherwise; for each such pair a 256-bit set
// (eight words) of the bytes that may follow it; and a bit set of the hashes of the literals' first four bytes
// from their anchors (the quads), tested for the pairs marked 1.
static u8 pair_table_data[65536];
static u8 pair_le_data[65536];
static u32 next_byte_data[65536 * 8];
static u32 quad_filter_data[1 << 13];

// The crypto scanner (crypto/scanner.ts): bit `slot & 31` of word `slot >> 5` for the hash slot of each anchor.
static u32 anchor_filter_data[1 << 13];

u8 *pair_table(void) { return pair_table_data; }
u8 *pair_le(void) { return pair_le_data; }
u32 *next_byte(void) { return next_byte_data; }
u32 *quad_filter(void) { return quad_filter_data; }
u32 *anchor_filter(void) { return anchor_filter_data; }

static inline u32 load16(const u8 *p) {
  unsigned short v;
  __builtin_memcpy(&v, p, 2);
  return v;
}

static inline u32 load32(const u8 *p) {
  u32 v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

// The slot of a 4-byte little-endian window in the quad and anchor filters (a multiplicative hash, 18 bits).
static inline u32 slot_of(const u8 *p) {
  return (load32(p) * 0x9e3779b1u) >> 14;
}

// Whether position i of data[0 .. len) is a candidate: its pair is an anchor, its next byte (0 past the end) may
// follow it, and, where every literal on the pair has four bytes from its anchor, its four bytes hash to a quad
// (a position with fewer than four bytes left is left to the caller). i + 1 < len.
static inline int pair_at(const u8 *data, int len, int i) {
  u32 key = ((u32)data[i] << 8) | data[i + 1];
  u32 kind = pair_table_data[key];
  if (!kind) return 0;
  u32 after = i + 2 < len ? data[i + 2] : 0;
  if (!((next_byte_data[(key << 3) + (after >> 5)] >> (after & 31)) & 1)) return 0;
  if (kind != 1 || i + 4 > len) return 1;
  u32 slot = slot_of(data + i);
  return (quad_filter_data[slot >> 5] >> (slot & 31)) & 1;
}

// Positions i in [from, end) of data[0 .. len) whose pair data[i], data[i+1] is an anchor and whose next byte
// (0 past the end) may follow it. end < len. Writes at most cap positions to out and their number to *count;
// returns the position to go on from (end once the range is done).
// Eight positions at a time are looked up in pair_le (the pair table indexed by the pair as a little-endian
// 16-bit word, so each is one load) and only a block with a hit is gone through position by position.
int pair_candidates(const u8 *data, int len, int from, int end, u32 *out, int cap, int *count) {
  int n = 0;
  int i = from;
  for (; i + 8 <= end; i += 8) {
    const u8 *p = data + i;
    u32 any = pair_le_data[load16(p)] | pair_le_data[load16(p + 1)] | pair_le_data[load16(p + 2)] | pair_le_data[load16(p + 3)] |
              pair_le_data[load16(p + 4)] | pair_le_data[load16(p + 5)] | pair_le_data[load16(p + 6)] | pair_le_data[load16(p + 7)];
    if (!any) continue;
    for (int j = i; j < i + 8; j++) {
      if (!pair_at(data, len, j)) continue;
      out[n++] = (u32)j;
      if (n == cap) {
        *count = n;
        return j + 1;
      }
    }
  }
  for (; i < end; i++) {
    if (!pair_at(data, len, i)) continue;
    out[n++] = (u32)i;
    if (n == cap) {
      i++;
      break;
    }
  }
  *count = n;
  return i;
}

static inline u32 anchor_hit(const u8 *p) {
  u32 slot = slot_of(p);
  return (anchor_filter_data[slot >> 5] >> (slot & 31)) & 1;
}

// Positions i in [from, end) whose 4-byte little-endian window data[i .. i+3] hashes (multiplicative, 18 bits)
// to a slot set in the anchor filter. end + 3 <= the data's length. Same out, cap, count and return as above.
// Four windows at a time, each one load; a block with a hit is gone through window by window.
int anchor_candidates(const u8 *data, int from, int end, u32 *out, int cap, int *count) {
  int n = 0;
  int i = from;
  for (; i + 4 <= end; i += 4) {
    const u8 *p = data + i;
    if (!(anchor_hit(p) | anchor_hit(p + 1) | anchor_hit(p + 2) | anchor_hit(p + 3))) continue;
    for (int j = i; j < i + 4; j++) {
      if (!anchor_hit(data + j)) continue;
      out[n++] = (u32)j;
      if (n == cap) {
        *count = n;
        return j + 1;
      }
    }
  }
  for (; i < end; i++) {
    if (!anchor_hit(data + i)) continue;
    out[n++] = (u32)i;
    if (n == cap) {
      i++;
      break;
    }
  }
  *count = n;
  return i;
}
