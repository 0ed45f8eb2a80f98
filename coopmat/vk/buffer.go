package vk

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Buffer is a storage buffer with its own memory: device-local, or
// host-visible and mapped. Release it before its Device.
type Buffer struct {
	d      *Device
	Buf    vk.Buffer       // for recording copies and barriers
	Mem    vk.DeviceMemory // bound to Buf
	size   uint64
	Mapped unsafe.Pointer // host address of host-visible memory, else nil
	// Host is the whole mapping of imported host memory, nil otherwise.
	Host    []byte
	Address uint64 // device address; 0 unless made by NewAddressedBuffer
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() uint64 { return b.size }

// NewBuffer creates a buffer of size bytes. host selects host-visible,
// coherent, mapped memory; otherwise device-local memory.
func (d *Device) NewBuffer(size uint64, host bool) (*Buffer, error) {
	b := &Buffer{d: d, size: size}
	if err := b.create(host, 0); err != nil {
		b.Release()
		return nil, err
	}
	return b, nil
}

// create makes a storage and copy buffer, host-visible and mapped or device-local.
func (b *Buffer) create(host bool, extra vk.BufferUsageFlagBits) error {
	want := vk.MemoryPropertyDeviceLocalBit
	if host {
		want = vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit
	}
	usage := vk.BufferUsageStorageBufferBit | vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit | extra
	return b.allocate(usage, func(bits uint32) (uint32, error) {
		idx, ok := b.d.memoryType(bits, want)
		if !ok {
			return 0, fmt.Errorf("vulkan: no memory type with flags %#x for buffer", want)
		}
		return idx, nil
	}, host, nil)
}

// NewAddressedBuffer creates a device-local buffer with a device address
// (Buffer.Address); the device must have buffer device addresses enabled.
func (d *Device) NewAddressedBuffer(size uint64) (*Buffer, error) {
	if d.AddressFn == nil {
		return nil, fmt.Errorf("vulkan: buffer device addresses: %w", ErrFeatureMissing)
	}
	b := &Buffer{d: d, size: size}
	if err := b.create(false, usageDeviceAddress); err != nil {
		b.Release()
		return nil, err
	}
	b.Address = bufferAddress(d.AddressFn, d.Dev, b.Buf)
	if b.Address == 0 {
		b.Release()
		return nil, fmt.Errorf("vulkan: vkGetBufferDeviceAddress returned 0")
	}
	return b, nil
}

// allocate creates the buffer in pick's memory type or imp's host memory;
// with a copy queue it is shared concurrently by both queue families.
func (b *Buffer) allocate(usage vk.BufferUsageFlagBits, pick func(bits uint32) (uint32, error), mapped bool, imp *hostImport) error {
	d := b.d
	info := vk.BufferCreateInfo{
		SType: vk.StructureTypeBufferCreateInfo, Size: vk.DeviceSize(b.size),
		Usage: vk.BufferUsageFlags(usage), SharingMode: vk.SharingModeExclusive,
	}
	if d.CopyQ != nil {
		info.SharingMode = vk.SharingModeConcurrent
		info.QueueFamilyIndexCount = 2
		info.PQueueFamilyIndices = []uint32{d.Queue.family, d.CopyQ.family}
	}
	if imp != nil {
		info.PNext = imp.buffer
	}
	var buf vk.Buffer
	if r := vk.CreateBuffer(d.Dev, &info, nil, &buf); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateBuffer (%d bytes): %w", b.size, vk.Error(r))
	}
	b.Buf = buf
	var req vk.MemoryRequirements
	vk.GetBufferMemoryRequirements(d.Dev, buf, &req)
	req.Deref()
	alloc := vk.MemoryAllocateInfo{SType: vk.StructureTypeMemoryAllocateInfo, AllocationSize: req.Size}
	if imp != nil {
		if uint64(req.Size) > imp.size {
			return fmt.Errorf("vulkan: buffer needs %d bytes, %d imported", uint64(req.Size), imp.size)
		}
		req.MemoryTypeBits &= imp.types
		alloc.PNext, alloc.AllocationSize = imp.memory, vk.DeviceSize(imp.size)
	} else if usage&usageDeviceAddress != 0 {
		flags, free := addressAllocInfo()
		defer free()
		alloc.PNext = flags
	}
	idx, err := pick(req.MemoryTypeBits)
	if err != nil {
		return err
	}
	alloc.MemoryTypeIndex = idx
	var mem vk.DeviceMemory
	if r := vk.AllocateMemory(d.Dev, &alloc, nil, &mem); r != vk.Success {
		return fmt.Errorf("vulkan: vkAllocateMemory (%d bytes): %w", uint64(alloc.AllocationSize), vk.Error(r))
	}
	b.Mem = mem
	if r := vk.BindBufferMemory(d.Dev, buf, mem, 0); r != vk.Success {
		return fmt.Errorf("vulkan: vkBindBufferMemory: %w", vk.Error(r))
	}
	if imp != nil {
		b.Mapped = imp.ptr
	} else if mapped {
		var p unsafe.Pointer
		if r := vk.MapMemory(d.Dev, mem, 0, vk.DeviceSize(b.size), 0, &p); r != vk.Success {
			return fmt.Errorf("vulkan: vkMapMemory: %w", vk.Error(r))
		}
		b.Mapped = p
	}
	return nil
}

// Bytes returns a host buffer's mapped contents, valid until Release.
func (b *Buffer) Bytes() []byte {
	if b.Mapped == nil {
		return nil
	}
	return unsafe.Slice((*byte)(b.Mapped), b.size)
}

// Release frees the buffer and its memory; it is safe to call twice.
func (b *Buffer) Release() {
	if b == nil {
		return
	}
	if b.d != nil && b.d.Dev != nil {
		if b.Mapped != nil && b.Host == nil {
			vk.UnmapMemory(b.d.Dev, b.Mem)
		}
		if b.Buf != nil {
			vk.DestroyBuffer(b.d.Dev, b.Buf, nil)
			b.Buf = nil
		}
		if b.Mem != nil {
			vk.FreeMemory(b.d.Dev, b.Mem, nil)
			b.Mem = nil
		}
	}
	b.Mapped = nil
	b.unmapHost()
}

// Upload copies data into device buffer dst through a staging buffer.
func (d *Device) Upload(dst *Buffer, data []byte) error {
	if uint64(len(data)) > dst.size {
		return fmt.Errorf("vulkan: upload of %d bytes into %d-byte buffer", len(data), dst.size)
	}
	st, err := d.NewBuffer(uint64(len(data)), true)
	if err != nil {
		return err
	}
	defer st.Release()
	copy(st.Bytes(), data)
	return d.CopyBuffer(st, dst, uint64(len(data)))
}

// Download copies the first n bytes of device buffer src to host memory.
func (d *Device) Download(src *Buffer, n uint64) ([]byte, error) {
	st, err := d.NewBuffer(n, true)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	if err := d.CopyBuffer(src, st, n); err != nil {
		return nil, err
	}
	return append([]byte(nil), st.Bytes()...), nil
}

// CopyBuffer copies n bytes from src to dst on the compute queue and waits.
func (d *Device) CopyBuffer(src, dst *Buffer, n uint64) error {
	return d.submitOnce(func(cb vk.CommandBuffer) {
		vk.CmdCopyBuffer(cb, src.Buf, dst.Buf, 1, []vk.BufferCopy{{Size: vk.DeviceSize(n)}})
		MemoryBarrier(cb, vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessShaderReadBit,
			vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageComputeShaderBit)
	})
}

// Words returns the mapped contents of a host buffer as 32-bit words.
func (b *Buffer) Words() []uint32 {
	return unsafe.Slice((*uint32)(b.Mapped), b.size/4)
}
