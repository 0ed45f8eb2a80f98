package gpu

import (
	"context"
	"fmt"
	"time"
)

// IntegrityOptions says how much device memory MeasureIntegrity tests.
type IntegrityOptions struct {
	// TargetBytes is how many bytes of device memory to cover, rounded down
	// to whole 16-byte elements. Callers pass at least 95 % of the measured
	// usable VRAM, and open the device with an Options.MemoryLimit that
	// allows it. Zero means as much as the device's memory limit allows.
	TargetBytes uint64
	// Passes is how many times the whole pattern table runs; 0 means 1.
	// Each pass uses a new walking offset and random seed.
	Passes int
	// Progress, when not nil, is called after each step with the bytes the
	// patterns have moved so far and the bytes they will move in all.
	Progress func(done, total uint64)

	// inject, when not nil, is called after each pattern's fill and before
	// its first verify; the words it returns are corrupted on the GPU. Tests
	// only.
	inject func(pattern string) []integrityFault
	// chunkBytes, when not zero, overrides the chunk size. Tests only.
	chunkBytes uint64
}

// integrityFault is one word the injection hook corrupts: word Word (a
// 32-bit word index within the chunk) of chunk Chunk is XORed with Flip.
type integrityFault struct {
	Chunk int
	Word  uint64
	Flip  uint32
}

// IntegrityError is one mismatching word a verify step saw.
type IntegrityError struct {
	// Pattern names the row of IntegrityPatterns whose verify saw it.
	Pattern string
	// Chunk is the chunk's number, 0-based; chunks are laid out in order
	// over the tested region, each IntegrityResult.ChunkBytes long but the
	// last.
	Chunk int
	// WordIndex is the 32-bit word's index within its chunk (its byte
	// offset in the chunk over 4).
	WordIndex uint64
	// Expected is the value the pattern wrote; Actual the value read back.
	Expected, Actual uint32
}

// IntegrityResult is what the integrity probe saw.
type IntegrityResult struct {
	// Errors counts mismatching words over all verify steps of all passes.
	// A word that is wrong in several steps counts once in each.
	Errors uint64
	// BytesTested is the size of the region covered, in bytes: every verify
	// step of every pass proved (by the GPU's own count) that it checked
	// every element of it.
	BytesTested uint64
	// ChunkBytes is the size of each chunk but the last, in bytes.
	ChunkBytes uint64
	// Chunks is how many chunks (storage buffers) the region was split into;
	// all were allocated at once.
	Chunks int
	// Passes is how many times the pattern table ran.
	Passes int
	// Patterns names the rows of IntegrityPatterns that ran, in order.
	Patterns []string
	// FirstErrors are the first mismatches recorded, at most
	// MaxIntegrityErrors, in step order and within a step by chunk and word.
	FirstErrors []IntegrityError
	// Duration is the time the patterns' steps took on the host's monotonic
	// clock, from the first step's submission to the last step's status
	// read-back. Allocation, compilation and the warm-up fills are outside
	// it.
	Duration time.Duration
	// Elapsed is the whole call, allocation, compilation and warm-up
	// included.
	Elapsed time.Duration
	// BytesMoved is what the patterns read and wrote by the table:
	// BytesPerWord summed over the patterns, times the words tested, times
	// the passes.
	BytesMoved uint64
	// BytesPerS is BytesMoved over Duration, in bytes/s (decimal): compare
	// it with the copy bandwidth of MeasureBandwidth.
	BytesPerS float64
}

// MaxIntegrityErrors is the most mismatches IntegrityResult.FirstErrors
// keeps (and the most one verify step records on the GPU).
const MaxIntegrityErrors = 16

// Sizing and pacing of the integrity probe.
const (
	// maxChunkBytes caps a chunk (also capped by the device's storage
	// binding and buffer limits).
	maxChunkBytes = 1 << 30
	// integrityElement is the bytes of one element: a vec4<u32>.
	integrityElement = 16
	// integrityPerInvocation is how many elements one invocation handles.
	integrityPerInvocation = 4
	// The status layout of integrity.wgsl, in u32 words: the claim counter,
	// records from integrityRecords, per-chunk counters from
	// integrityCounts, integrityPerChunk words (errors, then the shards of
	// the checked count) a chunk. integrityMaxFaults bounds the injection
	// hook; the Step and Chunk uniforms' sizes are in bytes.
	integrityRecords    = 4
	integrityCounts     = integrityRecords + 4*MaxIntegrityErrors
	integrityShards     = 32
	integrityPerChunk   = 1 + integrityShards
	integrityMaxFaults  = 64
	integrityStepBytes  = 32 // the Step uniform
	integrityChunkBytes = 16 // the Chunk uniform
)

// MeasureIntegrity tests TargetBytes of device memory with the patterns of
// IntegrityPatterns, Passes times. It allocates the whole region at once in
// chunks (the device's storage-binding limit or 1 GiB, whichever is
// smaller), fills it to make it resident and keeps the device busy for a
// warm-up, then runs every pattern's steps over all chunks, each step one
// submission. Every check runs on the GPU; only a small status buffer is
// read back per verify step. Memory errors are counted in the result, not
// returned; an error wrapping ErrCheckFailed means the kernels themselves
// misbehaved (an element left unverified, a recorded expected value that
// disagrees with the CPU reference). Everything allocated is released before
// it returns.
func MeasureIntegrity(ctx context.Context, d *Device, o IntegrityOptions) (IntegrityResult, error) {
	start := time.Now()
	if err := d.alive(); err != nil {
		return IntegrityResult{}, err
	}
	plan, err := planIntegrity(d.limits, d.memLimit, o)
	if err != nil {
		return IntegrityResult{}, err
	}
	r := &integrityRun{d: d, plan: plan, opts: o, maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	defer r.release()
	if err := r.setup(); err != nil {
		return IntegrityResult{}, err
	}
	if err := r.prepare(ctx); err != nil {
		return IntegrityResult{}, err
	}
	res, err := r.runPasses(ctx)
	if err != nil {
		return IntegrityResult{}, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// integrityPlan is how the region is laid out.
type integrityPlan struct {
	total      uint64 // bytes tested, a multiple of integrityElement
	chunkBytes uint64 // bytes per chunk but the last
	passes     int
}

// chunks is the number of chunks.
func (p integrityPlan) chunks() int {
	return int((p.total + p.chunkBytes - 1) / p.chunkBytes)
}

// chunkSize is the size of chunk c in bytes.
func (p integrityPlan) chunkSize(c int) uint64 {
	return min(p.chunkBytes, p.total-uint64(c)*p.chunkBytes)
}

// planIntegrity sizes the region and its chunks from the options, the
// device's limits and its memory limit, which must hold the region plus
// the probe's bookkeeping buffers.
func planIntegrity(l Limits, memLimit uint64, o IntegrityOptions) (integrityPlan, error) {
	if o.Passes < 0 {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: %d passes", o.Passes)
	}
	chunk := min(uint64(maxChunkBytes), l.MaxStorageBindingBytes, l.MaxBufferBytes)
	if o.chunkBytes != 0 {
		chunk = min(chunk, o.chunkBytes)
	}
	chunk &^= integrityElement - 1
	if chunk == 0 {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: no chunk fits the device's limits (max storage binding %d, max buffer %d)", l.MaxStorageBindingBytes, l.MaxBufferBytes)
	}
	overhead := integrityOverhead(memLimit/chunk + 1)
	target := o.TargetBytes
	if target == 0 && memLimit > overhead {
		target = memLimit - overhead
	}
	target &^= integrityElement - 1
	if target == 0 {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: nothing to test (target %d bytes, memory limit %d)", o.TargetBytes, memLimit)
	}
	p := integrityPlan{total: target, chunkBytes: chunk, passes: max(o.Passes, 1)}
	if need := target + integrityOverhead(uint64(p.chunks())); need > memLimit {
		return integrityPlan{}, fmt.Errorf("gpu: integrity: %d bytes to test need %d bytes with bookkeeping, over the memory limit of %d; open the device with a larger Options.MemoryLimit", target, need, memLimit)
	}
	return p, nil
}

// integrityOverhead is the bytes of the bookkeeping buffers for n chunks:
// status and its staging copy, the uniforms, and the fault list.
func integrityOverhead(n uint64) uint64 {
	status := 4 * (integrityCounts + integrityPerChunk*n)
	return 2*status + n*integrityChunkBytes + integrityStepBytes + (integrityMaxFaults+1)*16
}

// integrityGroups is the number of workgroups a dispatch over n elements
// uses.
func integrityGroups(n uint64) uint32 {
	per := uint64(wgSize * integrityPerInvocation)
	return uint32((n + per - 1) / per)
}
