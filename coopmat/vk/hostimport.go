package vk

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// HostMemory is the memory type of a mapped host buffer, and whether the
// memory is ours, imported, rather than the driver's.
type HostMemory struct {
	// Index is the memory type; Cached whether it is HOST_CACHED;
	// Imported whether the memory is ours, imported.
	Index    uint32
	Cached   bool
	Imported bool
}

// Name is "host-imported", "host-cached" or "host-uncached".
func (m HostMemory) Name() string {
	switch {
	case m.Imported:
		return "host-imported"
	case m.Cached:
		return "host-cached"
	}
	return "host-uncached"
}

// HostKind is a kind of host memory a transfer path may copy from or into.
type HostKind int

const (
	// HostCached is driver-allocated HOST_CACHED memory, as pinned memory.
	HostCached HostKind = iota
	// HostUncached is driver-allocated write-combined memory, where the
	// device has it.
	HostUncached
	// HostImported is memory we map and import (NewImportedBuffer), where
	// the device can import host memory.
	HostImported
)

// HostKinds lists every kind a transfer path is tried with.
var HostKinds = []HostKind{HostCached, HostUncached, HostImported}

// NewHostBuffer creates a mapped host buffer of size bytes of kind k:
// driver memory of the type hostType picks, or imported memory. Without
// imported memory it returns ErrNoHostMemory; for HostUncached it may
// return cached memory, where the device has no other.
func (d *Device) NewHostBuffer(size uint64, k HostKind) (*Buffer, HostMemory, error) {
	if k == HostImported {
		return d.NewImportedBuffer(size)
	}
	return d.NewMappedBuffer(size, k == HostCached)
}

// Host memory we map ourselves and import (VK_EXT_external_memory_host),
// the "host-imported" kind of the transfer paths: 2 MiB aligned, advised
// for transparent huge pages and touched, so that the kernel may back it
// with huge pages where the driver's own host allocations may be mapped
// for DMA in base pages.

// ExtExternalMemoryHost is enabled when present (see wanted).
const ExtExternalMemoryHost = "VK_EXT_external_memory_host"

// HugePageBytes is the alignment of imported host memory: a transparent
// huge page on x86-64 and on arm64 with 4 KiB base pages. With 64 KiB base
// pages (whose huge pages are 512 MiB) it only keeps the mapping aligned.
const HugePageBytes = 2 << 20

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
// n-byte buffer, the largest of HugePageBytes, the device's
// minImportedHostPointerAlignment minAlign and the page size (all powers
// of two), and its size: n rounded up to a multiple of that alignment.
func importLayout(n, minAlign uint64, page int) (size, align uint64) {
	align = max(HugePageBytes, minAlign, uint64(page))
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
	if b.Host != nil {
		syscall.Munmap(b.Host)
		b.Host = nil
	}
}

// HostImportAlign returns the device's minImportedHostPointerAlignment, and
// whether it can import host memory into a host buffer at all: it lists
// VK_EXT_external_memory_host and a buffer of hostUsage can import host
// allocations.
func (d *Device) HostImportAlign() (uint64, bool) {
	if !d.Info.HasExtension(ExtExternalMemoryHost) {
		return 0, false
	}
	return d.Ext.queryHostImport(d.pd, hostUsage)
}

// NewImportedBuffer creates a host buffer of size bytes in memory mapped by
// mapHost and imported, of a host-visible, coherent memory type (host-cached
// where one allows it); an error wrapping ErrNoHostMemory when the device
// cannot import host memory, or only as memory the host cannot use without
// flushes. Release it before the Device: it frees the Vulkan memory, then
// unmaps.
func (d *Device) NewImportedBuffer(size uint64) (*Buffer, HostMemory, error) {
	minAlign, ok := d.HostImportAlign()
	if !ok {
		return nil, HostMemory{}, ErrNoHostMemory
	}
	b := &Buffer{d: d, size: size}
	m, err := b.createImported(minAlign)
	if err != nil {
		b.Release()
		return nil, HostMemory{}, fmt.Errorf("imported host memory: %w", err)
	}
	return b, m, nil
}

func (b *Buffer) createImported(minAlign uint64) (HostMemory, error) {
	page := os.Getpagesize()
	n, align := importLayout(b.size, minAlign, page)
	var data []byte
	var err error
	if b.Host, data, err = mapHost(n, align, page); err != nil {
		return HostMemory{}, err
	}
	imp := &hostImport{ptr: unsafe.Pointer(&data[0]), size: n}
	if imp.types, err = b.d.Ext.hostPointerTypes(b.d.Dev, imp.ptr); err != nil {
		return HostMemory{}, err
	}
	var free func()
	imp.buffer, imp.memory, free = importChains(imp.ptr)
	defer free()
	var m HostMemory
	err = b.allocate(hostUsage, func(bits uint32) (uint32, error) {
		var ok bool
		if m, ok = b.d.hostType(bits, true); !ok {
			return 0, fmt.Errorf("vulkan: no host-visible, coherent memory type to import host memory as (types %#x): %w", bits, ErrNoHostMemory)
		}
		return m.Index, nil
	}, false, imp)
	m.Imported = true
	return m, err
}

// hostType picks a HOST_VISIBLE|HOST_COHERENT memory type allowed by bits:
// one that is not device-local when any is (system memory, so that a copy
// crosses the host link), then one whose HOST_CACHED flag is cached.
func (d *Device) hostType(bits uint32, cached bool) (HostMemory, bool) {
	want := vk.MemoryPropertyFlags(vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit)
	best, score := HostMemory{}, -1
	for i := uint32(0); i < d.Memory.MemoryTypeCount; i++ {
		flags := d.Memory.MemoryTypes[i].PropertyFlags
		if bits&(1<<i) == 0 || flags&want != want {
			continue
		}
		isCached := flags&vk.MemoryPropertyFlags(vk.MemoryPropertyHostCachedBit) != 0
		s := 0
		if flags&vk.MemoryPropertyFlags(vk.MemoryPropertyDeviceLocalBit) == 0 {
			s += 2
		}
		if isCached == cached {
			s++
		}
		if s > score {
			best, score = HostMemory{Index: i, Cached: isCached}, s
		}
	}
	return best, score >= 0
}

// NewMappedBuffer creates a persistently mapped host buffer of size bytes
// in the memory type hostType picks. Release it before the Device.
func (d *Device) NewMappedBuffer(size uint64, cached bool) (*Buffer, HostMemory, error) {
	b := &Buffer{d: d, size: size}
	m, err := b.createMapped(cached)
	if err != nil {
		b.Release()
		return nil, HostMemory{}, err
	}
	return b, m, nil
}

// createMapped is (*Buffer).create for a host buffer whose memory type is
// chosen by hostType.
func (b *Buffer) createMapped(cached bool) (HostMemory, error) {
	var m HostMemory
	err := b.allocate(hostUsage, func(bits uint32) (uint32, error) {
		var ok bool
		if m, ok = b.d.hostType(bits, cached); !ok {
			return 0, fmt.Errorf("vulkan: no host-visible, coherent memory type for buffer")
		}
		return m.Index, nil
	}, true, nil)
	return m, err
}

// ErrNoHostMemory says that the device has no host memory of the kind
// asked for: no uncached memory (the configuration would repeat the cached
// one), or no import of host memory.
var ErrNoHostMemory = errors.New("no host memory of that kind")

// DeviceMappedType returns a memory type allowed by bits that is
// device-local, host-visible and host-coherent, and its heap's size.
func (d *Device) DeviceMappedType(bits uint32) (index uint32, heap uint64, ok bool) {
	want := vk.MemoryPropertyFlags(vk.MemoryPropertyDeviceLocalBit | vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit)
	for i := uint32(0); i < d.Memory.MemoryTypeCount; i++ {
		t := d.Memory.MemoryTypes[i]
		if bits&(1<<i) == 0 || t.PropertyFlags&want != want {
			continue
		}
		h := d.Memory.MemoryHeaps[t.HeapIndex]
		h.Deref()
		return i, uint64(h.Size), true
	}
	return 0, 0, false
}

// NewDeviceMappedBuffer creates a mapped buffer of size bytes in
// device-local, host-visible memory. Without such memory, when its heap
// holds less than twice size (such a heap is often a 256 MiB window the
// driver shares) or when the driver has no room left in it, it returns an
// error wrapping ErrNoHostMemory: the routes that need it are optional.
func (d *Device) NewDeviceMappedBuffer(size uint64) (*Buffer, error) {
	b := &Buffer{d: d, size: size}
	err := b.allocate(hostUsage, func(bits uint32) (uint32, error) {
		i, heap, ok := d.DeviceMappedType(bits)
		if !ok {
			return 0, fmt.Errorf("vulkan: no device-local, host-visible memory: %w", ErrNoHostMemory)
		}
		if heap < 2*size {
			return 0, fmt.Errorf("vulkan: device-local, host-visible heap of %d bytes for %d: %w", heap, size, ErrNoHostMemory)
		}
		return i, nil
	}, true, nil)
	if errors.Is(err, vk.Error(vk.ErrorOutOfDeviceMemory)) || errors.Is(err, vk.Error(vk.ErrorOutOfHostMemory)) {
		err = fmt.Errorf("%w: %w", err, ErrNoHostMemory)
	}
	if err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}
