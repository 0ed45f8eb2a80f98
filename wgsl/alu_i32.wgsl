// Vector-ALU throughput, int32 (gpu/alu.go): a*b + c on vec4<i32>.
//
// Every invocation runs 4 independent chains, each a pair (x, y) of
// vec4<i32> advanced by rounds of two dependent multiply-adds,
//
//     x = x*a + y;  y = y*a + x;
//
// with the odd multiplier a from the uniform. WGSL integer arithmetic wraps
// modulo 2^32, so a round is the linear map [[a, 1], [a, a+1]] on (x, y),
// invertible because its determinant a^2 is odd: no chain can fall into a
// fixed point, and the host computes the final values in closed form from
// the map's power (gpu/alu_ref.go). Coupling x and y keeps the compiler from
// folding a run of steps into one multiply-add. A loop trip runs 8 rounds:
// 16 multiply-adds per chain, 64 per trip. The output folds all values into
// one u32 with FNV-1a (chain by chain, x then y, lanes in order).

struct Params {
    iters: u32,  // loop trips
    groups: u32, // workgroups that take part; surplus ones in the 2-D grid exit
    a: i32,      // the multiplier (odd)
    seed: u32,   // start-value seed
}

const WG: u32 = 256u;
const FNV: u32 = 16777619u;        // FNV-1a prime
const FNV_BASIS: u32 = 2166136261u; // FNV-1a offset basis

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

struct Chain {
    x: vec4<i32>,
    y: vec4<i32>,
}

// advance runs one round: two dependent multiply-adds per lane.
fn advance(v: Chain) -> Chain {
    let a = vec4<i32>(p.a);
    let x = v.x * a + v.y;
    let y = v.y * a + x;
    return Chain(x, y);
}

// advance8 runs eight rounds.
fn advance8(v: Chain) -> Chain {
    return advance(advance(advance(advance(advance(advance(advance(advance(v))))))));
}

// start is chain c's first value in invocation i: a hash of i, c and the lane.
fn start(i: u32, c: u32) -> Chain {
    let x = vec4<u32>(i * 0x9E3779B1u + p.seed) + (vec4<u32>(0u, 1u, 2u, 3u) + 4u * c) * 0x85EBCA77u;
    let y = x * 0x27D4EB2Fu + 0x165667B1u;
    return Chain(bitcast<vec4<i32>>(x), bitcast<vec4<i32>>(y));
}

// fold mixes a chain's words into the FNV-1a hash h.
fn fold(h: u32, v: Chain) -> u32 {
    return fnv4(fnv4(h, bitcast<vec4<u32>>(v.x)), bitcast<vec4<u32>>(v.y));
}

// fnv4 mixes four words into the FNV-1a hash h, x first.
fn fnv4(h: u32, u: vec4<u32>) -> u32 {
    var v = (h ^ u.x) * FNV;
    v = (v ^ u.y) * FNV;
    v = (v ^ u.z) * FNV;
    return (v ^ u.w) * FNV;
}

@compute @workgroup_size(256)
fn alu_i32(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    if (g >= p.groups) {
        return;
    }
    let i = g * WG + lid;
    var c0 = start(i, 0u);
    var c1 = start(i, 1u);
    var c2 = start(i, 2u);
    var c3 = start(i, 3u);
    for (var k = 0u; k < p.iters; k++) {
        c0 = advance8(c0);
        c1 = advance8(c1);
        c2 = advance8(c2);
        c3 = advance8(c3);
    }
    out[i] = fold(fold(fold(fold(FNV_BASIS, c0), c1), c2), c3);
}
