// Vector-ALU throughput, packed 8-bit dot products (gpu/alu.go):
// dot4I8Packed and dot4U8Packed accumulated into 32 bits, the WGSL
// packed_4x8_integer_dot_product language feature (DP4A where the hardware
// has it). Needs a WGSL compiler that knows these built-ins.
//
// Every invocation runs 16 independent chains, each a pair (a, b) of 32-bit
// words advanced by rounds of two dependent dot-accumulates,
//
//     a = dot4(b, w) + a;  b = dot4(a, w) + b;
//
// with the packed weights w from the uniform. Each half of a round adds a
// function of the other word, so a round is invertible (a Feistel round): a
// chain never collapses into a fixed point, and the operands change every
// step, so nothing can be hoisted out of the loop. A loop trip runs 4 rounds:
// 8 dot products per chain, 128 per trip. Start values depend on the
// invocation index mod 64 only, so the host steps 64 x 16 chains to know
// every output (gpu/alu_ref.go). The output folds all words into one u32
// with FNV-1a (chain by chain, a then b).

struct Params {
    iters: u32,  // loop trips
    groups: u32, // workgroups that take part; surplus ones in the 2-D grid exit
    w: u32,      // four packed 8-bit weights
    seed: u32,   // start-value seed
}

const WG: u32 = 256u;
const FNV: u32 = 16777619u;        // FNV-1a prime
const FNV_BASIS: u32 = 2166136261u; // FNV-1a offset basis

// fold mixes a chain's two words into the FNV-1a hash h.
fn fold(h: u32, v: vec2<u32>) -> u32 {
    return (((h ^ v.x) * FNV) ^ v.y) * FNV;
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// Four rounds on a signed chain (a, b) kept as vec2<i32>.
fn rounds_i8(v: vec2<i32>) -> vec2<i32> {
    var a = v.x;
    var b = v.y;
    a = dot4I8Packed(bitcast<u32>(b), p.w) + a;
    b = dot4I8Packed(bitcast<u32>(a), p.w) + b;
    a = dot4I8Packed(bitcast<u32>(b), p.w) + a;
    b = dot4I8Packed(bitcast<u32>(a), p.w) + b;
    a = dot4I8Packed(bitcast<u32>(b), p.w) + a;
    b = dot4I8Packed(bitcast<u32>(a), p.w) + b;
    a = dot4I8Packed(bitcast<u32>(b), p.w) + a;
    b = dot4I8Packed(bitcast<u32>(a), p.w) + b;
    return vec2<i32>(a, b);
}

// Four rounds on an unsigned chain (a, b) kept as vec2<u32>.
fn rounds_u8(v: vec2<u32>) -> vec2<u32> {
    var a = v.x;
    var b = v.y;
    a = dot4U8Packed(b, p.w) + a;
    b = dot4U8Packed(a, p.w) + b;
    a = dot4U8Packed(b, p.w) + a;
    b = dot4U8Packed(a, p.w) + b;
    a = dot4U8Packed(b, p.w) + a;
    b = dot4U8Packed(a, p.w) + b;
    a = dot4U8Packed(b, p.w) + a;
    b = dot4U8Packed(a, p.w) + b;
    return vec2<u32>(a, b);
}

// start is chain c's first pair in an invocation of class s = index mod 64.
fn start(s: u32, c: u32) -> vec2<u32> {
    let a = s * 0x9E3779B1u + c * 0x85EBCA77u + p.seed;
    return vec2<u32>(a, a * 0x27D4EB2Fu + 0x165667B1u);
}

// index flattens the 2-D grid; it returns false for surplus workgroups.
fn index(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, i: ptr<function, u32>) -> bool {
    let g = wid.y * nwg.x + wid.x;
    *i = g * WG + lid;
    return g < p.groups;
}

@compute @workgroup_size(256)
fn alu_dot4_i8(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var i: u32;
    if (!index(wid, nwg, lid, &i)) {
        return;
    }
    let s = i & 63u;
    var v0 = bitcast<vec2<i32>>(start(s, 0u));
    var v1 = bitcast<vec2<i32>>(start(s, 1u));
    var v2 = bitcast<vec2<i32>>(start(s, 2u));
    var v3 = bitcast<vec2<i32>>(start(s, 3u));
    var v4 = bitcast<vec2<i32>>(start(s, 4u));
    var v5 = bitcast<vec2<i32>>(start(s, 5u));
    var v6 = bitcast<vec2<i32>>(start(s, 6u));
    var v7 = bitcast<vec2<i32>>(start(s, 7u));
    var v8 = bitcast<vec2<i32>>(start(s, 8u));
    var v9 = bitcast<vec2<i32>>(start(s, 9u));
    var v10 = bitcast<vec2<i32>>(start(s, 10u));
    var v11 = bitcast<vec2<i32>>(start(s, 11u));
    var v12 = bitcast<vec2<i32>>(start(s, 12u));
    var v13 = bitcast<vec2<i32>>(start(s, 13u));
    var v14 = bitcast<vec2<i32>>(start(s, 14u));
    var v15 = bitcast<vec2<i32>>(start(s, 15u));
    for (var k = 0u; k < p.iters; k++) {
        v0 = rounds_i8(v0); v1 = rounds_i8(v1); v2 = rounds_i8(v2); v3 = rounds_i8(v3);
        v4 = rounds_i8(v4); v5 = rounds_i8(v5); v6 = rounds_i8(v6); v7 = rounds_i8(v7);
        v8 = rounds_i8(v8); v9 = rounds_i8(v9); v10 = rounds_i8(v10); v11 = rounds_i8(v11);
        v12 = rounds_i8(v12); v13 = rounds_i8(v13); v14 = rounds_i8(v14); v15 = rounds_i8(v15);
    }
    var h = fold(FNV_BASIS, bitcast<vec2<u32>>(v0));
    h = fold(h, bitcast<vec2<u32>>(v1)); h = fold(h, bitcast<vec2<u32>>(v2)); h = fold(h, bitcast<vec2<u32>>(v3));
    h = fold(h, bitcast<vec2<u32>>(v4)); h = fold(h, bitcast<vec2<u32>>(v5)); h = fold(h, bitcast<vec2<u32>>(v6));
    h = fold(h, bitcast<vec2<u32>>(v7)); h = fold(h, bitcast<vec2<u32>>(v8)); h = fold(h, bitcast<vec2<u32>>(v9));
    h = fold(h, bitcast<vec2<u32>>(v10)); h = fold(h, bitcast<vec2<u32>>(v11)); h = fold(h, bitcast<vec2<u32>>(v12));
    h = fold(h, bitcast<vec2<u32>>(v13)); h = fold(h, bitcast<vec2<u32>>(v14)); h = fold(h, bitcast<vec2<u32>>(v15));
    out[i] = h;
}

@compute @workgroup_size(256)
fn alu_dot4_u8(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    var i: u32;
    if (!index(wid, nwg, lid, &i)) {
        return;
    }
    let s = i & 63u;
    var v0 = start(s, 0u);
    var v1 = start(s, 1u);
    var v2 = start(s, 2u);
    var v3 = start(s, 3u);
    var v4 = start(s, 4u);
    var v5 = start(s, 5u);
    var v6 = start(s, 6u);
    var v7 = start(s, 7u);
    var v8 = start(s, 8u);
    var v9 = start(s, 9u);
    var v10 = start(s, 10u);
    var v11 = start(s, 11u);
    var v12 = start(s, 12u);
    var v13 = start(s, 13u);
    var v14 = start(s, 14u);
    var v15 = start(s, 15u);
    for (var k = 0u; k < p.iters; k++) {
        v0 = rounds_u8(v0); v1 = rounds_u8(v1); v2 = rounds_u8(v2); v3 = rounds_u8(v3);
        v4 = rounds_u8(v4); v5 = rounds_u8(v5); v6 = rounds_u8(v6); v7 = rounds_u8(v7);
        v8 = rounds_u8(v8); v9 = rounds_u8(v9); v10 = rounds_u8(v10); v11 = rounds_u8(v11);
        v12 = rounds_u8(v12); v13 = rounds_u8(v13); v14 = rounds_u8(v14); v15 = rounds_u8(v15);
    }
    var h = fold(FNV_BASIS, v0);
    h = fold(h, v1); h = fold(h, v2); h = fold(h, v3); h = fold(h, v4); h = fold(h, v5); h = fold(h, v6); h = fold(h, v7);
    h = fold(h, v8); h = fold(h, v9); h = fold(h, v10); h = fold(h, v11); h = fold(h, v12); h = fold(h, v13); h = fold(h, v14);
    h = fold(h, v15);
    out[i] = h;
}
