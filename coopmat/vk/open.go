package vk

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Device is an opened Vulkan device with a compute queue and, where the
// device has a transfer-only family, a copy queue. It is not safe for
// concurrent use.
type Device struct {
	Info      DeviceInfo
	inst      *instance
	Ext       ext // the entry points vulkan-go lacks
	pd        vk.PhysicalDevice
	Dev       vk.Device
	Queue     *Queue // compute
	CopyQ     *Queue // transfer-only; nil when the device has none
	Memory    vk.PhysicalDeviceMemoryProperties
	Enabled   FeatureSet     // enabled on Dev
	AddressFn unsafe.Pointer // vkGetBufferDeviceAddress; nil unless enabled
	submitFn  unsafe.Pointer // vkQueueSubmit; nil: through vulkan-go
}

// Open opens device index (as Devices lists it) with every feature our
// kernels can use that it supports. Release it when done.
func Open(index int) (*Device, error) {
	in, err := newInstance()
	if err != nil {
		return nil, err
	}
	d := &Device{inst: in, Ext: in.ext}
	if err := d.open(index); err != nil {
		d.Release()
		return nil, err
	}
	return d, nil
}

func (d *Device) open(index int) error {
	pds, err := d.inst.physicalDevices()
	if err != nil {
		return err
	}
	if index < 0 || index >= len(pds) {
		return fmt.Errorf("vulkan: device %d of %d: %w", index, len(pds), ErrNoVulkan)
	}
	d.pd = pds[index]
	if d.Info, err = d.inst.describe(index, d.pd); err != nil {
		return err
	}
	vk.GetPhysicalDeviceMemoryProperties(d.pd, &d.Memory)
	d.Memory.Deref()
	for i := range d.Memory.MemoryTypes[:d.Memory.MemoryTypeCount] {
		d.Memory.MemoryTypes[i].Deref()
	}
	return d.createDevice()
}

// Queue is one device queue and its command pool.
type Queue struct {
	family uint32
	q      vk.Queue
	pool   vk.CommandPool
	TsBits uint32 // valid timestamp bits; 0: no timestamps
	Name   string // "compute-queue" or "transfer-queue"
}

// wanted lists the device extensions Open enables when present.
var wanted = []string{ExtCoopMat, ExtBFloat16, ExtFloat16Int8, ext8BitStorage, ext16BitStorage, extMemoryModel, ExtIntDot,
	ExtExternalMemoryHost, extBufferAddress, extSubgroupControl,
	ExtExecutableInfo}

func (d *Device) createDevice() error {
	f := d.Info.Features
	f.MemoryModelDevice = false
	d.Enabled = f
	chain := newDeviceChain(d.Info.Structs, f)
	defer chain.free()
	var exts []string
	for _, e := range wanted {
		if d.Info.HasExtension(e) {
			exts = append(exts, e+"\x00")
		}
	}
	prio := []float32{1}
	qi := []vk.DeviceQueueCreateInfo{{
		SType: vk.StructureTypeDeviceQueueCreateInfo, QueueFamilyIndex: d.Info.family,
		QueueCount: 1, PQueuePriorities: prio,
	}}
	if d.Info.copyFamily >= 0 {
		qi = append(qi, vk.DeviceQueueCreateInfo{
			SType: vk.StructureTypeDeviceQueueCreateInfo, QueueFamilyIndex: uint32(d.Info.copyFamily),
			QueueCount: 1, PQueuePriorities: prio,
		})
	}
	info := vk.DeviceCreateInfo{
		SType: vk.StructureTypeDeviceCreateInfo, PNext: chain.pointer(),
		QueueCreateInfoCount: uint32(len(qi)), PQueueCreateInfos: qi,
		EnabledExtensionCount: uint32(len(exts)), PpEnabledExtensionNames: exts,
	}
	var dev vk.Device
	if r := vk.CreateDevice(d.pd, &info, nil, &dev); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateDevice: %w", vk.Error(r))
	}
	d.Dev = dev
	d.submitFn = d.Ext.deviceProc(dev, "vkQueueSubmit")
	if f.BufferAddress {
		d.AddressFn = d.Ext.addressFunc(dev)
	}
	var err error
	if d.Queue, err = d.newQueue(d.Info.family, d.Info.TimestampValidBits, "compute-queue"); err != nil {
		return err
	}
	if d.Info.copyFamily >= 0 {
		d.CopyQ, err = d.newQueue(uint32(d.Info.copyFamily), d.Info.copyTimestampBits, "transfer-queue")
	}
	return err
}

func (d *Device) newQueue(family, tsBits uint32, name string) (*Queue, error) {
	q := &Queue{family: family, TsBits: tsBits, Name: name}
	vk.GetDeviceQueue(d.Dev, family, 0, &q.q)
	info := vk.CommandPoolCreateInfo{
		SType: vk.StructureTypeCommandPoolCreateInfo, QueueFamilyIndex: family,
		Flags: vk.CommandPoolCreateFlags(vk.CommandPoolCreateResetCommandBufferBit),
	}
	if r := vk.CreateCommandPool(d.Dev, &info, nil, &q.pool); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkCreateCommandPool (%s): %w", name, vk.Error(r))
	}
	return q, nil
}

// Queues returns the compute queue, then the copy queue when there is one.
func (d *Device) Queues() []*Queue {
	if d.CopyQ != nil {
		return []*Queue{d.Queue, d.CopyQ}
	}
	return []*Queue{d.Queue}
}

// Release waits for the device to go idle and destroys everything it made.
// Release every Buffer and Kernel first. Safe to call twice.
func (d *Device) Release() {
	if d == nil {
		return
	}
	if d.Dev != nil {
		vk.DeviceWaitIdle(d.Dev)
		for _, q := range []*Queue{d.Queue, d.CopyQ} {
			if q != nil {
				vk.DestroyCommandPool(d.Dev, q.pool, nil)
			}
		}
		d.Queue, d.CopyQ = nil, nil
		vk.DestroyDevice(d.Dev, nil)
		d.Dev = nil
	}
	d.inst.release()
}

// memoryType returns a memory type allowed by bits with all of want.
func (d *Device) memoryType(bits uint32, want vk.MemoryPropertyFlagBits) (uint32, bool) {
	for i := uint32(0); i < d.Memory.MemoryTypeCount; i++ {
		flags := d.Memory.MemoryTypes[i].PropertyFlags
		if bits&(1<<i) != 0 && flags&vk.MemoryPropertyFlags(want) == vk.MemoryPropertyFlags(want) {
			return i, true
		}
	}
	return 0, false
}
