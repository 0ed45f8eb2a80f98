// Vector-ALU throughput, fp32 (gpu/alu.go): fma(x, a, b) on vec4<f32>.
//
// Every invocation runs 8 independent vec4<f32> chains. A loop trip advances
// each chain by 8 pairs of FMAs,
//
//     x = fma(fma(x, a, b1), c, b2)    with a = 2, c = 0.5, b1 = 6g, b2 = -2g,
//
// 16 FMAs per chain, 128 per trip. The constants come from the uniform, so the
// compiler cannot simplify the pair; their values make every product and sum
// exact (all values are integer multiples of the power of two g, far inside
// fp32's 24-bit significand), so a pair adds exactly g whether or not the
// hardware fuses, and the host knows every chain's final value in closed form
// (gpu/alu_ref.go). The output folds the bit patterns of all chains and lanes
// into one u32 with FNV-1a, which keeps every FMA live and changes when any
// one value is wrong.

struct Params {
    iters: u32,  // loop trips
    groups: u32, // workgroups that take part; surplus ones in the 2-D grid exit
    a: f32,      // 2.0
    c: f32,      // 0.5
    b1: f32,     // 6 g
    b2: f32,     // -2 g
    base: f32,   // the value every chain starts from before its offset
    grid: f32,   // g: every value is an integer multiple of it
}

const WG: u32 = 256u;
const FNV: u32 = 16777619u;        // FNV-1a prime
const FNV_BASIS: u32 = 2166136261u; // FNV-1a offset basis

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// pair is two dependent FMAs: x*2 + 6g, then *0.5 - 2g, i.e. x + g.
fn pair(x: vec4<f32>) -> vec4<f32> {
    return fma(fma(x, vec4<f32>(p.a), vec4<f32>(p.b1)), vec4<f32>(p.c), vec4<f32>(p.b2));
}

// start is chain c's first value in invocation i: base + g*offset with
// offset = (i mod 16)*32 + 4c + lane, in [0, 511].
fn start(i: u32, c: u32) -> vec4<f32> {
    let off = vec4<u32>(0u, 1u, 2u, 3u) + ((i & 15u) << 5u) + 4u * c;
    return vec4<f32>(p.base) + vec4<f32>(p.grid) * vec4<f32>(off);
}

// fold mixes the bit patterns of x's lanes into the FNV-1a hash h.
fn fold(h: u32, x: vec4<f32>) -> u32 {
    return fnv4(h, bitcast<vec4<u32>>(x));
}

// fnv4 mixes four words into the FNV-1a hash h, x first.
fn fnv4(h: u32, u: vec4<u32>) -> u32 {
    var v = (h ^ u.x) * FNV;
    v = (v ^ u.y) * FNV;
    v = (v ^ u.z) * FNV;
    return (v ^ u.w) * FNV;
}

@compute @workgroup_size(256)
fn alu_f32(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    if (g >= p.groups) {
        return;
    }
    let i = g * WG + lid;
    var x0 = start(i, 0u);
    var x1 = start(i, 1u);
    var x2 = start(i, 2u);
    var x3 = start(i, 3u);
    var x4 = start(i, 4u);
    var x5 = start(i, 5u);
    var x6 = start(i, 6u);
    var x7 = start(i, 7u);
    for (var k = 0u; k < p.iters; k++) {
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3); x4 = pair(x4); x5 = pair(x5); x6 = pair(x6); x7 = pair(x7);
    }
    out[i] = fold(fold(fold(fold(fold(fold(fold(fold(FNV_BASIS, x0), x1), x2), x3), x4), x5), x6), x7);
}
