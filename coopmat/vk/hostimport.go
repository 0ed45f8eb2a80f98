package vk

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// HostMemory is the memory type of a mapped host buffer.
type HostMemory struct {
	Index    uint32
	Cached   bool // HOST_CACHED
	Imported bool // ours, imported, rather than the driver's
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

// HostKind is a kind of host memory a transfer path may copy from or into:
// the driver's cached or write-combined memory, or ours, imported.
type HostKind int

const (
	HostCached HostKind = iota
	HostUncached
	HostImported
)

// HostKinds lists every kind a transfer path is tried with.
var HostKinds = []HostKind{HostCached, HostUncached, HostImported}

// NewHostBuffer creates a mapped host buffer of size bytes of kind k. For
// HostUncached it may return cached memory where the device has no other.
func (d *Device) NewHostBuffer(size uint64, k HostKind) (*Buffer, HostMemory, error) {
	if k == HostImported {
		return d.NewImportedBuffer(size)
	}
	return d.NewMappedBuffer(size, k == HostCached)
}

// ExtExternalMemoryHost lets a device import host memory; Open enables it.
const ExtExternalMemoryHost = "VK_EXT_external_memory_host"

// HugePageBytes is the alignment of imported host memory: a transparent huge
// page with 4 KiB base pages.
const HugePageBytes = 2 << 20

// hostUsage is the usage of every mapped host buffer.
const hostUsage = vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit | vk.BufferUsageStorageBufferBit

// hostImport is what allocate chains to import size bytes at ptr.
type hostImport struct {
	buffer, memory unsafe.Pointer // C structures
	ptr            unsafe.Pointer
	size           uint64
	types          uint32 // memory types ptr may be imported as
}

// alignUp rounds n up to a multiple of a, a power of two.
func alignUp(n, a uint64) uint64 { return (n + a - 1) &^ (a - 1) }

// importLayout returns the size and alignment of host memory for n bytes.
func importLayout(n, minAlign uint64, page int) (size, align uint64) {
	align = max(HugePageBytes, minAlign, uint64(page))
	return alignUp(max(n, 1), align), align
}

// mapHost maps size bytes of touched anonymous memory aligned to align.
// Unmap mapping, not data.
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

func (b *Buffer) unmapHost() {
	if b.Host != nil {
		syscall.Munmap(b.Host)
		b.Host = nil
	}
}

// HostImportAlign returns minImportedHostPointerAlignment in bytes and
// whether the device can import host memory into a host buffer at all.
func (d *Device) HostImportAlign() (uint64, bool) {
	if !d.Info.HasExtension(ExtExternalMemoryHost) {
		return 0, false
	}
	return d.Ext.queryHostImport(d.pd, hostUsage)
}

// NewImportedBuffer creates a host buffer of size bytes in memory we map
// and import as host-visible, coherent memory; the error wraps
// ErrNoHostMemory where the device cannot. Release it before the Device.
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

// hostType picks a host-visible, coherent memory type allowed by bits,
// preferring system memory, then the HOST_CACHED flag equal to cached.
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

// NewMappedBuffer creates a mapped host buffer; Release it before the Device.
func (d *Device) NewMappedBuffer(size uint64, cached bool) (*Buffer, HostMemory, error) {
	b := &Buffer{d: d, size: size}
	m, err := b.createMapped(cached)
	if err != nil {
		b.Release()
		return nil, HostMemory{}, err
	}
	return b, m, nil
}

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

// ErrNoHostMemory says that the device has no host memory of the kind asked for.
var ErrNoHostMemory = errors.New("no host memory of that kind")

// DeviceMappedType returns a device-local, host-visible, coherent memory type.
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
// device-local, host-visible memory. Without such memory, with a heap of
// less than twice size, or with no room left, the error wraps ErrNoHostMemory.
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
