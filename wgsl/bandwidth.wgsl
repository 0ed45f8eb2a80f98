// Memory bandwidth (gpu/bandwidth.go): BabelStream-style kernels over arrays of
// vec4<f32>. Every kernel walks the arrays grid-stride: workgroup g of
// p.groups (laid out over a 2-D dispatch when there are more than fit in one
// dimension) starts at element g*256 + local index and steps by
// p.groups*256. The host picks p.groups so that each invocation handles a
// fixed number of elements (gpu.BandwidthKernels says how many).
//
// The host checks every kernel's output against a CPU reference of the same
// arithmetic (gpu/bandwidth_ref.go), so pattern() below must stay in step with
// fillPattern there.

struct Params {
    n: u32,      // vec4 elements in each array
    groups: u32, // workgroups that take part; extra ones in the 2-D grid exit
    seed: u32,   // fill pattern seed
    scalar: f32, // triad scalar
}

const WG: u32 = 256u;

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> y: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;

var<workgroup> partial: array<vec4<f32>, WG>;

// group_index flattens the 2-D workgroup id.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// pattern is the value at scalar index i of an array filled with seed: a float
// in [1, 2) whose 23 mantissa bits are (i * 0x9E3779B1 + seed) mod 2^23. It is
// exact, cheap (multiply, add, and, or) and differs between neighbours.
fn pattern(i: u32, seed: u32) -> f32 {
    return bitcast<f32>(0x3F800000u | ((i * 0x9E3779B1u + seed) & 0x007FFFFFu));
}

// bw_write: out[i] = pattern of seed. Writes one array.
@compute @workgroup_size(256)
fn bw_write(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= p.groups) {
        return;
    }
    let stride = p.groups * WG;
    for (var i = g * WG + lid; i < p.n; i += stride) {
        let e = i * 4u;
        out[i] = vec4<f32>(pattern(e, p.seed), pattern(e + 1u, p.seed),
                           pattern(e + 2u, p.seed), pattern(e + 3u, p.seed));
    }
}

// bw_copy: out[i] = x[i]. Reads one array, writes one.
@compute @workgroup_size(256)
fn bw_copy(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= p.groups) {
        return;
    }
    let stride = p.groups * WG;
    for (var i = g * WG + lid; i < p.n; i += stride) {
        out[i] = x[i];
    }
}

// bw_triad: out[i] = x[i] + scalar * y[i]. Reads two arrays, writes one.
@compute @workgroup_size(256)
fn bw_triad(@builtin(workgroup_id) wid: vec3<u32>,
         @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= p.groups) {
        return;
    }
    let stride = p.groups * WG;
    for (var i = g * WG + lid; i < p.n; i += stride) {
        out[i] = x[i] + p.scalar * y[i];
    }
}

// bw_read: each workgroup sums its share of x lane by lane (each invocation
// sequentially, then a tree over the workgroup) and writes the vec4 sum to
// out[g]. The sums keep the loads from being elided; the host checks every
// workgroup's sum. Reads one array (the partial sums, one vec4 per
// workgroup, are not counted).
@compute @workgroup_size(256)
fn bw_read(@builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, nwg);
    if (g >= p.groups) {
        return;
    }
    let stride = p.groups * WG;
    var s = vec4<f32>(0.0);
    for (var i = g * WG + lid; i < p.n; i += stride) {
        s += x[i];
    }
    partial[lid] = s;
    workgroupBarrier();
    for (var k = WG / 2u; k > 0u; k >>= 1u) {
        if (lid < k) {
            partial[lid] += partial[lid + k];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        out[g] = partial[0];
    }
}
