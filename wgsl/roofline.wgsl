// Roofline sweep (gpu/roofline.go): a mixbench-style kernel whose arithmetic
// intensity is set by the uniform p.iters.
//
// Each invocation loads 4 vec4 elements of src, runs p.iters fused
// multiply-adds (fp32) or multiply-adds (int32) on every scalar of them, and
// stores them to dst: 4 bytes read and 4 written per scalar, 2 operations per
// (fused) multiply-add, so the intensity is p.iters / 4 operations per byte.
// Workgroup g owns the 1024 vec4 elements from g*1024; invocation lid handles
// g*1024 + lid + 256*j for j = 0..3, so the loads and stores of a workgroup
// are contiguous, and the 16 scalars of an invocation are 16 independent
// dependency chains. The loops run eight rounds (pairs, for fp32) to a trip
// while eight remain, as the ALU kernels do: a loop trip has a cost of its
// own, small on a GPU but not on a device that runs invocations as SIMD
// lanes of a CPU (lavapipe), where a trip of one round held the compute
// roof far below the ALU probe's rate of the same operation.
//
// The host knows every output exactly (gpu/roofline_ref.go):
//
//   - fp32: src holds k*g with k an integer in [-2^20, 2^20) and g a power of
//     two. A pair of FMAs x = fma(fma(x, 2, 6g), 0.5, -2g) adds exactly g
//     (every product is a scaling by a power of two and every sum is exact
//     far inside fp32's 24-bit significand), whether or not the hardware
//     fuses. p.iters FMAs run p.iters/2 pairs, then one fma(x, 2, 6g) when
//     p.iters is odd, so the output is (k + p.iters/2) g or 2(k + p.iters/2)g + 6g.
//   - int32: each vec4 is two chains (x, y) = (.xy, .zw) advanced by rounds
//     x = x*a + y; y = y*a + x (2 multiply-adds on vec2 per round, one per
//     scalar), wrapping modulo 2^32: the linear map [[a, 1], [a, a+1]], whose
//     power the host computes. Coupling x and y keeps the compiler from
//     folding rounds into fewer multiply-adds.
//
// The constants come from the uniform, so the compiler cannot simplify them.

struct Params {
    groups: u32, // workgroups that take part; surplus ones in the 2-D grid exit
    iters: u32,  // (fused) multiply-adds per scalar element
    hidden: u32, // roofline_f32_hidden only: uncounted FMA quads per scalar
    seed: u32,   // input pattern seed
    mult: i32,   // int32 multiplier (odd)
    grid: f32,   // g: every fp32 value is an integer multiple of it
    a: f32,      // 2.0
    c: f32,      // 0.5
    b1: f32,     // 6 g
    b2: f32,     // -2 g
    _pad0: u32,
    _pad1: u32,
}

const WG: u32 = 256u;
const BLOCK: u32 = 1024u; // vec4 elements per workgroup

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

// first is the index of the invocation's first element, or BLOCK * groups
// (past the end) for a surplus workgroup of the 2-D grid.
fn first(wid: vec3<u32>, nwg: vec3<u32>, lid: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * BLOCK + lid;
}

// in_use reports whether the workgroup takes part.
fn in_use(wid: vec3<u32>, nwg: vec3<u32>) -> bool {
    return wid.y * nwg.x + wid.x < p.groups;
}

// word is the input pattern of scalar index i before it becomes a value.
fn word(i: u32) -> u32 {
    return i * 0x9E3779B1u + p.seed;
}

// f32_value is the fp32 input at scalar index i: k*g with
// k = (word(i) mod 2^21) - 2^20.
fn f32_value(i: u32) -> f32 {
    return f32(i32(word(i) & 0x1FFFFFu) - 0x100000) * p.grid;
}

// roofline_fill_f32 fills dst with the fp32 input pattern.
@compute @workgroup_size(256)
fn roofline_fill_f32(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e0 = first(wid, nwg, lid);
    for (var j = 0u; j < 4u; j++) {
        let e = e0 + j * WG;
        let i = 4u * e;
        dst[e] = bitcast<vec4<u32>>(vec4<f32>(f32_value(i), f32_value(i + 1u), f32_value(i + 2u), f32_value(i + 3u)));
    }
}

// roofline_fill_i32 fills dst with the int32 input pattern, word(i).
@compute @workgroup_size(256)
fn roofline_fill_i32(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e0 = first(wid, nwg, lid);
    for (var j = 0u; j < 4u; j++) {
        let e = e0 + j * WG;
        let i = 4u * e;
        dst[e] = vec4<u32>(word(i), word(i + 1u), word(i + 2u), word(i + 3u));
    }
}

// pair is two dependent FMAs: x*2 + 6g, then *0.5 - 2g, i.e. x + g.
fn pair(x: vec4<f32>) -> vec4<f32> {
    return fma(fma(x, vec4<f32>(p.a), vec4<f32>(p.b1)), vec4<f32>(p.c), vec4<f32>(p.b2));
}

// unpair is two dependent FMAs: x*2 - 6g, then *0.5 + 2g, i.e. x - g.
fn unpair(x: vec4<f32>) -> vec4<f32> {
    return fma(fma(x, vec4<f32>(p.a), -vec4<f32>(p.b1)), vec4<f32>(p.c), -vec4<f32>(p.b2));
}

// sweep_f32 is the fp32 kernel, with hidden quads of uncounted FMAs (a pair
// and its inverse) after the counted ones: 0 in the probe's kernel, which
// the compiler then drops.
fn sweep_f32(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, hidden: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e = first(wid, nwg, lid);
    var x0 = bitcast<vec4<f32>>(src[e]);
    var x1 = bitcast<vec4<f32>>(src[e + WG]);
    var x2 = bitcast<vec4<f32>>(src[e + 2u * WG]);
    var x3 = bitcast<vec4<f32>>(src[e + 3u * WG]);
    // p.iters/2 pairs: eight to a trip while eight remain (as the ALU
    // kernel runs them), then one to a trip.
    var k = 1u;
    for (; k + 14u < p.iters; k += 16u) {
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
    }
    for (; k < p.iters; k += 2u) {
        x0 = pair(x0); x1 = pair(x1); x2 = pair(x2); x3 = pair(x3);
    }
    if ((p.iters & 1u) == 1u) {
        let a = vec4<f32>(p.a);
        let b = vec4<f32>(p.b1);
        x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
    }
    for (var h = 0u; h < hidden; h++) {
        x0 = unpair(pair(x0)); x1 = unpair(pair(x1)); x2 = unpair(pair(x2)); x3 = unpair(pair(x3));
    }
    dst[e] = bitcast<vec4<u32>>(x0);
    dst[e + WG] = bitcast<vec4<u32>>(x1);
    dst[e + 2u * WG] = bitcast<vec4<u32>>(x2);
    dst[e + 3u * WG] = bitcast<vec4<u32>>(x3);
}

// roofline_f32: p.iters FMAs per scalar, all counted.
@compute @workgroup_size(256)
fn roofline_f32(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    sweep_f32(wid, nwg, lid, 0u);
}

// roofline_f32_hidden is a degraded device for the tests: the same counted
// work plus p.hidden quads of FMAs per scalar that the host does not count
// and that leave the output unchanged. The probe never runs it.
@compute @workgroup_size(256)
fn roofline_f32_hidden(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    sweep_f32(wid, nwg, lid, p.hidden);
}

// roofline_f32_short: the same p.iters FMAs per scalar as roofline_f32, one
// to a loop trip, taking the two halves of a pair in turn (x*2 + 6g on even
// trips, x*0.5 - 2g on odd ones), so its output is roofline_f32's. A
// software adapter (lavapipe) runs it for the points of 2 to 15 FMAs
// (roofline_f32_one for 1): it runs invocations as the SIMD lanes of a CPU,
// where a branch is a mask, not a jump, and a loop tests its mask only at
// the end of a trip, so every loop body runs at least once. roofline_f32's
// eight-pair body (16 FMAs) and its one-pair body (2) would then run,
// masked off, at every point below them: 19 FMAs per scalar at the 1-FMA
// point, uncounted work that the CPU does between the point's loads and
// stores.
@compute @workgroup_size(256)
fn roofline_f32_short(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e = first(wid, nwg, lid);
    var x0 = bitcast<vec4<f32>>(src[e]);
    var x1 = bitcast<vec4<f32>>(src[e + WG]);
    var x2 = bitcast<vec4<f32>>(src[e + 2u * WG]);
    var x3 = bitcast<vec4<f32>>(src[e + 3u * WG]);
    for (var k = 0u; k < p.iters; k++) {
        let odd = (k & 1u) == 1u;
        let m = vec4<f32>(select(p.a, p.c, odd));
        let b = vec4<f32>(select(p.b1, p.b2, odd));
        x0 = fma(x0, m, b); x1 = fma(x1, m, b); x2 = fma(x2, m, b); x3 = fma(x3, m, b);
    }
    dst[e] = bitcast<vec4<u32>>(x0);
    dst[e + WG] = bitcast<vec4<u32>>(x1);
    dst[e + 2u * WG] = bitcast<vec4<u32>>(x2);
    dst[e + 3u * WG] = bitcast<vec4<u32>>(x3);
}

// roofline_f32_one: one FMA per scalar, fma(x, 2, 6g), with no loop:
// roofline_f32's output at p.iters = 1. A software adapter runs it for the
// 1-FMA point, whose bytes/s set the memory roof: there the host's cores
// run the loads, the stores and anything else per element one after
// another, and roofline_f32_short's loop, even at one trip, costs them a
// share of the point's time that the copy kernel, to which the memory roof
// is held, does not pay (gpu/roofline_run.go, entry).
@compute @workgroup_size(256)
fn roofline_f32_one(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e = first(wid, nwg, lid);
    let a = vec4<f32>(p.a);
    let b = vec4<f32>(p.b1);
    dst[e] = bitcast<vec4<u32>>(fma(bitcast<vec4<f32>>(src[e]), a, b));
    dst[e + WG] = bitcast<vec4<u32>>(fma(bitcast<vec4<f32>>(src[e + WG]), a, b));
    dst[e + 2u * WG] = bitcast<vec4<u32>>(fma(bitcast<vec4<f32>>(src[e + 2u * WG]), a, b));
    dst[e + 3u * WG] = bitcast<vec4<u32>>(fma(bitcast<vec4<f32>>(src[e + 3u * WG]), a, b));
}

// mad_round runs one int32 round on the chains (.xy, .zw): two dependent
// multiply-adds on vec2, one per scalar.
fn mad_round(v: vec4<i32>) -> vec4<i32> {
    let a = vec2<i32>(p.mult);
    let x = v.xy * a + v.zw;
    let y = v.zw * a + x;
    return vec4<i32>(x, y);
}

// roofline_i32: p.iters multiply-adds per scalar.
@compute @workgroup_size(256)
fn roofline_i32(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e = first(wid, nwg, lid);
    var v0 = bitcast<vec4<i32>>(src[e]);
    var v1 = bitcast<vec4<i32>>(src[e + WG]);
    var v2 = bitcast<vec4<i32>>(src[e + 2u * WG]);
    var v3 = bitcast<vec4<i32>>(src[e + 3u * WG]);
    // p.iters rounds: eight to a trip while eight remain (as the ALU
    // kernel runs them), then one to a trip.
    var k = 0u;
    for (; k + 8u <= p.iters; k += 8u) {
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
    }
    for (; k < p.iters; k++) {
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
    }
    dst[e] = bitcast<vec4<u32>>(v0);
    dst[e + WG] = bitcast<vec4<u32>>(v1);
    dst[e + 2u * WG] = bitcast<vec4<u32>>(v2);
    dst[e + 3u * WG] = bitcast<vec4<u32>>(v3);
}

// roofline_i32_short: roofline_i32's p.iters rounds, one to a loop trip,
// for a software adapter's points of 2 to 7 rounds (see
// roofline_f32_short: roofline_i32's eight-round body would run, masked
// off, at each of them).
@compute @workgroup_size(256)
fn roofline_i32_short(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e = first(wid, nwg, lid);
    var v0 = bitcast<vec4<i32>>(src[e]);
    var v1 = bitcast<vec4<i32>>(src[e + WG]);
    var v2 = bitcast<vec4<i32>>(src[e + 2u * WG]);
    var v3 = bitcast<vec4<i32>>(src[e + 3u * WG]);
    for (var k = 0u; k < p.iters; k++) {
        v0 = mad_round(v0); v1 = mad_round(v1); v2 = mad_round(v2); v3 = mad_round(v3);
    }
    dst[e] = bitcast<vec4<u32>>(v0);
    dst[e + WG] = bitcast<vec4<u32>>(v1);
    dst[e + 2u * WG] = bitcast<vec4<u32>>(v2);
    dst[e + 3u * WG] = bitcast<vec4<u32>>(v3);
}

// roofline_i32_one: one round (one multiply-add per scalar) with no loop,
// roofline_i32's output at p.iters = 1, for a software adapter's 1-round
// point (see roofline_f32_one).
@compute @workgroup_size(256)
fn roofline_i32_one(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    if (!in_use(wid, nwg)) {
        return;
    }
    let e = first(wid, nwg, lid);
    dst[e] = bitcast<vec4<u32>>(mad_round(bitcast<vec4<i32>>(src[e])));
    dst[e + WG] = bitcast<vec4<u32>>(mad_round(bitcast<vec4<i32>>(src[e + WG])));
    dst[e + 2u * WG] = bitcast<vec4<u32>>(mad_round(bitcast<vec4<i32>>(src[e + 2u * WG])));
    dst[e + 3u * WG] = bitcast<vec4<u32>>(mad_round(bitcast<vec4<i32>>(src[e + 3u * WG])));
}
