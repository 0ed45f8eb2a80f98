package vulkan

import (
	"fmt"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// Device is an opened Vulkan device with one compute queue, and one copy
// queue when the device has a transfer-only queue family. Open it with
// Open, release it with Release. A Device is not safe for concurrent use.
type Device struct {
	// Info describes the physical device.
	Info DeviceInfo

	inst    *instance
	Ext     ext
	pd      vk.PhysicalDevice
	Dev     vk.Device
	queue   *queue // compute
	copyQ   *queue // transfer-only; nil when the device has none
	memory  vk.PhysicalDeviceMemoryProperties
	Enabled FeatureSet
	// AddressFn is vkGetBufferDeviceAddress; nil unless the device has
	// buffer device addresses enabled.
	AddressFn unsafe.Pointer
}

// Open opens physical device index (vkEnumeratePhysicalDevices order), with
// every feature our kernels can use that the device supports.
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
	vk.GetPhysicalDeviceMemoryProperties(d.pd, &d.memory)
	d.memory.Deref()
	for i := range d.memory.MemoryTypes[:d.memory.MemoryTypeCount] {
		d.memory.MemoryTypes[i].Deref()
	}
	return d.createDevice()
}

// queue is one device queue and the pool its command buffers come from.
type queue struct {
	family uint32
	q      vk.Queue
	pool   vk.CommandPool
	// tsBits is the family's valid timestamp bits (0: no timestamps).
	tsBits uint32
	// name is how transfer paths name the queue: "compute-queue" or
	// "transfer-queue".
	name string
}

// wanted lists the device extensions we enable when present.
var wanted = []string{ExtCoopMat, ExtBFloat16, ExtFloat16Int8, ext8BitStorage, ext16BitStorage, extMemoryModel, ExtIntDot,
	extExternalMemoryHost, extBufferAddress, extSubgroupControl,
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
	if f.BufferAddress {
		d.AddressFn = d.Ext.addressFunc(dev)
	}
	var err error
	if d.queue, err = d.newQueue(d.Info.family, d.Info.TimestampValidBits, "compute-queue"); err != nil {
		return err
	}
	if d.Info.copyFamily >= 0 {
		d.copyQ, err = d.newQueue(uint32(d.Info.copyFamily), d.Info.copyTimestampBits, "transfer-queue")
	}
	return err
}

// newQueue gets queue 0 of family and makes its command pool.
func (d *Device) newQueue(family, tsBits uint32, name string) (*queue, error) {
	q := &queue{family: family, tsBits: tsBits, name: name}
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

// queues returns the queues a copy can run on: the compute queue, then
// the copy queue when there is one.
func (d *Device) queues() []*queue {
	if d.copyQ != nil {
		return []*queue{d.queue, d.copyQ}
	}
	return []*queue{d.queue}
}

// Release waits for the device to go idle and destroys everything it made.
// Release every Buffer and Kernel first. Safe to call twice.
func (d *Device) Release() {
	if d == nil {
		return
	}
	if d.Dev != nil {
		vk.DeviceWaitIdle(d.Dev)
		for _, q := range []*queue{d.queue, d.copyQ} {
			if q != nil {
				vk.DestroyCommandPool(d.Dev, q.pool, nil)
			}
		}
		d.queue, d.copyQ = nil, nil
		vk.DestroyDevice(d.Dev, nil)
		d.Dev = nil
	}
	d.inst.release()
}

// memoryType returns a memory type index allowed by bits that has all of
// want, or false.
func (d *Device) memoryType(bits uint32, want vk.MemoryPropertyFlagBits) (uint32, bool) {
	for i := uint32(0); i < d.memory.MemoryTypeCount; i++ {
		flags := d.memory.MemoryTypes[i].PropertyFlags
		if bits&(1<<i) != 0 && flags&vk.MemoryPropertyFlags(want) == vk.MemoryPropertyFlags(want) {
			return i, true
		}
	}
	return 0, false
}
