// The two inner loops of Firmscope's byte searches, compiled to WebAssembly by scripts/build-wasm.mjs (clang,
// wasm32, -O3): V8 runs them about twice as fast as the same loops in JavaScript (bounds checks, and a table
// load per byte that the JIT does not keep in registers). Each loop only finds candidate positions; the caller
// (src/engine/wasm/search.ts) compares the patterns at them in JavaScript, on its own copy of the bytes.
// The tables are static: every instance of the module (one per scanner) has its own memory, and so its own.

typedef unsigned char u8;
typedef unsigned int u32;

// The chunk search (unpack/scanner.ts): 1 for each byte pair some magic is anchored on, and for each such pair a
// 256-bit set (eight words) of the bytes that may follow it.
static u8 pair_table_data[65536];
static u32 next_byte_data[65536 * 8];

// The crypto scanner (crypto/scanner.ts): bit `slot & 31` of word `slot >> 5` for the hash slot of each anchor.
static u32 anchor_filter_data[1 << 13];

u8 *pair_table(void) { return pair_table_data; }
u32 *next_byte(void) { return next_byte_data; }
u32 *anchor_filter(void) { return anchor_filter_data; }

// Positions i in [from, end) of data[0 .. len) whose pair data[i], data[i+1] is an anchor and whose next byte
// (0 past the end) may follow it. end < len. Writes at most cap positions to out and their number to *count;
// returns the position to go on from (end once the range is done).
int pair_candidates(const u8 *data, int len, int from, int end, u32 *out, int cap, int *count) {
  int n = 0;
  int i = from;
  if (from < end) {
    u32 prev = data[from];
    for (; i < end; i++) {
      u32 next = data[i + 1];
      u32 key = (prev << 8) | next;
      prev = next;
      if (!pair_table_data[key]) continue;
      u32 after = i + 2 < len ? data[i + 2] : 0;
      if (!(next_byte_data[(key << 3) + (after >> 5)] & (1u << (after & 31)))) continue;
      out[n++] = (u32)i;
      if (n == cap) {
        i++;
        break;
      }
    }
  }
  *count = n;
  return i;
}

// Positions i in [from, end) whose 4-byte little-endian window data[i .. i+3] hashes (multiplicative, 18 bits)
// to a slot set in the anchor filter. end + 3 <= the data's length. Same out, cap, count and return as above.
int anchor_candidates(const u8 *data, int from, int end, u32 *out, int cap, int *count) {
  int n = 0;
  int i = from;
  if (from < end) {
    u32 h = ((u32)data[from] | ((u32)data[from + 1] << 8) | ((u32)data[from + 2] << 16)) << 8;
    for (; i < end; i++) {
      h = (h >> 8) | ((u32)data[i + 3] << 24);
      u32 slot = (h * 0x9e3779b1u) >> 14;
      if (!(anchor_filter_data[slot >> 5] & (1u << (slot & 31)))) continue;
      out[n++] = (u32)i;
      if (n == cap) {
        i++;
        break;
      }
    }
  }
  *count = n;
  return i;
}
