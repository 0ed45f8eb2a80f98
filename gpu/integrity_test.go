package gpu

import (
	"context"
	"errors"
	"math/bits"
	"regexp"
	"testing"

	"github.com/everycycle/appraise/wgsl"
)

// TestIntegrityTable pins the bytes each pattern moves per word (the table
// in the doc comment of IntegrityPatterns) and checks that Reads and Writes
// agree with the steps.
func TestIntegrityTable(t *testing.T) {
	want := map[string]uint64{"address": 8, "walking-ones": 8, "walking-zeros": 8, "moving-inversions": 16, "random": 8}
	pats := IntegrityPatterns()
	if len(pats) != len(want) {
		t.Fatalf("%d patterns, want %d", len(pats), len(want))
	}
	var total uint64
	for _, p := range pats {
		if got := p.BytesPerWord(); got != want[p.Name] {
			t.Errorf("%s: %d bytes per word, want %d", p.Name, got, want[p.Name])
		}
		var reads, writes int
		var stepBytes uint64
		for _, s := range p.steps {
			stepBytes += s.bytesPerWord()
			switch {
			case !s.verify:
				writes++
			case s.rewrite:
				reads, writes = reads+1, writes+1
			default:
				reads++
			}
		}
		if reads != p.Reads || writes != p.Writes || stepBytes != p.BytesPerWord() {
			t.Errorf("%s: steps read %d and write %d sweeps (%d bytes/word), row says %d and %d", p.Name, reads, writes, stepBytes, p.Reads, p.Writes)
		}
		if p.steps[0].verify || p.Word == "" || p.Steps == "" {
			t.Errorf("%s: incomplete row or not starting with a fill: %+v", p.Name, p)
		}
		total += p.BytesPerWord()
	}
	if total != 48 {
		t.Errorf("a pass moves %d bytes per word, want 48", total)
	}
}

// TestIntegrityKernelsExist: every entry point the probe compiles is a
// compute function of integrity.wgsl.
func TestIntegrityKernelsExist(t *testing.T) {
	src, err := wgsl.Source("integrity")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range integrityKernels() {
		re := regexp.MustCompile(`@compute\s+@workgroup_size\([^)]*\)\s*fn\s+` + e + `\(`)
		if !re.MatchString(src) {
			t.Errorf("integrity.wgsl has no compute entry point %q", e)
		}
	}
}

// TestIntegrityWords checks the properties each pattern is there for.
func TestIntegrityWords(t *testing.T) {
	const n = 1 << 16
	seen := map[uint32]bool{}
	for w := uint32(0); w < n; w++ {
		a := integrityWord(patAddress, 0, false, 3, w)
		if seen[a] || a == integrityWord(patAddress, 0, false, 4, w) {
			t.Fatalf("address word %d of chunk 3 (%#x) repeats within the chunk or across chunks", w, a)
		}
		seen[a] = true
		if one := integrityWord(patWalk, 5, false, 0, w); bits.OnesCount32(one) != 1 || one != 1<<((w+5)%32) {
			t.Fatalf("walking-ones word %d is %#x", w, one)
		}
		if zero := integrityWord(patWalk, 5, true, 0, w); bits.OnesCount32(zero) != 31 {
			t.Fatalf("walking-zeros word %d is %#x", w, zero)
		}
		if ck := integrityWord(patChecker, 0, false, 0, w); ck^integrityWord(patChecker, 0, false, 0, w+1) != 0xFFFFFFFF {
			t.Fatalf("checkerboard words %d and %d are not inverses", w, w+1)
		}
	}
	same := 0
	for w := uint32(0); w < n; w++ {
		if integrityWord(patRandom, seedFor(patRandom, 0), false, 0, w) == integrityWord(patRandom, seedFor(patRandom, 1), false, 0, w) {
			same++
		}
	}
	if same > 4 {
		t.Errorf("random words of passes 0 and 1 agree in %d of %d words", same, n)
	}
}

func TestPlanIntegrity(t *testing.T) {
	big := Limits{MaxBufferBytes: 4 << 30, MaxStorageBindingBytes: 2 << 30}
	cases := []struct {
		name      string
		l         Limits
		mem       uint64
		o         IntegrityOptions
		wantBytes uint64 // 0 for an error
		wantChunk uint64
		wantN     int
	}{
		{"GPU, 1 GiB chunks", big, 150 << 30, IntegrityOptions{TargetBytes: 140<<30 + 100}, 140<<30 + 96, 1 << 30, 141},
		{"binding limit", Limits{MaxBufferBytes: 1 << 30, MaxStorageBindingBytes: 128 << 20}, 1 << 30, IntegrityOptions{TargetBytes: 300 << 20}, 300 << 20, 128 << 20, 3},
		{"zero: the memory limit", big, 1 << 30, IntegrityOptions{}, 1<<30 - integrityOverhead(2), (1<<30 - integrityOverhead(2)) &^ 15, 1},
		{"over the memory limit", big, 1 << 30, IntegrityOptions{TargetBytes: 1 << 30}, 0, 0, 0},
		{"below an element", big, 1 << 30, IntegrityOptions{TargetBytes: 15}, 0, 0, 0},
		{"negative passes", big, 1 << 30, IntegrityOptions{TargetBytes: 1 << 20, Passes: -1}, 0, 0, 0},
	}
	for _, c := range cases {
		p, err := planIntegrity(c.l, c.mem, c.o, nil)
		if c.wantBytes == 0 {
			if err == nil {
				t.Errorf("%s: got %+v, want an error", c.name, p)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if p.total != c.wantBytes&^15 || p.largest() != c.wantChunk || p.chunks() != c.wantN || p.passes != 1 || p.keep != 0 {
			t.Errorf("%s: %d bytes in %d chunks of %d, %d passes, %d held kept; want %d in %d of %d, 1 pass, none held",
				c.name, p.total, p.chunks(), p.largest(), p.passes, p.keep, c.wantBytes&^15, c.wantN, c.wantChunk)
		}
		var sum uint64
		for i := range p.chunks() {
			sum += p.chunkSize(i)
		}
		if sum != p.total || p.total+integrityOverhead(uint64(p.chunks())) > c.mem {
			t.Errorf("%s: chunks cover %d of %d bytes; overhead %d, limit %d", c.name, sum, p.total, integrityOverhead(uint64(p.chunks())), c.mem)
		}
	}
}

// TestVerifyStatusRejects: a status the kernels could not honestly have
// left fails with ErrCheckFailed.
func TestVerifyStatusRejects(t *testing.T) {
	p := IntegrityPatterns()[0]
	sizes := []uint64{100, 50}
	good := func() integrityStatus {
		want := integrityWord(p.kind, 0, false, 1, 7)
		return integrityStatus{claimed: 1, errors: []uint64{0, 1}, checked: []uint64{100, 50},
			records: []IntegrityError{{Chunk: 1, WordIndex: 7, Expected: want, Actual: want ^ 4}}}
	}
	if errs, recs, err := verifyStatus(good(), sizes, p, 0, integrityStep{verify: true}); err != nil || errs != 1 || len(recs) != 1 || recs[0].Pattern != p.Name {
		t.Fatalf("good status: %d errors, %+v, %v", errs, recs, err)
	}
	bad := map[string]func(*integrityStatus){
		"element unchecked":    func(s *integrityStatus) { s.checked[0]-- },
		"element twice":        func(s *integrityStatus) { s.checked[1]++ },
		"record without error": func(s *integrityStatus) { s.errors[1] = 0 },
		"error without record": func(s *integrityStatus) { s.claimed, s.records = 0, nil },
		"word outside chunk":   func(s *integrityStatus) { s.records[0].WordIndex = 200 },
		"no such chunk":        func(s *integrityStatus) { s.records[0].Chunk = 2 },
		"wrong expected":       func(s *integrityStatus) { s.records[0].Expected ^= 1 },
		"actual is expected":   func(s *integrityStatus) { s.records[0].Actual = s.records[0].Expected },
	}
	for name, tamper := range bad {
		s := good()
		tamper(&s)
		if _, _, err := verifyStatus(s, sizes, p, 0, integrityStep{verify: true}); !errors.Is(err, ErrCheckFailed) {
			t.Errorf("%s: got %v, want ErrCheckFailed", name, err)
		}
	}
}

// integrityTestOptions covers 64 MiB plus a ragged tail in 24 MiB chunks,
// so the run has several chunks and a last one that fills no whole
// workgroup share.
func integrityTestOptions() IntegrityOptions {
	return IntegrityOptions{TargetBytes: 64<<20 + 4096 + 48, chunkBytes: 24 << 20}
}

// TestIntegrityClean runs the probe on healthy memory: no errors, every
// byte covered, and progress that ends at the table's total.
func TestIntegrityClean(t *testing.T) {
	d := newDevice(t)
	o := integrityTestOptions()
	var last, total uint64
	o.Progress = func(done, all uint64) {
		if done < last || (total != 0 && all != total) {
			t.Errorf("progress went from %d to %d (total %d, then %d)", last, done, total, all)
		}
		last, total = done, all
	}
	res, err := MeasureIntegrity(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	logIntegrity(t, res)
	words := o.TargetBytes / 4
	if res.Errors != 0 || len(res.FirstErrors) != 0 {
		t.Errorf("%d errors on healthy memory: %+v", res.Errors, res.FirstErrors)
	}
	if res.BytesTested != o.TargetBytes || res.Chunks != 3 || res.Passes != 1 || len(res.Patterns) != len(IntegrityPatterns()) {
		t.Errorf("covered %d of %d bytes in %d chunks, %d passes, %d patterns", res.BytesTested, o.TargetBytes, res.Chunks, res.Passes, len(res.Patterns))
	}
	if res.BytesMoved != 48*words || last != total || total != res.BytesMoved {
		t.Errorf("moved %d bytes, want %d; progress ended at %d of %d", res.BytesMoved, 48*words, last, total)
	}
	if !(res.BytesPerS > 0) || res.Duration <= 0 || res.Elapsed < res.Duration {
		t.Errorf("rate %v over %v (elapsed %v)", res.BytesPerS, res.Duration, res.Elapsed)
	}
}

// TestIntegrityInjectedFaults corrupts three words after every pattern's
// fill and expects exactly those, named in FirstErrors, over two passes.
func TestIntegrityInjectedFaults(t *testing.T) {
	d := newDevice(t)
	o := integrityTestOptions()
	o.Passes = 2
	last := (o.TargetBytes - 2*o.chunkBytes) / 4
	faults := []integrityFault{{0, 0, 1 << 31}, {1, 12345, 0x00F0}, {2, last - 1, 1}}
	injected := map[string]int{}
	o.inject = func(pattern string) []integrityFault {
		injected[pattern]++
		return faults
	}
	res, err := MeasureIntegrity(t.Context(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	logIntegrity(t, res)
	pats := IntegrityPatterns()
	if want := uint64(len(faults) * len(pats) * o.Passes); res.Errors != want {
		t.Errorf("%d errors, want %d (%d faults, %d patterns, %d passes)", res.Errors, want, len(faults), len(pats), o.Passes)
	}
	for _, p := range pats {
		if injected[p.Name] != o.Passes {
			t.Errorf("%s: injected %d times, want %d", p.Name, injected[p.Name], o.Passes)
		}
	}
	if len(res.FirstErrors) != MaxIntegrityErrors {
		t.Fatalf("%d first errors, want %d", len(res.FirstErrors), MaxIntegrityErrors)
	}
	for i, e := range res.FirstErrors {
		f := faults[i%len(faults)]
		p := pats[i/len(faults)%len(pats)]
		if e.Pattern != p.Name || e.Chunk != f.Chunk || e.WordIndex != f.Word || e.Actual != e.Expected^f.Flip {
			t.Errorf("first error %d is %+v, want %s chunk %d word %d flipped by %#x", i, e, p.Name, f.Chunk, f.Word, f.Flip)
		}
	}
}

// TestIntegrityCancelled stops a run part way; the device stays usable
// and a second run over the same region succeeds.
func TestIntegrityCancelled(t *testing.T) {
	d := newDevice(t)
	ctx, cancel := context.WithCancel(t.Context())
	o := integrityTestOptions()
	o.Progress = func(done, total uint64) { cancel() }
	if _, err := MeasureIntegrity(ctx, d, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: got %v, want context.Canceled", err)
	}
	o.Progress = nil
	o.TargetBytes = 16 << 20
	if res, err := MeasureIntegrity(t.Context(), d, o); err != nil || res.Errors != 0 {
		t.Fatalf("run after a cancelled one: %d errors, %v", res.Errors, err)
	}
}

func TestIntegrityOverMemoryLimit(t *testing.T) {
	d := newDevice(t)
	_, err := MeasureIntegrity(t.Context(), d, IntegrityOptions{TargetBytes: d.MemoryLimit()})
	if err == nil {
		t.Fatal("a target of the whole memory limit plus bookkeeping did not fail")
	}
}

func logIntegrity(t *testing.T, r IntegrityResult) {
	t.Helper()
	t.Logf("%d MiB in %d chunks of %d MiB, %d passes: %d errors; %.2f GB/s moving %d MiB in %v (call %v)",
		r.BytesTested>>20, r.Chunks, r.ChunkBytes>>20, r.Passes, r.Errors, r.BytesPerS/1e9, r.BytesMoved>>20, r.Duration, r.Elapsed)
}
