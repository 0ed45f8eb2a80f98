package vk

import (
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/everycycle/appraise/coopmat/vk/vktest/smaps"
)

func TestImportLayout(t *testing.T) {
	for _, c := range []struct {
		n, minAlign uint64
		page        int
		size, align uint64
	}{
		{1 << 20, 4096, 4096, 2 << 20, 2 << 20},
		{2 << 20, 4096, 4096, 2 << 20, 2 << 20},
		{2<<20 + 4, 4096, 4096, 4 << 20, 2 << 20},
		{256 << 20, 4096, 65536, 256 << 20, 2 << 20},
		{4, 0, 65536, 2 << 20, 2 << 20},
		{0, 4096, 4096, 2 << 20, 2 << 20},
		{5 << 20, 4 << 20, 4096, 8 << 20, 4 << 20},
		{1 << 20, 4096, 4 << 20, 4 << 20, 4 << 20},
	} {
		size, align := importLayout(c.n, c.minAlign, c.page)
		if size != c.size || align != c.align {
			t.Errorf("importLayout(%d, %d, %d) = %d, %d; want %d, %d", c.n, c.minAlign, c.page, size, align, c.size, c.align)
		}
	}
	for _, c := range [][3]uint64{{0, 8, 0}, {1, 8, 8}, {8, 8, 8}, {9, 8, 16}, {1<<21 - 1, 1 << 21, 1 << 21}} {
		if got := alignUp(c[0], c[1]); got != c[2] {
			t.Errorf("alignUp(%d, %d) = %d, want %d", c[0], c[1], got, c[2])
		}
	}
}

func TestMapHost(t *testing.T) {
	page := os.Getpagesize()
	size, align := importLayout(3<<20, 4096, page)
	mapping, data, err := mapHost(size, align, page)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := syscall.Munmap(mapping); err != nil {
			t.Error(err)
		}
	}()
	addr := uint64(uintptr(unsafe.Pointer(&data[0])))
	if addr%align != 0 || uint64(len(data)) != size || uint64(cap(data)) != size {
		t.Fatalf("data at %#x, %d bytes (cap %d); want %d-aligned, %d bytes", addr, len(data), cap(data), align, size)
	}
	for i := range data {
		data[i] = byte(i)
	}
	t.Logf("%d MiB mapped at %#x, %d KiB of it in huge pages", size>>20, addr, smaps.AnonHugeKiB(addr))
}
