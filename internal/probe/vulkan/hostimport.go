package vulkan

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// hostMemory is the memory type of a mapped host buffer, and whether the
// memory is ours, imported, rather than the driver's.
type hostMemory struct {
	index    uint32
	cached   bool
	imported bool
}

// name is "host-imported", "host-cached" or "host-uncached".
func (m hostMemory) name() string {
	switch {
	case m.imported:
		return "host-imported"
	case m.cached:
		return "host-cached"
	}
	return "host-uncached"
}

// hostKind is a kind of host memory a transfer path may copy from or into.
type hostKind int

const (
	// hostCached is driver-allocated HOST_CACHED memory, as pinned memory.
	hostCached hostKind = iota
	// hostUncached is driver-allocated write-combined memory, where the
	// device has it.
	hostUncached
	// hostImported is memory we map and import (newImportedBuffer), where
	// the device can import host memory.
	hostImported
)

// hostKinds lists every kind a transfer path is tried with.
var hostKinds = []hostKind{hostCached, hostUncached, hostImported}

// newHostBuffer creates a mapped host buffer of size bytes of kind k:
// driver memory of the type hostType picks, or imported memory. Without
// imported memory it returns errNoHostMemory; for hostUncached it may
// return cached memory, where the device has no other.
func (d *Device) newHostBuffer(size uint64, k hostKind) (*Buffer, hostMemory, error) {
	if k == hostImported {
		return d.newImportedBuffer(size)
	}
	return d.newMappedBuffer(size, k == hostCached)
}

// Host memory we map ourselves and import (VK_EXT_external_memory_host),
// the "host-imported" kind of the transfer paths: 2 MiB aligned, advised
// for transparent huge pages and touched, so that the kernel may back it
// with huge pages where the driver's own host allocations may be mapped
// for DMA in base pages.

// extExternalMemoryHost is enabled when present (see wanted).
const extExternalMemoryHost = "VK_EXT_external_memory_host"

// hugePageBytes is the alignment of imported host memory: a transparent
// huge page on x86-64 and on arm64 with 4 KiB base pages. With 64 KiB base
// pages (whose huge pages are 512 MiB) it only keeps the mapping aligned.
const hugePageBytes = 2 << 20

// hostUsage is the usage of every mapped host buffer: it is copied from
// and into, and read and written by the stream kernel.
const hostUsage = vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit | vk.BufferUsageStorageBufferBit

// hostImport is what allocate chains to import host memory.
type hostImport struct {
	// buffer and memory are the VkExternalMemoryBufferCreateInfo and the
	// VkImportMemoryHostPointerInfoEXT, in C memory.
	buffer, memory unsafe.Pointer
	// ptr is the imported memory, size its length in bytes.
	ptr  unsafe.Pointer
	size uint64
	// types are the memory types ptr may be imported as.
	types uint32
}

// alignUp rounds n up to a multiple of a, a power of two.
func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// importLayout returns the alignment of the host memory imported for an
// n-byte buffer, the largest of hugePageBytes, the device's
// minImportedHostPointerAlignment minAlign and the page size (all powers
// of two), and its size: n rounded up to a multiple of that alignment.
func importLayout(n, minAlign uint64, page int) (size, align uint64) {
	align = max(hugePageBytes, minAlign, uint64(page))
	return alignUp(max(n, 1), align), align
}

// mapHost maps size bytes of anonymous memory aligned to align (over
// mapping by align and using the aligned part), advises the kernel to back
// them with transparent huge pages (EINVAL, where THP is not built in, is
// ignored: the memory stays in base pages) and writes a byte to every page,
// so that all of it is backed before it is imported. Unmap mapping, not
// data.
func mapHost(size, align uint64, page int) (mapping, data []byte, err error) {
	mapping, err = syscall.Mmap(-1, 0, int(size+align), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap %d bytes: %w", size+align, err)
	}
	addr := uint64(uintptr(unsafe.Pointer(&mapping[0])))
	off := alignUp(addr, align) - addr
	data = mapping[off : off+size : off+size]
	if err := syscall.Madvise(data, syscall.MADV_HUGEPAGE); err != nil && !errors.Is(err, syscall.EINVAL) {
		syscall.Munmap(mapping)
		return nil, nil, fmt.Errorf("madvise MADV_HUGEPAGE: %w", err)
	}
	for i := 0; i < len(data); i += page {
		data[i] = 0
	}
	return mapping, data, nil
}

// unmapHost unmaps imported host memory, once its Vulkan memory is freed.
func (b *Buffer) unmapHost() {
	if b.host != nil {
		syscall.Munmap(b.host)
		b.host = nil
	}
}

// hostImportAlign returns the device's minImportedHostPointerAlignment, and
// whether it can import host memory into a host buffer at all: it lists
// VK_EXT_external_memory_host and a buffer of hostUsage can import host
// allocations.
func (d *Device) hostImportAlign() (uint64, bool) {
	if !d.Info.HasExtension(extExternalMemoryHost) {
		return 0, false
	}
	return d.Ext.queryHostImport(d.pd, hostUsage)
}

// newImportedBuffer creates a host buffer of size bytes in memory mapped by
// mapHost and imported, of a host-visible, coherent memory type (host-cached
// where one allows it); an error wrapping errNoHostMemory when the device
// cannot import host memory, or only as memory the host cannot use without
// flushes. Release it before the Device: it frees the Vulkan memory, then
// unmaps.
func (d *Device) newImportedBuffer(size uint64) (*Buffer, hostMemory, error) {
	minAlign, ok := d.hostImportAlign()
	if !ok {
		return nil, hostMemory{}, errNoHostMemory
	}
	b := &Buffer{d: d, size: size}
	m, err := b.createImported(minAlign)
	if err != nil {
		b.Release()
		return nil, hostMemory{}, fmt.Errorf("imported host memory: %w", err)
	}
	return b, m, nil
}

func (b *Buffer) createImported(minAlign uint64) (hostMemory, error) {
	page := os.Getpagesize()
	n, align := importLayout(b.size, minAlign, page)
	var data []byte
	var err error
	if b.host, data, err = mapHost(n, align, page); err != nil {
		return hostMemory{}, err
	}
	imp := &hostImport{ptr: unsafe.Pointer(&data[0]), size: n}
	if imp.types, err = b.d.Ext.hostPointerTypes(b.d.Dev, imp.ptr); err != nil {
		return hostMemory{}, err
	}
	var free func()
	imp.buffer, imp.memory, free = importChains(imp.ptr)
	defer free()
	var m hostMemory
	err = b.allocate(hostUsage, func(bits uint32) (uint32, error) {
		var ok bool
		if m, ok = b.d.hostType(bits, true); !ok {
			return 0, fmt.Errorf("vulkan: no host-visible, coherent memory type to import host memory as (types %#x): %w", bits, errNoHostMemory)
		}
		return m.index, nil
	}, false, imp)
	m.imported = true
	return m, err
}
