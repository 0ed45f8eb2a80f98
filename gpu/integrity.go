package gpu

import (
	"context"
	"time"
)

// IntegrityOptions says how much device memory MeasureIntegrity tests.
type IntegrityOptions struct {
	TargetBytes uint64 // rounded down to 16-byte elements; 0 is what the memory limit allows
	Passes      int    // of the pattern table, each with its own seeds; 0 means 1
	// Progress, when not nil, is called after each step with the bytes
	// moved so far and in all.
	Progress func(done, total uint64)
	Held     *HeldMemory // when not empty, where the region lies

	// Test hooks: inject's words are corrupted on the GPU after each
	// pattern's fill; chunkBytes, when not zero, caps the chunk size.
	inject     func(pattern string) []integrityFault
	chunkBytes uint64
}

// integrityFault XORs the 32-bit word Word of chunk Chunk with Flip.
type integrityFault struct {
	Chunk int
	Word  uint64
	Flip  uint32
}

// IntegrityError is one mismatching word a verify step saw.
type IntegrityError struct {
	Pattern          string // the row of IntegrityPatterns whose verify saw it
	Chunk            int    // 0-based, in order over the tested region
	WordIndex        uint64 // the 32-bit word's index within its chunk
	Expected, Actual uint32
}

// IntegrityResult is what the integrity probe saw.
type IntegrityResult struct {
	Errors      uint64   // mismatching words, counted in each verify step
	BytesTested uint64   // the region, all of which every verify step checked
	ChunkBytes  uint64   // the largest chunk
	Chunks      int      // all held at once
	Passes      int      // times the pattern table ran
	Patterns    []string // the rows of IntegrityPatterns that ran
	// FirstErrors are the first mismatches, at most MaxIntegrityErrors, in
	// step order and within a step by chunk and word.
	FirstErrors []IntegrityError
	Duration    time.Duration // of the patterns' steps, on the host's clock
	Elapsed     time.Duration // of the whole call, allocation and warm-up included
	BytesMoved  uint64        // by the table, over all passes
	BytesPerS   float64       // BytesMoved over Duration
}

// MaxIntegrityErrors is the most mismatches IntegrityResult.FirstErrors
// keeps.
const MaxIntegrityErrors = 16

const (
	maxChunkBytes          = 1 << 30
	integrityAlign         = 256 // storage-buffer offset alignment: parts of held buffers bind
	integrityElement       = 16  // a vec4<u32>
	integrityPerInvocation = 4
	// The status layout of integrity.wgsl, in u32 words: the claim
	// counter, records, then per chunk its errors and checked-count shards.
	integrityRecords    = 4
	integrityCounts     = integrityRecords + 4*MaxIntegrityErrors
	integrityShards     = 32
	integrityPerChunk   = 1 + integrityShards
	integrityMaxFaults  = 64
	integrityStepBytes  = 32 // the Step uniform
	integrityChunkBytes = 16 // the Chunk uniform
)

// MeasureIntegrity tests device memory with IntegrityPatterns, the region
// held at once in chunks. Memory errors are counted, not returned; an error
// wrapping ErrCheckFailed means the kernels misbehaved.
func MeasureIntegrity(ctx context.Context, d *Device, o IntegrityOptions) (IntegrityResult, error) {
	start := time.Now()
	if err := d.alive(); err != nil {
		return IntegrityResult{}, err
	}
	held, err := o.Held.sizesOn(d)
	if err != nil {
		return IntegrityResult{}, err
	}
	plan, err := planIntegrity(d.limits, d.memLimit, o, held)
	if err != nil {
		return IntegrityResult{}, err
	}
	r := &integrityRun{d: d, plan: plan, opts: o, maxPerDim: d.limits.MaxWorkgroupsPerDimension}
	defer r.release()
	r.held, err = o.Held.take(plan.keep)
	r.buffers = append(r.buffers, r.held...)
	if err != nil {
		return IntegrityResult{}, err
	}
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

func integrityGroups(n uint64) uint32 {
	per := uint64(wgSize * integrityPerInvocation)
	return uint32((n + per - 1) / per)
}
