// Launch overhead (gpu/launch.go): the smallest kernel that still does checkable
// work. One invocation adds one to a counter, so after N dispatches the host
// expects exactly N (plus the counter's start value) and knows that every
// dispatch it timed really ran.

@group(0) @binding(0) var<storage, read_write> counter: array<u32>;

@compute @workgroup_size(1)
fn touch() {
    counter[0] = counter[0] + 1u;
}
