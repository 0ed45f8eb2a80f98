// VRAM integrity (gpu/integrity.go): memtest-style fill and verify kernels
// over one chunk of device memory (a storage buffer of vec4<u32>) per
// dispatch. Every kernel walks its chunk grid-stride: workgroup g of
// c.groups (laid out over a 2-D dispatch when there are more than fit in one
// dimension) starts at element g*256 + local index and steps by
// c.groups*256; the host sizes c.groups so each invocation handles a few
// elements.
//
// All checking happens here. verify counts mismatching words per chunk and
// records up to MAX_RECORDS of them (chunk, word, expected, actual: the bad
// words of the first bad element each invocation saw) in the status buffer.
// It also counts the elements it checked, so the host can prove every
// element was verified. Only the status buffer is read back.
//
// expect4() must stay in step with integrityWord in gpu/integrity_patterns.go,
// which the host uses to check the expected value of every recorded error.

struct Chunk {
    id: u32,     // chunk number, 0-based
    n: u32,      // vec4 elements in the chunk
    groups: u32, // workgroups that take part; extra ones in the 2-D grid exit
    _pad: u32,
}

struct Step {
    pattern: u32,    // PAT_*
    seed: u32,       // per pass: walking offset or random seed
    invert: u32,     // XORed into every expected word (0 or 0xffffffff)
    descending: u32, // 1: verify walks the chunk from its top down
    rewrite: u32,    // 1: verify writes the inverse of the expected value back
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

const WG: u32 = 256u;

const PAT_ADDRESS: u32 = 0u;
const PAT_WALK: u32 = 1u;
const PAT_CHECKER: u32 = 2u;
const PAT_RANDOM: u32 = 3u;

// Status buffer layout, in u32 words (parseStatus in gpu/integrity_check.go reads it):
//   [0]                      records claimed (may exceed MAX_RECORDS)
//   [RECORDS + 4r .. +4)     record r: chunk, word, expected, actual
//   [COUNTS + c*PER_CHUNK]   mismatching words in chunk c
//   [.. + 1 + k]             elements of chunk c checked, shard k of SHARDS
const MAX_RECORDS: u32 = 16u;
const RECORDS: u32 = 4u;
const COUNTS: u32 = RECORDS + 4u * MAX_RECORDS;
const SHARDS: u32 = 32u;
const PER_CHUNK: u32 = 1u + SHARDS;

@group(0) @binding(0) var<uniform> c: Chunk;
@group(0) @binding(1) var<uniform> s: Step;
@group(0) @binding(2) var<storage, read_write> mem: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> st: array<atomic<u32>>;
// faults[0].x is the fault count; faults[1 + f] is (chunk, word, xor mask, 0).
@group(0) @binding(4) var<storage, read> faults: array<vec4<u32>>;

var<workgroup> wg_checked: atomic<u32>;

// group_index flattens the 2-D workgroup id.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// lowbias32 is Chris Wellons' 32-bit integer hash: a bijection with good
// avalanche for six cheap operations.
fn lowbias32(v: u32) -> u32 {
    var x = v;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

// chunk_key is what the step's pattern mixes into every word of this chunk.
fn chunk_key() -> u32 {
    switch s.pattern {
        case PAT_ADDRESS: {
            return c.id * 0x9E3779B1u;
        }
        case PAT_RANDOM: {
            return lowbias32(s.seed ^ lowbias32(c.id));
        }
        default: {
            return s.seed;
        }
    }
}

// lowbias32v is lowbias32 on each component.
fn lowbias32v(v: vec4<u32>) -> vec4<u32> {
    var x = v;
    x ^= x >> vec4<u32>(16u);
    x *= 0x7feb352du;
    x ^= x >> vec4<u32>(15u);
    x *= 0x846ca68bu;
    x ^= x >> vec4<u32>(16u);
    return x;
}

// expect4 is the expected vec4 element i of the chunk: words w = 4i .. 4i+3
// of the step's pattern. It switches on the (uniform) pattern once per
// element, not per word.
fn expect4(i: u32, key: u32) -> vec4<u32> {
    let w = vec4<u32>(i * 4u) + vec4<u32>(0u, 1u, 2u, 3u);
    var v: vec4<u32>;
    switch s.pattern {
        case PAT_ADDRESS: {
            v = w ^ vec4<u32>(key);
        }
        case PAT_WALK: {
            v = vec4<u32>(1u) << ((w + vec4<u32>(key)) & vec4<u32>(31u));
        }
        case PAT_CHECKER: {
            // 0x55555555 in even words, 0xAAAAAAAA in odd ones; 4i is even.
            v = vec4<u32>(0x55555555u, 0xAAAAAAAAu, 0x55555555u, 0xAAAAAAAAu);
        }
        default: {
            v = lowbias32v(w + vec4<u32>(key));
        }
    }
    return v ^ vec4<u32>(s.invert);
}

// record stores one mismatch in the next free record slot, if any is left.
fn record(w: u32, want: u32, got: u32) {
    if (atomicLoad(&st[0]) >= MAX_RECORDS) {
        return;
    }
    let r = atomicAdd(&st[0], 1u);
    if (r < MAX_RECORDS) {
        let b = RECORDS + 4u * r;
        atomicStore(&st[b], c.id);
        atomicStore(&st[b + 1u], w);
        atomicStore(&st[b + 2u], want);
        atomicStore(&st[b + 3u], got);
    }
}

// record_element records the words of element i that differ.
fn record_element(i: u32, want: vec4<u32>, got: vec4<u32>) {
    for (var k = 0u; k < 4u; k++) {
        if (got[k] != want[k]) {
            record(i * 4u + k, want[k], got[k]);
        }
    }
}

// element is the chunk element the j-th step of a walk visits: j itself,
// or counted from the top when the step is descending.
fn element(j: u32) -> u32 {
    return select(j, c.n - 1u - j, s.descending != 0u);
}

// fill: every element of the chunk gets its expected value. Writes 16 bytes
// per element.
@compute @workgroup_size(256)
fn fill(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= c.groups) {
        return;
    }
    let key = chunk_key();
    let stride = c.groups * WG;
    for (var i = g * WG + lid; i < c.n; i += stride) {
        mem[i] = expect4(i, key);
    }
}

// verify: compare every element with its expected value (from the top down
// when s.descending is set), count mismatching words and, with s.rewrite,
// write the inverse of the expected value back. Reads 16 bytes per element,
// and writes 16 more with s.rewrite. The loop has no branch on the data: it
// counts mismatches arithmetically and keeps the first bad element it saw,
// so the compiler can keep loads in flight back to back; only after the
// loop does an invocation that saw a mismatch add its count to the chunk's
// error counter and record the words of its first bad element. Per
// workgroup, the elements checked go to one shard of the chunk's checked
// counter.
@compute @workgroup_size(256)
fn verify(@builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= c.groups) {
        return;
    }
    // WGSL zero-initialises workgroup memory, but on arm64 lavapipe (Mesa
    // 22.3 and 26.1, run under qemu-user) the counter did not start at zero
    // (the chunks' checked counts came out tens to thousands of times too
    // high), so the verify step clears it itself.
    if (lid == 0u) {
        atomicStore(&wg_checked, 0u);
    }
    workgroupBarrier();
    let key = chunk_key();
    let stride = c.groups * WG;
    var checked = 0u;
    var bad = 0u;
    var bad_i = 0u;
    var bad_got = vec4<u32>(0u);
    for (var j = g * WG + lid; j < c.n; j += stride) {
        let i = element(j);
        let want = expect4(i, key);
        let got = mem[i];
        let nb = dot(vec4<u32>(got != want), vec4<u32>(1u));
        let first = (nb != 0u) & (bad == 0u);
        bad_i = select(bad_i, i, first);
        bad_got = select(bad_got, got, first);
        bad += nb;
        if (s.rewrite != 0u) {
            mem[i] = ~want;
        }
        checked += 1u;
    }
    let base = COUNTS + c.id * PER_CHUNK;
    if (bad != 0u) {
        atomicAdd(&st[base], bad);
        record_element(bad_i, expect4(bad_i, key), bad_got);
    }
    atomicAdd(&wg_checked, checked);
    workgroupBarrier();
    if (lid == 0u) {
        atomicAdd(&st[base + 1u + g % SHARDS], atomicLoad(&wg_checked));
    }
}

// corrupt flips the chosen bits of the chosen words of this chunk (tests
// only: the fault-injection hook).
@compute @workgroup_size(64)
fn corrupt(@builtin(local_invocation_index) lid: u32) {
    let count = faults[0].x;
    for (var f = lid; f < count; f += 64u) {
        let e = faults[f + 1u];
        if (e.x == c.id && e.y / 4u < c.n) {
            mem[e.y / 4u][e.y % 4u] ^= e.z;
        }
    }
}
